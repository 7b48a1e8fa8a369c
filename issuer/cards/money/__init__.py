"""Money on cards: the Transaction group's services over the ledger, one module per group of use
cases; keyword-only arguments throughout.

| module | use cases | functions |
|---|---|---|
| loads.py | LoadFund, Withdraw | `load`, `withdraw` |
| purchases.py | Purchase, the acquirer's credit (CD) | `purchase`, `credit` |
| purchases.py | Refund, Reversal, Verification | `refund`, `reversal`, `verification` |
| holds.py | BlockFund, its captures, UnblockFund | `block`, `capture`, `unblock` |
| transfers.py | TransferFund, ServiceCharge | `transfer`, `service_charge` |
| transfers.py | Credit/DebitAdjustment | `adjust` |
| requests.py | a repeated requestorReference | `idempotent`, `once`, `request_hash` |
| ../selectors.py | what the card has and did | `balances`, `history`, `authorizations` |

Every movement has one shape (movement.py, `move`): in one transaction, lock the card's row
(../lock_objects.py), check (status, expiry, security code, limits, funds: checks.py), then
record a decline or post and record the approval. The limits count what is already approved
under the same lock that moves the money, so two purchases cannot both fit the last of a limit
or of a balance. A decline is an outcome: it is stored (AuthorizationHistory shows it) with its
answer, like an approval. The issuer's side of every journal is one of its own accounts per
purpose and currency (`issuer_account`).
"""

from ..selectors import (
    AUTHORIZATION_TYPES,
    authorizations,
    balances,
    day_bounds,
    history,
    original_of,
)
from .checks import card_problem, limit_problem
from .holds import block, capture, unblock
from .loads import load, withdraw
from .movement import issuer_account
from .purchases import REVERSIBLE, credit, purchase, refund, reversal, verification
from .requests import NOWHERE, Answer, Request, Where, idempotent, once, request_hash
from .transfers import adjust, service_charge, transfer

__all__ = [
    "AUTHORIZATION_TYPES",
    "NOWHERE",
    "REVERSIBLE",
    "Answer",
    "Request",
    "Where",
    "adjust",
    "authorizations",
    "balances",
    "block",
    "capture",
    "card_problem",
    "credit",
    "day_bounds",
    "history",
    "idempotent",
    "issuer_account",
    "limit_problem",
    "load",
    "once",
    "original_of",
    "purchase",
    "refund",
    "request_hash",
    "reversal",
    "service_charge",
    "transfer",
    "unblock",
    "verification",
    "withdraw",
]
