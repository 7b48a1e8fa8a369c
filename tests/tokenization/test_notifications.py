"""Token status notifications through the outbox: written in the change's transaction, posted to
the merchant's notificationUrl (a real HTTP server on loopback) with the merchant entity's
Bearer token, retried on the schedule (the sweep driven with an injected clock, never a sleep),
failed after the last attempt, redelivered by staff."""

from collections.abc import Iterator
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from core import outbox
from core.models import DeliveryAttempt, OutboxMessage
from merchants.services import entity_token_plaintext
from tests.core.workers import Receiver
from tests.tokenization.test_tokenize import card, tokenize
from tokenization import services
from tokenization.models import Token

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _delivered_in_this_process():
    """The task runs here, after commit, whether or not a broker is configured (the worker's
    own path is tests/tokenization/test_worker_killed.py)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def token(merchant_api, merchant, receiver) -> Token:
    merchant.notification_url = receiver.url
    merchant.save()
    data = tokenize(merchant_api, merchant, "CT", **card()).json()
    return Token.objects.get(pk=data["tokenUniqueReference"])


def suspend(token: Token, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        services.token_set_status(
            reference=token.pk,
            action="suspend",
            actor="staff:test",
            suspender="ISSUER",
            reason="SUSPECTED_FRAUD",
        )


def test_a_status_change_is_posted_with_the_bearer_token(
    token, receiver, merchant, django_capture_on_commit_callbacks
):
    suspend(token, django_capture_on_commit_callbacks)
    [request] = receiver.requests
    headers, body = request["headers"], request["body"]
    assert headers["Authorization"] == f"Bearer {entity_token_plaintext(entity=merchant.entity)}"
    assert headers["X-Event-Id"] == body["eventId"] and headers["X-Event-Sequence"] == "1"
    assert body["tokenUniqueReference"] == token.pk and body["status"] == "SUSPENDED"
    assert body["suspendedBy"] == ["ISSUER"] and body["eventReasonCode"] == "SUSPECTED_FRAUD"
    assert body["statusTimestamp"].endswith("Z") and body["sequence"] == 1
    assert set(body["additionalData"]) >= {"brandLogoAssetId", "foregroundColor", "issuerName"}
    message = OutboxMessage.objects.get()
    assert message.status == "DELIVERED" and message.attempts == 1
    attempt = DeliveryAttempt.objects.get()
    assert attempt.http_status == 200 and attempt.excerpt == "ok"


def test_events_of_one_token_are_numbered(token, receiver, django_capture_on_commit_callbacks):
    suspend(token, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        services.token_set_status(
            reference=token.pk, action="unsuspend", actor="staff:test", suspender="ISSUER"
        )
    assert [r["body"]["sequence"] for r in receiver.requests] == [1, 2]
    assert [r["body"]["status"] for r in receiver.requests] == ["SUSPENDED", "ACTIVE"]
    assert len({r["body"]["eventId"] for r in receiver.requests}) == 2


def test_a_change_that_rolls_back_sends_nothing(
    token, receiver, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        services.token_set_status(
            reference=token.pk, action="suspend", actor="t", suspender="ISSUER"
        )
        raise RuntimeError("the change fails after the notification was written")
    assert not OutboxMessage.objects.exists() and receiver.requests == []
    assert Token.objects.get(pk=token.pk).status == "ACTIVE"


def test_a_receiver_that_fails_twice_gets_one_acknowledged_delivery_after_three_attempts(
    token, receiver, django_capture_on_commit_callbacks
):
    receiver.statuses = [500, 503]
    suspend(token, django_capture_on_commit_callbacks)
    message = OutboxMessage.objects.get()
    assert (message.status, message.attempts) == ("PENDING", 1)
    start = timezone.now()
    assert list(outbox.sweep(now=start + timedelta(seconds=30))) == []  # not due yet
    assert list(outbox.sweep(now=start + timedelta(seconds=61))) == ["retry"]
    assert list(outbox.sweep(now=start + timedelta(seconds=200))) == []  # 5 minutes next
    assert list(outbox.sweep(now=start + timedelta(seconds=61 + 301))) == ["delivered"]
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("DELIVERED", 3)
    assert [a.http_status for a in DeliveryAttempt.objects.order_by("pk")] == [500, 503, 200]
    assert len(receiver.requests) == 3
    assert len({r["body"]["eventId"] for r in receiver.requests}) == 1  # the same event
    assert list(outbox.sweep(now=start + timedelta(days=30))) == []


def test_after_the_last_attempt_the_notification_has_failed(
    token, receiver, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFICATION_RETRY_SCHEDULE = [60, 300]
    receiver.statuses = [500] * 10
    suspend(token, django_capture_on_commit_callbacks)
    start = timezone.now()
    assert list(outbox.sweep(now=start + timedelta(seconds=61))) == ["retry"]
    assert list(outbox.sweep(now=start + timedelta(seconds=400))) == ["failed"]
    message = OutboxMessage.objects.get()
    assert (message.status, message.attempts) == ("FAILED", 3)


def test_a_refused_connection_is_retried(token, django_capture_on_commit_callbacks, merchant):
    merchant.notification_url = "http://127.0.0.1:9/closed"
    merchant.save()
    suspend(token, django_capture_on_commit_callbacks)
    attempt = DeliveryAttempt.objects.get()
    assert attempt.http_status is None and attempt.error
    assert OutboxMessage.objects.get().status == "PENDING"


def test_no_notification_without_a_url(
    token, merchant, receiver, django_capture_on_commit_callbacks
):
    merchant.notification_url = ""
    merchant.save()
    suspend(token, django_capture_on_commit_callbacks)
    assert not OutboxMessage.objects.exists()


def test_deleting_tokens_through_the_api_notifies(
    merchant_api, merchant, token, receiver, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        tokenize(
            merchant_api, merchant, "DT", tokenUniqueReferences=token.pk, causedBy="CARDHOLDER"
        )
    assert [r["body"]["status"] for r in receiver.requests] == ["DEACTIVATED"]


def test_the_command_delivers_what_is_due(token, receiver, django_capture_on_commit_callbacks):
    receiver.statuses = [500]
    suspend(token, django_capture_on_commit_callbacks)
    OutboxMessage.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    out = StringIO()
    call_command("notifications_deliver", stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "1 due: 1 delivered"
    assert OutboxMessage.objects.get().status == "DELIVERED"
    out = StringIO()
    call_command("notifications_deliver", stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "no notification is due"


def test_staff_redeliver_a_failed_notification(
    admin_client, token, receiver, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFICATION_RETRY_SCHEDULE = []
    receiver.statuses = [500]
    suspend(token, django_capture_on_commit_callbacks)
    message = OutboxMessage.objects.get()
    assert message.status == "FAILED"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:core_outboxmessage_changelist"),
            {"action": "redeliver", "_selected_action": [message.pk]},
            follow=True,
        )
    assert "Delivering again" in response.content.decode()
    message.refresh_from_db()
    assert message.status == "DELIVERED" and len(receiver.requests) == 2
    page = admin_client.get(reverse("admin:core_outboxmessage_change", args=[message.pk]))
    assert page.status_code == 200 and "try later" in page.content.decode()


def test_changed_card_art_notifies_the_live_tokens(
    token, receiver, django_capture_on_commit_callbacks
):
    art = token.card_art
    change = services.CardArtChange(
        name=art.name,
        brand=art.brand,
        bin_from=art.bin_from,
        bin_to=art.bin_to,
        issuer_name="Demo Bank AG",
        short_description=art.short_description,
        foreground_color="000000",
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.card_art_save(card_art_id=art.pk, change=change)
    [request] = receiver.requests
    assert request["body"]["additionalData"]["issuerName"] == "Demo Bank AG"
    assert request["body"]["status"] == "ACTIVE"


# --- merchant.notificationUrl -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://shop.example.com/hooks/tokens", True),
        ("http://shop.example.com/hooks/tokens", False),
        ("https://127.0.0.1/hooks", False),
        ("https://10.1.2.3/hooks", False),
        ("https://localhost/hooks", False),
        ("https://[::1]/hooks", False),
    ],
)
def test_the_notification_url_must_be_https_to_a_public_host(api, merchant, settings, url, ok):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    response = api.post(
        "/pay/v3/merchant/update/",
        {"merchant.id": merchant.merchant_id, "merchant.notificationUrl": url},
    )
    if ok:
        assert response.status_code == 200, response.json()
        inquiry = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
        assert inquiry.json()["merchant"]["notificationUrl"] == url
    else:
        assert response.status_code == 400
        assert "merchant.notificationUrl" in {
            e["name"] for e in response.json()["result"]["parameterErrors"]
        }


def test_local_testing_may_allow_plain_http(api, merchant, settings):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    response = api.post(
        "/pay/v3/merchant/update/",
        {
            "merchant.id": merchant.merchant_id,
            "merchant.notificationUrl": "http://127.0.0.1:9000/n",
        },
    )
    assert response.status_code == 200
