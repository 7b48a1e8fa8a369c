"""Reads of the issuer's products, cards, accounts, customers and transactions.

Every look-up by reference is scoped to the requestor (`client_id`): another requestor's card,
account, customer or transaction answers exactly like an unknown reference (404 with the
group's result code). Nothing here locks or writes: the locked reads are in lock_objects.py, the
changes in services/ and money/.
"""

from datetime import date, datetime, timedelta
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from core import cards as core_cards
from core.errors import NotFound
from core.prepared import INTEGER, MOMENT, TEXT, PreparedRead

from .. import results
from ..ledger.models import LedgerAccount
from ..ledger.selectors import held_total
from .models import (
    Card,
    CardAccount,
    CardProduct,
    CardTransaction,
    Customer,
    ProductOperation,
    TransactionStatus,
    TransactionType,
)

# --- products, cards, accounts, customers -------------------------------------------------------


def product_named(*, code: str) -> CardProduct:
    """An active product by its code (CardApplication's productCode)."""
    product = CardProduct.objects.filter(code=code, active=True).first()
    if product is None:
        raise NotFound(results.PRODUCT_NOT_FOUND)
    return product


def cards_of(*, client_id: str) -> QuerySet[Card]:
    """The requestor's cards, with what every operation reads of them."""
    return Card.objects.filter(client_id=client_id).select_related(
        "product", "customer", "account__ledger"
    )


def _card_with_letter(client_id: str, reference: str, operation: str) -> QuerySet[Card]:
    row = ProductOperation.objects.filter(product=OuterRef("product"), operation=operation)
    return (
        cards_of(client_id=client_id)
        .filter(reference=reference)
        .annotate(
            operation_letter=Subquery(row.values("letter")[:1]),
            operation_enabled=Subquery(row.values("enabled")[:1]),
        )
    )


# Every operation on a card starts with one of these reads: their SQL is compiled once per
# process (core.prepared). (client_id, reference) is unique.
_CARD = PreparedRead(
    lambda client_id, reference: cards_of(client_id=client_id).filter(reference=reference),
    client_id=TEXT,
    reference=TEXT,
)
_CARD_WITH_LETTER = PreparedRead(_card_with_letter, client_id=TEXT, reference=TEXT, operation=TEXT)


def card_of(*, client_id: str, reference: str, operation: str = "") -> Card:
    """The requestor's card by its reference; 404 like an unknown one. With `operation` (an
    entry's path), the card comes with its product's row for it (`operation_letter`,
    `operation_enabled`, None when the product has none) in the same statement, for
    services.require_letter."""
    if operation:
        card = _CARD_WITH_LETTER.one(client_id=client_id, reference=reference, operation=operation)
    else:
        card = _CARD.one(client_id=client_id, reference=reference)
    if card is None:
        raise NotFound(results.CARD_NOT_FOUND)
    return card


def card_of_number(*, client_id: str, number: str) -> Card:
    """The requestor's own card with this number, by its keyed fingerprint (the number itself is
    never stored in clear nor logged). Another requestor's card, like an unknown number, is
    CARD_NOT_FOUND: nobody learns which numbers the issuer holds for someone else."""
    card = (
        cards_of(client_id=client_id).filter(pan_fingerprint=core_cards.fingerprint(number)).first()
    )
    if card is None:
        raise NotFound(results.CARD_NOT_FOUND)
    return card


def accounts_of(*, client_id: str) -> QuerySet[CardAccount]:
    return CardAccount.objects.filter(customer__client_id=client_id).select_related(
        "product", "customer", "ledger"
    )


def account_of(*, client_id: str, reference: str) -> CardAccount:
    account = accounts_of(client_id=client_id).filter(reference=reference).first()
    if account is None:
        raise NotFound(results.ACCOUNT_NOT_FOUND)
    return account


def customers_of(*, client_id: str) -> QuerySet[Customer]:
    return Customer.objects.filter(client_id=client_id)


def customer_of(*, client_id: str, reference: str) -> Customer:
    customer = customers_of(client_id=client_id).filter(reference=reference).first()
    if customer is None:
        raise NotFound(results.CUSTOMER_NOT_FOUND)
    return customer


# Asked of every card payment (card_known) and read for every on-us one; the fingerprint is
# unique. Their SQL is compiled once per process (core.prepared).
_BY_FINGERPRINT = PreparedRead(
    lambda fingerprint: Card.objects.filter(pan_fingerprint=fingerprint), fingerprint=TEXT
)
_KNOWN_FINGERPRINT = PreparedRead(
    lambda fingerprint: Card.objects.filter(pan_fingerprint=fingerprint).only("pk"),
    fingerprint=TEXT,
)


