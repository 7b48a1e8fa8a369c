"""Services of cards, customers and accounts (the Application, Customer, Account and Card
groups), one module per group of use cases; keyword-only arguments throughout. Money moves in
issuer.cards.money.

| module | use cases | functions |
|---|---|---|
| products.py | a product, its letters | `product_create`, `require_letter` |
| applying.py | CardApplication | `card_apply`, `account_create` |
| lifecycle.py | a card's status, with reason and actor | `card_set_status`, `card_change_status` |
| lifecycle.py | Activation, Replacement, Cancel | `card_activate`, `card_replace`, `card_cancel` |
| limits.py | LimitSetting, the staff's edits | `limits_set`, `under_card_lock` |
| security.py | PIN | `pin_reset`, `pin_change`, `pin_verify` |
| security.py | CVV2, dCVV | `card_cvv2`, `card_cvv2_verify`, `card_dcvv` |
| customers.py | 3-D Secure channel, contact | `secure_register`, `customer_update` |
| customers.py | account linkage and status | `account_link`, `account_set_status` |
| ../selectors.py | a requestor's card, account, customer | `card_of(_number)`, `account_of`, ... |

Every read is scoped to the requestor (`client_id`): another requestor's card answers exactly
like an unknown reference (../selectors.py, re-exported here for the operations). Every change
locks its row (../lock_objects.py) and checks after the lock.
"""

from ..selectors import (
    account_of,
    card_by_number,
    card_expired,
    card_number,
    card_of,
    card_of_number,
    customer_of,
    product_named,
)
from .applying import PAN_ATTEMPTS, Address, account_create, card_apply
from .customers import (
    CUSTOMER_UPDATABLE,
    account_link,
    account_set_status,
    customer_update,
    secure_register,
)
from .lifecycle import (
    REPLACE_RANDOM,
    REPLACE_SAME,
    REPLACE_SPECIFIC,
    card_activate,
    card_cancel,
    card_change_status,
    card_replace,
    card_set_status,
)
from .limits import LIMIT_FIELDS, limits_set, under_card_lock
from .products import product_create, product_operations_create, require_letter
from .security import (
    PinOutcome,
    card_cvv2,
    card_cvv2_verify,
    card_dcvv,
    expiry_matches,
    pin_change,
    pin_reset,
    pin_verify,
    security_code_matches,
)

__all__ = [
    "CUSTOMER_UPDATABLE",
    "LIMIT_FIELDS",
    "PAN_ATTEMPTS",
    "REPLACE_RANDOM",
    "REPLACE_SAME",
    "REPLACE_SPECIFIC",
    "Address",
    "PinOutcome",
    "account_create",
    "account_link",
    "account_of",
    "account_set_status",
    "card_activate",
    "card_apply",
    "card_by_number",
    "card_cancel",
    "card_change_status",
    "card_cvv2",
    "card_cvv2_verify",
    "card_dcvv",
    "card_expired",
    "card_number",
    "card_of",
    "card_of_number",
    "card_replace",
    "card_set_status",
    "customer_of",
    "customer_update",
    "expiry_matches",
    "limits_set",
    "pin_change",
    "pin_reset",
    "pin_verify",
    "product_create",
    "product_named",
    "product_operations_create",
    "require_letter",
    "secure_register",
    "security_code_matches",
    "under_card_lock",
]
