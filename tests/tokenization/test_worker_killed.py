"""A Celery worker killed (SIGKILL) while it delivers a token status notification (PostgreSQL
and Redis): the outbox row stays due, and the beat sweep delivers it; the receiver sees the same
event id twice and acknowledges it once. The receiver holds the first request until the worker
is dead (an event the test controls, never a sleep)."""

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from core import outbox
from core.models import DeliveryAttempt, OutboxMessage
from tests.conftest import url_of_test_database
from tests.tokenization.test_notifications import Receiver
from tests.tokenization.test_tokenize import card, tokenize
from tokenization import services
from tokenization.models import Token

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 30.0


@pytest.fixture(autouse=True)
def _postgres_and_redis():
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_worker_killed_during_delivery_and_the_sweep_delivers(
    tmp_path, server_keys, merchant_api, merchant
):
    from config.celery import app

    queue = f"test-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    receiver = Receiver(hold_first=True)
    merchant.notification_url = receiver.url
    merchant.save()
    reference = tokenize(merchant_api, merchant, "CT", **card()).json()["tokenUniqueReference"]
    env = {
        **os.environ,
        **server_keys,
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": url_of_test_database(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
    }
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo"]
        + ["-Q", queue, "-l", "warning", "--without-heartbeat", "--without-gossip"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        services.token_set_status(
            reference=reference, action="suspend", actor="staff:test", suspender="ISSUER"
        )  # commits: the task goes to the worker through Redis
        wait_until(lambda: len(receiver.requests) == 1, "the worker's delivery")
        worker.kill()  # SIGKILL, mid-request
        worker.wait(timeout=WAIT_S)
        receiver.released.set()
        message = OutboxMessage.objects.get()
        assert (message.status, message.attempts) == ("PENDING", 1)
        assert not DeliveryAttempt.objects.exists()  # the dead worker recorded nothing

        later = timezone.now() + timedelta(seconds=settings.NOTIFICATION_LEASE_SECONDS + 1)
        assert list(outbox.sweep(now=later)) == ["delivered"]
        message.refresh_from_db()
        assert (message.status, message.attempts) == ("DELIVERED", 2)
        first, second = receiver.requests
        assert first["body"]["eventId"] == second["body"]["eventId"] == message.pk
        assert second["headers"]["Authorization"].startswith("Bearer ")
        assert Token.objects.get(pk=reference).status == "SUSPENDED"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=WAIT_S)
        log.close()
        receiver.close()
        app.conf.task_default_queue = "celery"
