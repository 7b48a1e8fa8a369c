"""A Celery worker killed (SIGKILL) while it delivers a token status notification (PostgreSQL
and Redis): the outbox row stays due, and the beat sweep delivers it; the receiver sees the same
event id twice and acknowledges it once. The receiver holds the first request until the worker
is dead (an event the test controls, never a sleep)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from core import outbox
from core.models import DeliveryAttempt, OutboxMessage
from tests.core.workers import (
    WAIT_S,
    Receiver,
    celery_worker,
    require_postgres_and_redis,
    wait_until,
)
from tests.tokenization.test_tokenize import card, tokenize
from tokenization import services
from tokenization.models import Token

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_and_redis():
    require_postgres_and_redis()


def test_a_worker_killed_during_delivery_and_the_sweep_delivers(
    tmp_path, server_keys, merchant_api, merchant
):
    receiver = Receiver(hold_first=True)
    merchant.notification_url = receiver.url
    merchant.save()
    reference = tokenize(merchant_api, merchant, "CT", **card()).json()["tokenUniqueReference"]
    try:
        with celery_worker(tmp_path / "worker.log", server_keys) as worker:
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
        receiver.close()
