"""Row locks of the issuer's cards, in one place (like payments/services/lock_objects.py).

Every service that changes a card, its account or customer, or moves money re-reads its rows
here, locked, inside its own transaction, and checks what it needs after the lock. A card is
locked before anything else of it (its transactions, then its ledger rows through
issuer/ledger/lock_objects.py); several cards in primary-key order, so two requests never wait
for each other in a circle. A card's lock takes only the card's own row (`of=("self",)`): its
product and customer are read in the same query, not locked, since every card shares them.
"""

from collections.abc import Sequence

from core.errors import NotFound
from core.prepared import INTEGER, PreparedRead
from core.rows import Insert

from .. import results
from .models import Card, CardAccount, CardTransaction, Customer
from .selectors import cards_of

CARD_RELATED = ("product", "account__ledger", "customer")


# Every money movement starts with this lock: its SQL is compiled once per process.
_CARD_LOCK = PreparedRead(
    lambda pk: (
        Card.objects.select_for_update(of=("self",)).select_related(*CARD_RELATED).filter(pk=pk)
    ),
    pk=INTEGER,
)


def card_lock(*, card: Card) -> Card:
    """The card's row, locked, with its product, account (and ledger account) and customer."""
    return _CARD_LOCK.get(pk=card.pk)


def cards_lock(*, cards: Sequence[Card]) -> list[Card]:
    """Several cards locked in primary-key order; returned in the order given."""
    locked = {c.pk: card_lock(card=c) for c in sorted(cards, key=lambda c: c.pk)}
    return [locked[c.pk] for c in cards]


def card_lock_of(*, client_id: str, reference: str) -> Card:
    """The requestor's card by its reference, locked; 404 like an unknown reference."""
    card = cards_of(client_id=client_id).filter(reference=reference)
    found = card.select_for_update(of=("self",)).first()
    if found is None:
        raise NotFound(results.CARD_NOT_FOUND)
    return found


def account_lock(*, account: CardAccount) -> CardAccount:
    """The card account's row, locked (its ledger account is locked by the ledger's module)."""
    return (
        CardAccount.objects.select_for_update(of=("self",))
        .select_related("product", "customer", "ledger")
        .get(pk=account.pk)
    )


def customer_lock(*, customer: Customer) -> Customer:
    return Customer.objects.select_for_update().get(pk=customer.pk)


def transaction_lock(*, row: CardTransaction) -> CardTransaction:
    """An issuer transaction's row, locked after its card's (a refund or reversal of it)."""
    return CardTransaction.objects.select_for_update().get(pk=row.pk)


# Every issuer request's row (its answer kept for replays; money/movement.record), as plain SQL
# (core/rows.py).
TRANSACTION_RECORD: Insert[CardTransaction] = Insert(
    CardTransaction,
    'INSERT INTO "issuer_cardtransaction" ("reference", "client_id", "requestor_reference", '
    '"request_hash", "answer", "type", "status", "result_code", "card_id", "account_id", '
    '"amount", "currency", "channel", "region", "merchant_name", "mcc", "description", '
    '"journal_id", "hold_id", "original_id", "reversed", "counts_for_limits", "created_at") '
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
    '%s, %s, %s) RETURNING "id"',
)
