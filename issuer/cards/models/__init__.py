"""Card products, BIN ranges, customers, accounts, cards, limits and the issuer's transaction
log (imported by issuer.models).

- `CardProduct` holds the catalogue's letter for every operation as data (`ProductOperation`):
  M runs, O runs unless the product switches it off, C runs only when the product's
  configuration switches it on, NA never runs (docs/decisions.md, "Issuer catalogue").
- A `Card` is issued in one of its product's `BinRange`s; its number is in the vault
  (`pan_ciphertext`), found by its keyed fingerprint, shown only masked. CVV2 and dCVV are
  computed (issuer.cards.secrets), never stored; the PIN only as a salted slow hash.
- A prepaid card pays from its own e-money account, a debit card from the bank account linked by
  AccountLinkage; both are `CardAccount`s over a ledger account (issuer.ledger).
- `CardTransaction` is the issuer's log of every money operation and authorization: it keeps
  the requestor's reference with the request's hash and the stored answer (idempotency), the
  journal or hold it made, and what the limits count.

One module per subject (products, customers with their accounts, cards with their history,
limits and token events, transactions) and the references the rows take by default
(`references`); the migrations name those as this package's, which re-exports them.
"""

from ...ledger.models import Hold, Journal, LedgerAccount
from .cards import (
    CARD_LIFECYCLE,
    Card,
    CardForm,
    CardLimit,
    CardStatus,
    CardStatusChange,
    Channel,
    Region,
    SecureChannel,
    TokenEvent,
)
from .customers import (
    ACCOUNT_LIFECYCLE,
    AccountStatus,
    CardAccount,
    Customer,
    KycStatus,
)
from .products import BinRange, CardProduct, Letter, ProductKind, ProductOperation
from .references import (
    account_reference,
    card_reference,
    customer_reference,
    reference,
    transaction_reference,
)
from .transactions import (
    CardTransaction,
    TransactionStatus,
    TransactionType,
)

__all__ = [
    "ACCOUNT_LIFECYCLE",
    "CARD_LIFECYCLE",
    "AccountStatus",
    "BinRange",
    "Card",
    "CardAccount",
    "CardForm",
    "CardLimit",
    "CardProduct",
    "CardStatus",
    "CardStatusChange",
    "CardTransaction",
    "Channel",
    "Customer",
    "Hold",
    "Journal",
    "KycStatus",
    "LedgerAccount",
    "Letter",
    "ProductKind",
    "ProductOperation",
    "Region",
    "SecureChannel",
    "TokenEvent",
    "TransactionStatus",
    "TransactionType",
    "account_reference",
    "card_reference",
    "customer_reference",
    "reference",
    "transaction_reference",
]
