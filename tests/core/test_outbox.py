"""The outbox's retries (core.outbox with core.tasks as its dispatcher), with injected clocks:
a refused delivery hands the message over again for the moment the schedule names, a copy of a
task arriving early is handed over again, a copy whose attempt was made does nothing, and the
message is FAILED only after the schedule's last wait. The same with a real worker on Redis:
tests/core/test_outbox_worker.py."""

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from core import outbox, tasks
from core.models import DeliveryAttempt, OutboxMessage
from merchants.services import notification_test
from tests.core.workers import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(merchant) -> Iterator[Receiver]:  # type: ignore[no-untyped-def]
    server = Receiver()
    merchant.notification_url = server.url
    merchant.save()
    try:
        yield server
    finally:
        server.close()


def always_eager(value: bool) -> Iterator[None]:
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = value
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


@pytest.fixture
def eager() -> Iterator[None]:
    """No broker: tasks run in this process (the embedded default, whatever the environment)."""
    yield from always_eager(True)


@pytest.fixture
def broker() -> Iterator[None]:
    """Tasks are sent to a broker (REDIS_URL), whatever the environment."""
    yield from always_eager(False)


class Handed:
    """Stands in for the task queue: records what the outbox hands over, runs nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, datetime | None]] = []

    def __call__(self, event_id: str, *, attempts: int, eta: datetime | None) -> None:
        self.calls.append((attempts, eta))


@pytest.fixture
def handed(monkeypatch) -> Handed:  # type: ignore[no-untyped-def]
    dispatcher = Handed()
    monkeypatch.setattr(outbox, "_dispatcher", dispatcher)
    return dispatcher


def test_the_task_queue_is_the_outboxs_dispatcher():
    assert outbox._dispatcher is tasks.hand_over


def test_each_retry_is_handed_over_for_its_moment_and_failed_comes_after_the_last_wait(
    merchant, receiver, handed, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFICATION_RETRY_SCHEDULE = [60, 300]
    receiver.statuses = [500, 503, 500]
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    assert handed.calls == [(0, None)]  # the first delivery, at once

    start = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert outbox.deliver_when_due(event_id, after_attempts=0, now=start) == "retry"
    assert handed.calls[-1] == (1, start + timedelta(seconds=60))

    first_retry = start + timedelta(seconds=60)
    with django_capture_on_commit_callbacks(execute=True):
        assert outbox.deliver_when_due(event_id, after_attempts=1, now=first_retry) == "retry"
    last_retry = first_retry + timedelta(seconds=300)
    assert handed.calls[-1] == (2, last_retry)
    message = OutboxMessage.objects.get(pk=event_id)
    assert (message.status, message.next_attempt_at) == ("PENDING", last_retry)

    # The task arrives a second early (clock skew): handed over again for its moment, not lost.
    early = last_retry - timedelta(seconds=1)
    assert outbox.deliver_when_due(event_id, after_attempts=2, now=early) == "not due"
    assert handed.calls[-1] == (2, last_retry)
    assert len(receiver.requests) == 2

    with django_capture_on_commit_callbacks(execute=True):
        assert outbox.deliver_when_due(event_id, after_attempts=2, now=last_retry) == "failed"
    assert len(handed.calls) == 4  # nothing handed over after the end
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("FAILED", 3)
    assert [a.http_status for a in message.deliveries.order_by("pk")] == [500, 503, 500]


def test_copies_of_a_task_acknowledge_once(
    merchant, receiver, handed, django_capture_on_commit_callbacks
):
    receiver.statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    start = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert outbox.deliver_when_due(event_id, after_attempts=0, now=start) == "retry"
    # A second copy of the first task: its attempt was made, it does nothing.
    assert outbox.deliver_when_due(event_id, after_attempts=0, now=start) == "not due"
    due = start + timedelta(seconds=60)
    with django_capture_on_commit_callbacks(execute=True):
        assert outbox.deliver_when_due(event_id, after_attempts=1, now=due) == "delivered"
    delivered_at = OutboxMessage.objects.get(pk=event_id).delivered_at
    # Two more copies of the retry's task, and the sweep: nothing is posted or recorded again.
    for _ in range(2):
        assert outbox.deliver_when_due(event_id, after_attempts=1, now=due) == "not due"
    assert list(outbox.sweep(now=due + timedelta(days=30))) == []
    message = OutboxMessage.objects.get(pk=event_id)
    assert (message.status, message.attempts, message.delivered_at) == (
        "DELIVERED",
        2,
        delivered_at,
    )
    assert len(receiver.requests) == 2 and DeliveryAttempt.objects.count() == 2
    assert len(handed.calls) == 2  # the first delivery and the one retry


def test_a_retry_is_sent_to_the_broker_with_the_schedules_wait(
    merchant, receiver, broker, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """With a broker (REDIS_URL), a refused delivery sends `core.deliver_notification` for the
    retry: eta = the attempt's time + the schedule's wait (a countdown of that wait)."""
    settings.NOTIFICATION_RETRY_SCHEDULE = [7, 11]
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(
        tasks.deliver_notification,
        "apply_async",
        lambda args, eta=None: sent.append({"args": args, "eta": eta}),
    )
    receiver.statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    assert sent == [{"args": (event_id, 0), "eta": None}]
    start = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.deliver_notification(event_id, 0) == "retry"  # what the worker runs
    assert sent[-1]["args"] == (event_id, 1)
    assert sent[-1]["eta"] >= start + timedelta(seconds=7)
    attempt = DeliveryAttempt.objects.get()
    assert sent[-1]["eta"] - attempt.attempted_at == timedelta(seconds=7)


def test_without_a_broker_a_retry_waits_for_the_sweep(
    merchant, receiver, eager, django_capture_on_commit_callbacks
):
    """Eagerly (`make run` without Redis) a task cannot wait: the retry is not run at once (nor
    in a loop of early arrivals); `notifications_deliver` or beat's sweep takes it when due."""
    receiver.statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    message = OutboxMessage.objects.get(pk=event_id)
    assert (message.status, message.attempts, len(receiver.requests)) == ("PENDING", 1, 1)
    assert list(outbox.sweep(now=message.next_attempt_at)) == ["delivered"]
    assert OutboxMessage.objects.get(pk=event_id).status == "DELIVERED"


def test_a_task_sent_before_tasks_carried_the_attempts_still_delivers(
    merchant, receiver, handed, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    assert tasks.deliver_notification(event_id) == "delivered"
    assert OutboxMessage.objects.get(pk=event_id).status == "DELIVERED"
