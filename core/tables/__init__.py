"""Field tables: rows that validate requests, render answers and document both (OpenAPI)."""

from .rules import (
    fits_currency,
    given,
    not_above,
    only_with,
    required_with_group,
    requires,
    together,
)
from .table import CONDITIONAL, MANDATORY, OPTIONAL, F, Rule, Table, model_values

__all__ = [
    "CONDITIONAL",
    "MANDATORY",
    "OPTIONAL",
    "F",
    "Rule",
    "Table",
    "fits_currency",
    "given",
    "not_above",
    "model_values",
    "only_with",
    "required_with_group",
    "requires",
    "together",
]
