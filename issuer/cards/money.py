"""Money on cards: the Transaction group's services over the ledger.

| use case | function |
|---|---|
| answer a repeated requestorReference | `idempotent` |
| credit / debit a card's account | `load`, `withdraw`, `purchase`, `service_charge`, `adjust` |
| between two cards | `transfer` |
| undo, give back | `reversal`, `refund` |
| set aside, release | `block`, `unblock` |
| check a card can pay | `verification` |
| what the card has and did | `balances`, `history`, `authorizations` |

Every movement runs in one transaction that first locks the card's row, then checks (status,
expiry, security code, limits, funds) and posts: the limits count what is already approved
under the same lock that moves the money, so two purchases cannot both fit the last of a
limit or of a balance. A decline is an outcome: it is stored (AuthorizationHistory shows it)
with its answer, like an approval. The issuer's side of every journal is one of its own
accounts per purpose and currency (`issuer_account`).
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from core import results as core_results
from core.errors import ApplicationError, NotFound

from .. import results
from ..ledger import services as ledger
from ..ledger.models import AccountKind, LedgerAccount
from . import services
from .models import (
    AccountStatus,
    Card,
    CardLimit,
    CardStatus,
    CardTransaction,
    Region,
    TransactionStatus,
    TransactionType,
)

Answer = tuple[core_results.Result, dict[str, Any], str | None]

FUNDING, SETTLEMENT, CASH, FEES, ADJUSTMENTS = "funding", "settlement", "cash", "fees", "adjust"


def issuer_account(purpose: str, currency: str) -> LedgerAccount:
    """The issuer's own account for a purpose and currency (made at first use)."""
    account, _ = LedgerAccount.objects.get_or_create(
        code=f"issuer:{purpose}:{currency}",
        defaults={
            "name": f"issuer {purpose} {currency}",
            "kind": AccountKind.ISSUER,
            "currency": currency,
            "allow_negative": True,
        },
    )
    return account


# --- idempotency --------------------------------------------------------------------------------


def request_hash(fields: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {k: str(v) for k, v in fields.items()}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _stored(row: CardTransaction, digest: str) -> Answer:
    if row.request_hash != digest:
        raise ApplicationError(
            results.DUPLICATE_REFERENCE,
            data={"transactionId": row.reference, "requestorReference": row.requestor_reference},
        )
    answer = row.answer
    return core_results.lookup(answer["code"]), answer["fields"], answer.get("id")


def _replay(client_id: str, reference: str, digest: str) -> Answer | None:
    row = CardTransaction.objects.filter(client_id=client_id, requestor_reference=reference).first()
    return None if row is None else _stored(row, digest)


def idempotent(
    *, client_id: str, requestor_reference: str, digest: str, run: Callable[[], Answer]
) -> Answer:
    """The same reference and body answer the stored answer; another body is refused; a new
    reference runs `run` (in one transaction, which writes the CardTransaction)."""
    stored = _replay(client_id, requestor_reference, digest)
    if stored is not None:
        return stored
    try:
        with transaction.atomic():
            return run()
    except IntegrityError:
        stored = _replay(client_id, requestor_reference, digest)
        if stored is None:  # another constraint: let it surface
            raise
        return stored


def once(request: "Request", run: Callable[[], Answer]) -> Answer:
    """`idempotent` for a money request: its requestor, reference and body's hash."""
    return idempotent(
        client_id=request.client_id,
        requestor_reference=request.requestor_reference,
        digest=request.digest,
        run=run,
    )


# --- requests -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """What every money operation gets: the requestor, its reference and the body's hash."""

    client_id: str
    requestor_reference: str
    digest: str
    description: str = ""


@dataclass(frozen=True)
class Where:
    """Where a card pays: the merchant, its country and the channel (limits and history)."""

    channel: str = ""
    country: str = ""
    merchant_name: str = ""
    mcc: str = ""

    @property
    def region(self) -> str:
        if not self.country or self.country == settings.ISSUER_COUNTRY:
            return Region.DOMESTIC
        return Region.OVERSEAS


def _lock_card(card: Card) -> Card:
    return (
        Card.objects.select_for_update(of=("self",))
        .select_related("product", "account__ledger", "customer")
        .get(pk=card.pk)
    )


def _lock_cards(*cards: Card) -> list[Card]:
    locked = {c.pk: _lock_card(c) for c in sorted(cards, key=lambda c: c.pk)}
    return [locked[c.pk] for c in cards]


def balances(card: Card) -> dict[str, str]:
    ledger_account = LedgerAccount.objects.get(pk=card.account.ledger_id)
    held = ledger.held(ledger_account)
    return {
        "ledgerBalance": f"{ledger_account.balance:.2f}",
        "availableBalance": f"{ledger_account.balance - held:.2f}",
        "heldAmount": f"{held:.2f}",
        "currency": ledger_account.currency,
    }


def _fields(row: CardTransaction) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "transactionId": row.reference,
        "requestorReference": row.requestor_reference,
        "type": row.type,
        "status": row.status,
        "amount": f"{row.amount:.2f}",
        "currency": row.currency,
    }
    fields["cardReference"] = row.card.reference
    if row.original is not None:
        fields["originalTransactionId"] = row.original.reference
    if row.hold is not None:
        fields["expiresAt"] = timezone.localtime(row.hold.expires_at).isoformat()
    fields.update(balances(row.card))
    return fields


