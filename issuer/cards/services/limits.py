"""A card's limits (LimitSetting, and the staff's edits): per region and channel, an amount per
transaction and a daily and monthly amount and count. They change under the card's row lock,
the same lock under which the money they count moves (money/checks.py `limit_problem`), so a
purchase is checked against either the old limits or the new ones, never half of each."""

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import transaction

from ..lock_objects import card_lock
from ..models import Card, CardLimit

T = TypeVar("T")

LIMIT_FIELDS = ("per_transaction", "daily_amount", "daily_count", "monthly_amount", "monthly_count")


def limits_set(*, card: Card, rows: list[dict[str, Any]]) -> list[CardLimit]:
    """LimitSetting: each row (region, channel and any of LIMIT_FIELDS; None clears a limit)
    replaces that region's and channel's limits. Under the card's lock, like the money that
    the limits count."""
    with transaction.atomic():
        card_lock(card=card)
        for row in rows:
            CardLimit.objects.update_or_create(
                card=card,
                region=row["region"],
                channel=row["channel"],
                defaults={name: row.get(name) for name in LIMIT_FIELDS},
            )
    return list(card.limits.all())


def under_card_lock(*, card: Card, change: Callable[[], T]) -> T:
    """Run `change` in a transaction holding the card's row lock (staff's limit edits)."""
    with transaction.atomic():
        card_lock(card=card)
        return change()
