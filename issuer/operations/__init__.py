"""The issuer operation catalogue (catalogue.py: the specification's list, as data), the
implemented operations (registry.py) and one module per catalogue group: application,
customer, account, card, transaction, token, authentication, parameter (docs/issuer.md)."""

from . import (  # noqa: F401 - each registers its group's operations
    account,
    application,
    authentication,
    card,
    customer,
    parameter,
    token,
    transaction,
)
from .registry import IMPLEMENTED, Call, Operation, group, lookup, perform, register, scopes

__all__ = ["IMPLEMENTED", "Call", "Operation", "group", "lookup", "perform", "register", "scopes"]