def _record(
    request: Request,
    *,
    type: str,
    card: Card,
    amount: Decimal,
    currency: str,
    result: core_results.Result,
    where: Where = Where(),
    journal: Any = None,
    hold: Any = None,
    original: CardTransaction | None = None,
    counts: bool = False,
) -> Answer:
    approved = result.is_success
    row = CardTransaction(
        client_id=request.client_id,
        requestor_reference=request.requestor_reference,
        request_hash=request.digest,
        type=type,
        status=TransactionStatus.APPROVED if approved else TransactionStatus.DECLINED,
        result_code=result.code,
        card=card,
        account=card.account,
        amount=amount,
        currency=currency,
        channel=where.channel,
        region=where.region if where.channel else "",
        merchant_name=where.merchant_name,
        mcc=where.mcc,
        description=request.description,
        journal=journal,
        hold=hold,
        original=original,
        counts_for_limits=counts and approved,
    )
    fields = _fields(row)
    row.answer = {"code": result.code, "fields": fields, "id": row.reference}
    row.save(force_insert=True)
    return result, fields, row.reference


# --- checks -------------------------------------------------------------------------------------


def _currency(card: Card, currency: str) -> None:
    if currency != card.account.currency:
        raise ApplicationError(
            results.CURRENCY_NOT_ACCOUNTS,
            f"the card's account is in {card.account.currency}, not {currency}",
        )


def card_problem(card: Card, *, security_code: str = "", expiry: tuple[int, int] | None = None):
    """Why a locked card cannot pay (a decline), or None."""
    if card.status == CardStatus.LOST:
        return results.CARD_LOST
    if card.status == CardStatus.STOLEN:
        return results.CARD_STOLEN
    if card.status == CardStatus.EXPIRED or services.card_expired(card):
        return results.CARD_EXPIRED
    if card.status != CardStatus.ACTIVE:
        return results.CARD_NOT_ACTIVE
    if card.account.status != AccountStatus.ACTIVE:
        return results.ACCOUNT_NOT_ACTIVE
    if expiry is not None and not services.expiry_matches(card, *expiry):
        return results.CARD_EXPIRED
    if security_code and not services.security_code_matches(card, security_code):
        return results.SECURITY_CODE_MISMATCH
    return None


def _credit_problem(card: Card, amount: Decimal) -> core_results.Result | None:
    """Why money cannot be paid in: a closed or suspended account, a card that ended, or more
    than the product's maximum balance."""
    if card.status in (CardStatus.CANCELLED, CardStatus.REPLACED):
        return results.CARD_NOT_ACTIVE
    if card.account.status != AccountStatus.ACTIVE:
        return results.ACCOUNT_NOT_ACTIVE
    maximum = card.product.max_balance
    if maximum is not None and card.account.ledger.balance + amount > maximum:
        return results.MAX_BALANCE_EXCEEDED
    return None


