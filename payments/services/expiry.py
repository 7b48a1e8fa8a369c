"""validityPeriod: PAs that were not captured in time are closed."""

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from .lock_objects import expired_lock


def payment_close_expired(*, now: Callable[[], Any] = timezone.now, batch: int = 500) -> int:
    """Close successful PAs whose validityPeriod has elapsed (beat runs this every minute).

    Each PA is locked and re-checked, so a capture in flight either commits first (and the PA
    is closed with what it captured) or sees it closed (700.400.104). Returns how many closed.
    """
    closed = 0
    while True:
        with transaction.atomic():
            due = expired_lock(now=now, batch=batch)
            for payment in due:
                payment.closed_at = now()
                payment.save(update_fields=["closed_at"])
        closed += len(due)
        if len(due) < batch:
            return closed
