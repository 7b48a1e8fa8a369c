"""Celery tasks of core: the outbox's delivery and sweep, thin adapters over core.outbox (which
does not import this module: core.apps registers `hand_over` as the outbox's dispatcher)."""

from datetime import datetime

from celery import shared_task
from django.utils import timezone

from . import outbox


@shared_task(name="core.deliver_notification", acks_late=True, ignore_result=True)
def deliver_notification(event_id: str, attempts: int | None = None) -> str:
    """The delivery of an outbox message that follows `attempts` attempts (None: a task sent
    before tasks carried it; whatever is due)."""
    if attempts is None:
        return outbox.deliver(event_id)
    return outbox.deliver_when_due(event_id, after_attempts=attempts)


@shared_task(name="core.sweep_notifications", ignore_result=True)
def sweep_notifications() -> int:
    """Beat, every NOTIFICATION_SWEEP_SECONDS: deliver every notification that is due (a task
    that was lost, a worker that died during the call)."""
    return sum(1 for _ in outbox.sweep())


def hand_over(event_id: str, *, attempts: int, eta: datetime | None) -> None:
    """The outbox's dispatcher: `deliver_notification` at `eta` (a retry) or now. Run eagerly
    (no broker, `make run`), a task cannot wait: a retry is left to the sweep or
    `manage.py notifications_deliver`, which take it when it is due."""
    eager = deliver_notification.app.conf.task_always_eager
    if eager and eta is not None and eta > timezone.now():
        return
    deliver_notification.apply_async((event_id, attempts), eta=eta)