def _day_and_month_start(now: datetime) -> tuple[datetime, datetime]:
    local = timezone.localtime(now)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return day, day.replace(day=1)


def limit_problem(
    card: Card, where: Where, amount: Decimal, now: datetime | None = None
) -> core_results.Result | None:
    """The card's limits for the region and channel against what is already approved (to be
    called under the card's lock)."""
    if not where.channel:
        return None
    limit = CardLimit.objects.filter(card=card, region=where.region, channel=where.channel).first()
    if limit is None:
        return None
    if limit.per_transaction is not None and amount > limit.per_transaction:
        return results.LIMIT_EXCEEDED
    day, month = _day_and_month_start(now or timezone.now())
    counted = CardTransaction.objects.filter(
        card=card,
        counts_for_limits=True,
        reversed=False,
        region=where.region,
        channel=where.channel,
        created_at__gte=month,
    ).aggregate(
        month_amount=Sum("amount"),
        month_count=Count("pk"),
        day_amount=Sum("amount", filter=Q(created_at__gte=day)),
        day_count=Count("pk", filter=Q(created_at__gte=day)),
    )
    for period in ("day", "month"):
        spent = counted[f"{period}_amount"] or Decimal(0)
        count = counted[f"{period}_count"]
        prefix = "daily" if period == "day" else "monthly"
        max_amount = getattr(limit, f"{prefix}_amount")
        max_count = getattr(limit, f"{prefix}_count")
        if max_count is not None and count + 1 > max_count:
            return results.COUNT_LIMIT_EXCEEDED
        if max_amount is not None and spent + amount > max_amount:
            return results.LIMIT_EXCEEDED
    return None


def _funds_problem(card: Card, amount: Decimal) -> core_results.Result | None:
    account = ledger.lock_accounts([card.account.ledger])[card.account.ledger_id]
    if ledger.available(account) < amount:
        return results.INSUFFICIENT_FUNDS
    return None


def _post(kind: str, card: Card, amount: Decimal, counter: LedgerAccount, description: str = ""):
    """Debit (amount < 0) or credit (amount > 0) the card's account against `counter`."""
    return ledger.post(
        kind=kind,
        lines=[(card.account.ledger, amount), (counter, -amount)],
        description=description,
    )


# --- operations ---------------------------------------------------------------------------------


def _debit(
    request: Request,
    *,
    type: str,
    card: Card,
    amount: Decimal,
    currency: str,
    purpose: str,
    where: Where = Where(),
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    cardholder: bool = True,
) -> Answer:
    """Money out of a card's account to the issuer's `purpose` account."""

    def run() -> Answer:
        locked = _lock_card(card)
        _currency(locked, currency)
        problem = (
            card_problem(locked, security_code=security_code, expiry=expiry)
            if cardholder
            else (
                results.ACCOUNT_NOT_ACTIVE
                if locked.account.status == AccountStatus.CLOSED
                else None
            )
        )
        counts = type in (TransactionType.PURCHASE, TransactionType.WITHDRAW)
        problem = problem or (limit_problem(locked, where, amount) if counts else None)
        problem = problem or _funds_problem(locked, amount)
        record = partial(
            _record, request, type=type, card=locked, amount=amount, currency=currency, where=where
        )
        if problem is not None:
            return record(result=problem)
        journal = _post(type, locked, -amount, issuer_account(purpose, currency), type)
        return record(result=core_results.TRANSACTION_SUCCEEDED, journal=journal, counts=counts)

    return once(request, run)


def purchase(request: Request, *, card: Card, amount: Decimal, currency: str, **kw: Any) -> Answer:
    return _debit(
        request,
        type=TransactionType.PURCHASE,
        card=card,
        amount=amount,
        currency=currency,
        purpose=SETTLEMENT,
        **kw,
    )


