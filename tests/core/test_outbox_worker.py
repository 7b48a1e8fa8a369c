"""Notification retries with a real Celery worker on Redis and PostgreSQL (issue 23): with the
schedule 1,1,1,... and a receiver that answers 500, 500, then 200, the worker makes three
attempts, each after its wait, and the message is acknowledged, with no beat running: the
retries come from the tasks each refused attempt hands over, not from the sweep (every minute).
Times are recorded, not asserted beyond "never before the schedule's moment" (the outbox
refuses an early attempt) and a generous deadline."""

from datetime import timedelta

import pytest
from django.db import connection

from core.models import OutboxMessage
from merchants.services import notification_test
from tests.core.workers import Receiver, celery_worker, require_postgres_and_redis, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
SCHEDULE = "1,1,1,1,1,1,1,1"


@pytest.fixture(autouse=True)
def _postgres_and_redis():
    require_postgres_and_redis()


def test_a_worker_retries_on_the_schedule_until_acknowledged(tmp_path, server_keys, merchant):
    receiver = Receiver(statuses=[500, 500])
    merchant.notification_url = receiver.url
    merchant.save()
    env = {**server_keys, "NOTIFICATION_RETRY_SCHEDULE": SCHEDULE}
    try:
        with celery_worker(tmp_path / "worker.log", env):
            event_id = notification_test(merchant=merchant)  # commits: handed to the worker
            message = OutboxMessage.objects.filter(pk=event_id)
            wait_until(lambda: receiver.requests != [], "the first attempt", timeout=60)
            wait_until(lambda: message.get().status != "PENDING", "the acknowledgement", timeout=60)
        delivered = message.get()
        assert (delivered.status, delivered.attempts) == ("DELIVERED", 3)
        attempts = list(delivered.deliveries.order_by("attempted_at"))
        assert [a.http_status for a in attempts] == [500, 500, 200]
        times = [a.attempted_at for a in attempts]
        gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
        assert all(gap >= timedelta(seconds=1) for gap in gaps), gaps
        assert len(receiver.requests) == 3
        assert {r["body"]["eventId"] for r in receiver.requests} == {event_id}
        seen = [r["at"] - receiver.requests[0]["at"] for r in receiver.requests]
        print(f"attempts at +{', +'.join(f'{s:.2f}' for s in seen)} s (schedule {SCHEDULE})")
    finally:
        receiver.close()


def test_a_worker_keeps_its_database_connection_from_one_task_to_the_next(
    tmp_path, server_keys, merchant
):
    """Celery's Django fixup closes the database connection around every task unless told to
    reuse it (CELERY_DB_REUSE_MAX); a new PostgreSQL connection per delivery halved the
    notifications' throughput (issue 21). Three deliveries one after the other leave the worker
    with the one connection it opened for the first."""
    receiver = Receiver()
    merchant.notification_url = receiver.url
    merchant.save()

    def workers_connections() -> list[tuple[int, object]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, backend_start FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND backend_start >= %s",
                [started],
            )
            return list(cursor.fetchall())

    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        (started,) = cursor.fetchone()
    try:
        with celery_worker(tmp_path / "worker.log", server_keys):
            delivered_at = []
            for _ in range(3):
                event_id = notification_test(merchant=merchant)  # commits: handed to the worker
                message = OutboxMessage.objects.filter(pk=event_id)
                wait_until(lambda m=message: m.get().status == "DELIVERED", "the delivery")
                delivered_at.append(message.get().delivered_at)
            kept = workers_connections()
        assert len(kept) == 1, kept
        assert kept[0][1] < delivered_at[0]  # opened for the first delivery, used by all three
    finally:
        receiver.close()
