"""The issuer operations: the implemented operations (registry.py, over the specification's
catalogue, issuer/catalogue.py) and one module per catalogue group: application, customer,
account, card, transaction, token, authentication, parameter (docs/issuer.md)."""

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
