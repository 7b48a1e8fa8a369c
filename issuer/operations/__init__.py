"""The issuer operation catalogue (catalogue.py: the specification's list, as data), the
implemented operations (registry.py) and one module per catalogue group that has handlers.

This issue's group: authentication.py. The others (application, customer, account, card,
transaction, token, parameter) register the same way when they are built.
"""

from . import authentication  # noqa: F401 - registers the Authentication group
from .registry import IMPLEMENTED, Call, Operation, group, lookup, perform, register, scopes

__all__ = ["IMPLEMENTED", "Call", "Operation", "group", "lookup", "perform", "register", "scopes"]
