"""Core's row locks, in one place: every `select_for_update()` of core is here (the rule of
tests/core/test_structure.py: row locks only in an app's lock module), inside the caller's
transaction.

The outbox locks a message while an attempt is claimed and recorded, and when staff ask for
another delivery; the vault's rotation locks a batch of rows whose ciphertext is stale. Rows
another transaction holds are skipped where a later pass takes them (`skip_locked`).
"""

from datetime import datetime
from typing import TypeVar

from django.db.models import Model, QuerySet

from .models import OutboxMessage, OutboxStatus

Row = TypeVar("Row", bound=Model)


def outbox_due_lock(*, event_id: str, now: datetime) -> OutboxMessage | None:
    """The message, locked, if it is PENDING and due at `now`; None when another worker holds
    it, it is done, or its time has not come."""
    return (
        OutboxMessage.objects.select_for_update(skip_locked=True)
        .filter(pk=event_id, status=OutboxStatus.PENDING, next_attempt_at__lte=now)
        .first()
    )


def outbox_message_lock(event_id: str) -> OutboxMessage:
    """The message, locked (waits for whoever holds it)."""
    return OutboxMessage.objects.select_for_update().get(pk=event_id)


def stale_rows_lock(stale: QuerySet[Row], *, batch: int) -> list[Row]:
    """Up to `batch` rows of `stale` (rows of a registered encrypted column whose ciphertext is
    not under the active key), locked; rows a payment is writing are left to a later batch."""
    return list(stale.select_for_update(skip_locked=True)[:batch])
