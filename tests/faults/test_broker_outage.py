"""Redis, the broker, down under traffic (issue 22, "Survive it").

gunicorn and a Celery worker use a redis-server the test starts on a free port (never the
machine's). With the broker up, a token deactivated over the API (DT) is notified at once by the
worker. Then the test stops Redis: debits are approved as before, and DT still answers (each
change writes its notification to the outbox in its own transaction; the hand-over to Celery
fails after commit, fast, and is logged); the notifications wait, PENDING. Redis comes back
(empty: no persistence): the sweep, sent as beat sends it, has the worker deliver every waiting
notification, and a new change is handed over at once again. The receiver sees every event id
once, and each message is DELIVERED with one acknowledged attempt. Figures printed (`-s`), kept
in docs/operations.md, "Faults".
"""

import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.db import connection
from stdnum import luhn

from bench._server import get_status, gunicorn
from core.models import DeliveryAttempt, OutboxMessage, OutboxStatus
from tests.conftest import url_of_test_database
from tests.core.workers import Receiver
from tests.factories import MerchantFactory
from tests.faults.tools import (
    RedisServer,
    celery_worker,
    closing_all,
    debit,
    redis_server_or_skip,
    send,
    send_task,
    wait_until,
)
from tokenization.models import Token

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
WAITING = 6  # notifications made while the broker is down
DEBITS = 5


@pytest.fixture(autouse=True)
def _postgres_and_a_redis_server():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): gunicorn and a worker share it")
    redis_server_or_skip()


def visa(n: int) -> str:
    """A card number of its own for each token (the same card would get the same token)."""
    body = f"4200001{n:08d}"
    return body + luhn.calc_check_digit(body)


def test_payments_go_on_and_notifications_wait_for_the_broker(tmp_path: Path, server_keys):
    receiver = Receiver()
    merchant = MerchantFactory(notification_url=receiver.url)
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    queue = f"faults-{uuid.uuid4().hex[:8]}"
    env = {**server_keys, "REDIS_URL": redis.url, "CELERY_TASK_DEFAULT_QUEUE": queue}
    with (
        closing_all(receiver.close, redis.stop),
        celery_worker(tmp_path / "worker.log", env) as worker,
        gunicorn(
            database_url=url_of_test_database(),
            workers=2,
            log_path=tmp_path / "gunicorn.log",
            env=env,
        ) as server,
    ):

        def tokenize(**fields: str):  # type: ignore[no-untyped-def]
            return send(server.port, merchant, "/pay/v3/tokenize", fields)

        def deactivate(reference: str):  # type: ignore[no-untyped-def]
            return tokenize(
                **{
                    "token.Type": "DT",
                    "tokenUniqueReferences": reference,
                    "causedBy": "CARDHOLDER",
                    "merchantTransactionId": uuid.uuid4().hex,
                }
            )

        for n in range(WAITING + 2):
            made = tokenize(
                **{
                    "token.Type": "CT",
                    "merchantTransactionId": uuid.uuid4().hex,
                    "card.number": visa(n),
                    "card.holder": "Jane Doe",
                    "card.expiryMonth": "12",
                    "card.expiryYear": "2034",
                }
            )
            assert (made.status, made.code) == (200, "000.000.100"), made
        references = list(Token.objects.filter(merchant=merchant).values_list("pk", flat=True))
        assert len(references) == WAITING + 2
        first, waiting, last = references[0], references[1:-1], references[-1]

        def received() -> Counter[str]:
            return Counter(r["body"]["eventId"] for r in receiver.requests)

        # The broker up: the worker notifies at once.
        up = deactivate(first)
        assert (up.status, up.code) == (200, "000.000.100"), up
        handed = wait_until(lambda: len(received()) == 1, "the notification with Redis up")

        # The broker down.
        redis.stop()
        down_at = time.monotonic()
        debits = [send(server.port, merchant, "/pay/v3/payments", debit()) for _ in range(DEBITS)]
        assert all((d.status, d.code) == (200, "000.000.000") for d in debits), debits
        changes = [deactivate(reference) for reference in waiting]
        assert all((c.status, c.code) == (200, "000.000.100") for c in changes), changes
        assert get_status(server.port, "/readyz") == 200  # degraded, still serving
        messages = OutboxMessage.objects.exclude(subject=first)
        assert messages.count() == WAITING
        assert set(messages.values_list("status", "attempts")) == {(OutboxStatus.PENDING, 0)}
        assert len(received()) == 1  # nothing of them delivered
        # A few seconds: until the worker has failed to reconnect twice (its backoff: 2 s, 4 s...).
        worker_log = tmp_path / "worker.log"
        wait_until(
            lambda: worker_log.read_text().count("Cannot connect to") >= 2, "the worker's retries"
        )

        # The broker back, empty: the sweep delivers what waited; new changes go at once.
        redis.start()
        back_at = time.monotonic()
        send_task(redis.url, queue, "core.sweep_notifications")
        swept = wait_until(
            lambda: not OutboxMessage.objects.exclude(status=OutboxStatus.DELIVERED).exists(),
            "every waiting notification delivered",
            timeout=60,
        )
        again = deactivate(last)
        assert (again.status, again.code) == (200, "000.000.100")
        wait_until(lambda: len(received()) == WAITING + 2, "the notification after the outage")
        after = time.monotonic() - back_at - swept
        assert worker.poll() is None

    everything = OutboxMessage.objects.all()
    assert set(received()) == set(everything.values_list("pk", flat=True))
    assert set(received().values()) == {1}  # each event id once
    assert set(everything.values_list("status", "attempts")) == {(OutboxStatus.DELIVERED, 1)}
    acknowledged = DeliveryAttempt.objects.filter(http_status=200)
    assert sorted(acknowledged.values_list("message_id", flat=True)) == sorted(received())
    latency = [a.answered - a.sent for a in changes]
    payments = [a.answered - a.sent for a in debits]
    print(
        f"\nbroker down {back_at - down_at:.1f} s: {DEBITS}/{DEBITS} debits approved "
        f"(slowest {max(payments):.2f} s), {WAITING}/{WAITING} token changes answered "
        f"(slowest {max(latency):.2f} s, first {latency[0]:.2f} s; with Redis up "
        f"{up.answered - up.sent:.2f} s, notified {handed:.2f} s later); Redis back: every "
        f"waiting notification delivered {swept:.1f} s after the sweep was sent, a new change "
        f"notified {after:.2f} s later; {len(received())} events, each received once"
    )