def withdraw(request: Request, *, card: Card, amount: Decimal, currency: str, **kw: Any) -> Answer:
    return _debit(
        request,
        type=TransactionType.WITHDRAW,
        card=card,
        amount=amount,
        currency=currency,
        purpose=CASH,
        **kw,
    )


def service_charge(request: Request, *, card: Card, amount: Decimal, currency: str) -> Answer:
    return _debit(
        request,
        type=TransactionType.SERVICE_CHARGE,
        card=card,
        amount=amount,
        currency=currency,
        purpose=FEES,
        cardholder=False,
    )


def _credit(
    request: Request,
    *,
    type: str,
    card: Card,
    amount: Decimal,
    currency: str,
    purpose: str,
    original: CardTransaction | None = None,
    check: Callable[[Card], core_results.Result | None] | None = None,
) -> Answer:
    def run() -> Answer:
        locked = _lock_card(card)
        _currency(locked, currency)
        problem = (check(locked) if check else None) or _credit_problem(locked, amount)
        record = partial(
            _record,
            request,
            type=type,
            card=locked,
            amount=amount,
            currency=currency,
            original=original,
        )
        if problem is not None:
            return record(result=problem)
        journal = _post(type, locked, amount, issuer_account(purpose, currency), type)
        return record(result=core_results.TRANSACTION_SUCCEEDED, journal=journal)

    return once(request, run)


def load(request: Request, *, card: Card, amount: Decimal, currency: str) -> Answer:
    return _credit(
        request,
        type=TransactionType.LOAD,
        card=card,
        amount=amount,
        currency=currency,
        purpose=FUNDING,
    )


def adjust(request: Request, *, card: Card, amount: Decimal, currency: str, credit: bool) -> Answer:
    """CreditAdjustment / DebitAdjustment: the issuer corrects a balance (no card checks)."""
    if credit:
        return _credit(
            request,
            type=TransactionType.CREDIT_ADJUSTMENT,
            card=card,
            amount=amount,
            currency=currency,
            purpose=ADJUSTMENTS,
        )
    return _debit(
        request,
        type=TransactionType.DEBIT_ADJUSTMENT,
        card=card,
        amount=amount,
        currency=currency,
        purpose=ADJUSTMENTS,
        cardholder=False,
    )


def original_of(client_id: str, transaction_id: str) -> CardTransaction:
    row = (
        CardTransaction.objects.filter(client_id=client_id, reference=transaction_id)
        .select_related("card", "account")
        .first()
    )
    if row is None:
        raise NotFound(results.TRANSACTION_NOT_FOUND)
    return row


def refund(
    request: Request, *, original: CardTransaction, amount: Decimal, currency: str
) -> Answer:
    """Give back (part of) an approved, unreversed Purchase: at most what is left of it."""

    def check(card: Card) -> core_results.Result | None:
        locked = CardTransaction.objects.select_for_update().get(pk=original.pk)
        refunded = CardTransaction.objects.filter(
            original=locked, type=TransactionType.REFUND, status=TransactionStatus.APPROVED
        ).aggregate(total=Sum("amount"))["total"] or Decimal(0)
        if (
            locked.type != TransactionType.PURCHASE
            or locked.status != TransactionStatus.APPROVED
            or locked.reversed
            or refunded + amount > locked.amount
        ):
            raise ApplicationError(results.CANNOT_REFUND)
        return None

    if currency != original.currency:
        raise ApplicationError(results.CURRENCY_NOT_ACCOUNTS, "the currency must be the purchase's")
    return _credit(
        request,
        type=TransactionType.REFUND,
        card=original.card,
        amount=amount,
        currency=currency,
        purpose=SETTLEMENT,
        original=original,
        check=check,
    )


REVERSIBLE = {TransactionType.PURCHASE, TransactionType.WITHDRAW, TransactionType.LOAD}


