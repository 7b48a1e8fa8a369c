"""Why a locked card cannot take part in a money movement: each check answers a decline (a
result that is stored and answered like an approval) or None; a request the card can never
serve (another currency) is refused instead.

All of them run under the card's row lock (lock_objects.card_lock), so what they count (the
limits' approved transactions, the funds) cannot change before the movement is written.
"""

from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from core import results as core_results
from core.errors import ApplicationError
from core.prepared import INTEGER, TEXT, PreparedRead

from ... import results
from ...ledger.lock_objects import account_lock_with_held
from ..models import AccountStatus, Card, CardLimit, CardStatus, CardTransaction
from ..selectors import card_expired
from ..services.security import expiry_matches, security_code_matches
from .requests import Where

Decline = core_results.Result | None


def currency_check(*, card: Card, currency: str) -> None:
    """Refuse (700.400.420) a currency that is not the card's account's."""
    if currency != card.account.currency:
        raise ApplicationError(
            results.CURRENCY_NOT_ACCOUNTS,
            f"the card's account is in {card.account.currency}, not {currency}",
        )


def card_problem(
    *, card: Card, security_code: str = "", expiry: tuple[int, int] | None = None
) -> Decline:
    """Why a locked card cannot pay (a decline), or None."""
    if card.status == CardStatus.LOST:
        return results.CARD_LOST
    if card.status == CardStatus.STOLEN:
        return results.CARD_STOLEN
    if card.status == CardStatus.EXPIRED or card_expired(card=card):
        return results.CARD_EXPIRED
    if card.status != CardStatus.ACTIVE:
        return results.CARD_NOT_ACTIVE
    if card.account.status != AccountStatus.ACTIVE:
        return results.ACCOUNT_NOT_ACTIVE
    if expiry is not None and not expiry_matches(card=card, month=expiry[0], year=expiry[1]):
        return results.CARD_EXPIRED
    if security_code and not security_code_matches(card=card, candidate=security_code):
        return results.SECURITY_CODE_MISMATCH
    return None


def credit_problem(*, card: Card, amount: Decimal) -> Decline:
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


# Read on every payment under the card's lock: (card, region, channel) is unique, its SQL compiled
# once per process (core.prepared).
_LIMIT = PreparedRead(
    lambda card, region, channel: CardLimit.objects.filter(
        card_id=card, region=region, channel=channel
    ),
    card=INTEGER,
    region=TEXT,
    channel=TEXT,
)


def limit_problem(
    *, card: Card, where: Where, amount: Decimal, now: datetime | None = None
) -> Decline:
    """The card's limits for the region and channel against what is already approved (to be
    called under the card's lock)."""
    if not where.channel:
        return None
    limit = _LIMIT.one(card=card.pk, region=where.region, channel=where.channel)
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


def funds_problem(*, card: Card, amount: Decimal) -> Decline:
    """Not enough available (the ledger balance less what is held), with the card's ledger
    account locked from here to the posting: one statement reads the row, locks it and sums
    its holds (`account_lock_with_held`); the locked account replaces the card's, so the
    posting and the answer use what was read under the lock."""
    account = account_lock_with_held(account=card.account.ledger)
    card.account.ledger = account
    if account.balance - account.held_total < amount:  # type: ignore[attr-defined]
        return results.INSUFFICIENT_FUNDS
    return None