def card_by_number(*, number: str) -> Card | None:
    """The issuer's card with this number (any requestor's), by fingerprint (issue 15)."""
    return _BY_FINGERPRINT.one(fingerprint=core_cards.fingerprint(number))


def card_known(*, fingerprint: str) -> bool:
    """Whether a card number's keyed fingerprint is one of the issuer's cards."""
    return bool(fingerprint) and _KNOWN_FINGERPRINT.one(fingerprint=fingerprint) is not None


def card_number(*, card: Card) -> str:
    """The card's number, from the vault (never logged, never in an answer)."""
    return core_cards.decrypt_pan(card.pan_ciphertext)


def card_expired(*, card: Card, today: date | None = None) -> bool:
    return core_cards.expired(
        f"{card.expiry_month:02d}", str(card.expiry_year), today or timezone.localdate()
    )


# --- money: balances, transactions, histories ---------------------------------------------------


def balances_read(*, account: LedgerAccount) -> dict[str, str]:
    """The balances of a ledger account read under its lock with its holds' total
    (`account_lock_with_held`), kept current by the posting that followed: no query."""
    on_hold = account.held_total  # type: ignore[attr-defined]
    return {
        "ledgerBalance": f"{account.balance:.2f}",
        "availableBalance": f"{account.balance - on_hold:.2f}",
        "heldAmount": f"{on_hold:.2f}",
        "currency": account.currency,
    }


_LEDGER_WITH_HELD = PreparedRead(
    lambda pk, now: LedgerAccount.objects.annotate(held_total=held_total(now=now)).filter(pk=pk),
    pk=INTEGER,
    now=MOMENT,
)


def balances(*, card: Card) -> dict[str, str]:
    """The card's account: ledger and available balance, what is held, the currency (as the
    Transaction group answers them)."""
    # The account and its holds' total in one statement (as the funds check reads them).
    account = _LEDGER_WITH_HELD.get(pk=card.account.ledger_id, now=timezone.now())
    return balances_read(account=account)


def original_of(*, client_id: str, transaction_id: str) -> CardTransaction:
    """The requestor's transaction that a Refund, Reversal, UnblockFund or capture names."""
    row = (
        CardTransaction.objects.filter(client_id=client_id, reference=transaction_id)
        .select_related("card", "account")
        .first()
    )
    if row is None:
        raise NotFound(results.TRANSACTION_NOT_FOUND)
    return row


# What AuthorizationHistory lists: every request to pay or to credit the card, approved or not.
AUTHORIZATION_TYPES = (
    TransactionType.PURCHASE,
    TransactionType.WITHDRAW,
    TransactionType.BLOCK,
    TransactionType.VERIFICATION,
    TransactionType.TRANSFER,
    TransactionType.CREDIT,
)


def history(
    *,
    card: Card,
    since: datetime | None = None,
    until: datetime | None = None,
    type: str = "",
) -> QuerySet[CardTransaction]:
    """TransactionHistory: what moved the card's account's money (approved, with a journal),
    newest first."""
    rows = CardTransaction.objects.filter(
        account=card.account, status=TransactionStatus.APPROVED, journal__isnull=False
    )
    return _window(rows, since, until, type)


def authorizations(
    *, card: Card, since: datetime | None = None, until: datetime | None = None, type: str = ""
) -> QuerySet[CardTransaction]:
    """AuthorizationHistory: every authorization of the card, approved or declined."""
    rows = CardTransaction.objects.filter(card=card, type__in=AUTHORIZATION_TYPES)
    return _window(rows, since, until, type)


def _window(
    rows: QuerySet[CardTransaction], since: datetime | None, until: datetime | None, type: str
) -> QuerySet[CardTransaction]:
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    if until is not None:
        rows = rows.filter(created_at__lt=until)
    if type:
        rows = rows.filter(type=type)
    return rows.select_related("card", "original").order_by("-created_at", "-pk")


def day_bounds(*, first: Any, last: Any) -> tuple[datetime | None, datetime | None]:
    """Local-day bounds of an inclusive date range (None: open)."""

    def start(day: Any) -> datetime:
        return timezone.make_aware(datetime(day.year, day.month, day.day))

    return (
        start(first) if first else None,
        start(last) + timedelta(days=1) if last else None,
    )