def reversal(request: Request, *, original: CardTransaction) -> Answer:
    """Undo an approved Purchase, Withdraw or LoadFund, once: the opposite journal. A load
    that has been spent cannot be reversed (the prepaid balance never goes below zero)."""

    def run() -> Answer:
        card = _lock_card(original.card)
        locked = CardTransaction.objects.select_for_update().get(pk=original.pk)
        if (
            locked.type not in REVERSIBLE
            or locked.status != TransactionStatus.APPROVED
            or locked.reversed
            or locked.followers.filter(
                type=TransactionType.REFUND, status=TransactionStatus.APPROVED
            ).exists()
        ):
            raise ApplicationError(results.CANNOT_REVERSE)
        debit = locked.type == TransactionType.LOAD
        record = partial(
            _record,
            request,
            type=TransactionType.REVERSAL,
            card=card,
            amount=locked.amount,
            currency=locked.currency,
            original=locked,
        )
        if debit and _funds_problem(card, locked.amount):
            return record(result=results.INSUFFICIENT_FUNDS)
        purpose = {"PURCHASE": SETTLEMENT, "WITHDRAW": CASH, "LOAD": FUNDING}[locked.type]
        amount = -locked.amount if debit else locked.amount
        journal = _post("REVERSAL", card, amount, issuer_account(purpose, locked.currency))
        locked.reversed = True
        locked.save(update_fields=["reversed"])
        return record(result=core_results.TRANSACTION_SUCCEEDED, journal=journal)

    return once(request, run)


def transfer(
    request: Request, *, source: Card, target: Card, amount: Decimal, currency: str
) -> Answer:
    """From one prepaid card of the requestor to another, in one journal."""

    def run() -> Answer:
        locked_source, locked_target = _lock_cards(source, target)
        _currency(locked_source, currency)
        _currency(locked_target, currency)
        problem = (
            card_problem(locked_source)
            or _credit_problem(locked_target, amount)
            or _funds_problem(locked_source, amount)
        )
        record = partial(
            _record,
            request,
            type=TransactionType.TRANSFER,
            card=locked_source,
            amount=amount,
            currency=currency,
        )
        if problem is not None:
            return record(result=problem)
        journal = ledger.post(
            kind="TRANSFER",
            lines=[
                (locked_source.account.ledger, -amount),
                (locked_target.account.ledger, amount),
            ],
        )
        answer = record(result=core_results.TRANSACTION_SUCCEEDED, journal=journal)
        CardTransaction.objects.create(
            client_id=request.client_id,
            requestor_reference=None,
            request_hash=request.digest,
            type=TransactionType.TRANSFER_IN,
            status=TransactionStatus.APPROVED,
            result_code=core_results.TRANSACTION_SUCCEEDED.code,
            card=locked_target,
            account=locked_target.account,
            amount=amount,
            currency=currency,
            journal=journal,
            original=CardTransaction.objects.get(reference=answer[2]),
            answer={},
        )
        return answer

    return once(request, run)


def block(
    request: Request,
    *,
    card: Card,
    amount: Decimal,
    currency: str,
    where: Where = Where(),
    expires_at: datetime | None = None,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    counts: bool = False,
) -> Answer:
    """BlockFund: a hold on the card's account (an authorization): the available balance
    drops, the ledger balance does not; it stops counting when released or expired. `counts`:
    an authorization that the card's limits count (the acquirer's PA; its captures do not
    count again)."""

    def run() -> Answer:
        locked = _lock_card(card)
        _currency(locked, currency)
        problem = card_problem(locked, security_code=security_code, expiry=expiry)
        problem = problem or (limit_problem(locked, where, amount) if counts else None)
        problem = problem or _funds_problem(locked, amount)
        record = partial(
            _record,
            request,
            type=TransactionType.BLOCK,
            card=locked,
            amount=amount,
            currency=currency,
            where=where,
        )
        if problem is not None:
            return record(result=problem)
        hold = ledger.hold_place(
            account=locked.account.ledger,
            amount=amount,
            reason=request.requestor_reference,
            expires_at=expires_at,
        )
        return record(result=core_results.TRANSACTION_SUCCEEDED, hold=hold, counts=counts)

    return once(request, run)


