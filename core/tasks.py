"""Celery tasks of core: the outbox's delivery and sweep (thin wrappers over core.outbox)."""

from celery import shared_task

from . import outbox


@shared_task(name="core.deliver_notification", acks_late=True, ignore_result=True)
def deliver_notification(event_id: str) -> str:
    """One delivery attempt of an outbox message (after its transaction committed)."""
    return outbox.deliver(event_id)


@shared_task(name="core.sweep_notifications", ignore_result=True)
def sweep_notifications() -> int:
    """Beat, every minute: deliver every notification that is due (retries, lost tasks)."""
    return sum(1 for _ in outbox.sweep())