def capture(request: Request, *, original: CardTransaction, amount: Decimal) -> Answer:
    """Post (part of) a BlockFund's hold: the hold shrinks by `amount` (released when nothing
    is left) and the money moves to the issuer's settlement account, in one transaction. Not
    more than is still held; not from a hold that was released or has expired."""

    def run() -> Answer:
        card = _lock_card(original.card)
        hold = original.hold
        if original.type != TransactionType.BLOCK or hold is None:
            raise ApplicationError(results.TRANSACTION_NOT_FOUND, "not a BlockFund transaction")
        hold = ledger.hold_lock(hold)
        if hold.released_at is not None or hold.expires_at <= timezone.now():
            raise ApplicationError(results.HOLD_NOT_OPEN)
        if amount > hold.amount:
            raise ApplicationError(results.HOLD_NOT_OPEN, f"only {hold.amount:.2f} is held")
        ledger.hold_reduce(hold=hold, amount=amount)
        journal = _post(
            TransactionType.PURCHASE, card, -amount, issuer_account(SETTLEMENT, original.currency)
        )
        return _record(
            request,
            result=core_results.TRANSACTION_SUCCEEDED,
            type=TransactionType.PURCHASE,
            card=card,
            amount=amount,
            currency=original.currency,
            where=Where(
                channel=original.channel,
                country="",
                merchant_name=original.merchant_name,
                mcc=original.mcc,
            ),
            journal=journal,
            original=original,
        )

    return once(request, run)


def credit(request: Request, *, card: Card, amount: Decimal, currency: str) -> Answer:
    """A merchant's credit to the card (the acquirer's CD): money in from settlement."""
    return _credit(
        request,
        type=TransactionType.REFUND,
        card=card,
        amount=amount,
        currency=currency,
        purpose=SETTLEMENT,
    )


def unblock(request: Request, *, original: CardTransaction) -> Answer:
    """UnblockFund: release a BlockFund's hold (all of it), once, while it still counts."""

    def run() -> Answer:
        card = _lock_card(original.card)
        if original.type != TransactionType.BLOCK or original.hold_id is None:
            raise ApplicationError(results.TRANSACTION_NOT_FOUND, "not a BlockFund transaction")
        hold = original.hold
        if hold is None:
            raise ApplicationError(results.TRANSACTION_NOT_FOUND, "not a BlockFund transaction")
        if hold.released_at is not None or hold.expires_at <= timezone.now():
            raise ApplicationError(results.HOLD_NOT_OPEN)
        ledger.hold_release(hold=hold)
        return _record(
            request,
            result=core_results.TRANSACTION_SUCCEEDED,
            type=TransactionType.UNBLOCK,
            card=card,
            amount=hold.amount,
            currency=original.currency,
            original=original,
        )

    return once(request, run)


def verification(
    request: Request,
    *,
    card: Card,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    where: Where = Where(),
) -> Answer:
    """Verification: can the card pay (status, expiry, security code), without moving money."""

    def run() -> Answer:
        locked = _lock_card(card)
        problem = card_problem(locked, security_code=security_code, expiry=expiry)
        return _record(
            request,
            result=problem or core_results.TRANSACTION_SUCCEEDED,
            type=TransactionType.VERIFICATION,
            card=locked,
            amount=Decimal(0),
            currency=locked.account.currency,
            where=where,
        )

    return once(request, run)


# --- history ------------------------------------------------------------------------------------

AUTHORIZATION_TYPES = (
    TransactionType.PURCHASE,
    TransactionType.WITHDRAW,
    TransactionType.BLOCK,
    TransactionType.VERIFICATION,
    TransactionType.TRANSFER,
)


def history(
    card: Card,
    *,
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
    card: Card, *, since: datetime | None = None, until: datetime | None = None, type: str = ""
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


def day_bounds(first: Any, last: Any) -> tuple[datetime | None, datetime | None]:
    """Local-day bounds of an inclusive date range (None: open)."""

    def start(day: Any) -> datetime:
        return timezone.make_aware(datetime(day.year, day.month, day.day))

    return (
        start(first) if first else None,
        start(last) + timedelta(days=1) if last else None,
    )
