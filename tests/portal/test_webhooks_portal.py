"""The portal's Developers page: a merchant administrator adds a webhook (its secret shown once,
not stored by the browser), chooses its events, sends a test event, rotates the secret, resends a
delivery and deletes it; another merchant's webhook is 404 (issue 35)."""

import re

import pytest
from django.contrib.auth.models import User

from core.models import OutboxMessage
from merchants.models import PortalUser, Webhook
from tests.factories import MerchantFactory

pytestmark = pytest.mark.django_db
URL = "https://shop.example/webhooks"


@pytest.fixture
def admin_client(client, merchant):
    user = User.objects.create_user("ann", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    client.force_login(user)
    return client


def post(client, **data):
    return client.post("/portal/developers/", data)


def test_add_a_webhook_its_secret_shown_once(admin_client, merchant):
    response = post(admin_client, action="webhook-add", url=URL, events=["PAYMENT", "CHARGEBACK"])
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    secret = re.search(r'id="new-secret">([0-9a-f]{64})<', response.content.decode()).group(1)
    hook = Webhook.objects.get()
    assert (hook.url, hook.events, hook.created_by) == (
        URL,
        ["PAYMENT", "CHARGEBACK"],
        "portal:ann",
    )
    again = admin_client.get("/portal/developers/").content.decode()
    assert secret not in again and hook.key_id in again


def test_a_refused_webhook_answers_400_in_words(admin_client, settings):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    response = post(admin_client, action="webhook-add", url="http://10.0.0.1/x", events=["PAYMENT"])
    assert response.status_code == 400
    assert "The URL" in response.content.decode() or "the URL" in response.content.decode()
    response = post(admin_client, action="webhook-add", url=URL)
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    assert not Webhook.objects.exists()


def test_events_test_rotate_resend_delete(admin_client, merchant):
    post(admin_client, action="webhook-add", url=URL, events=["PAYMENT"])
    hook = Webhook.objects.get()
    post(admin_client, action="webhook-save", webhook_id=hook.pk, url=URL, events=["CHARGEBACK"])
    hook.refresh_from_db()
    assert hook.events == ["CHARGEBACK"] and not hook.active  # "On" unticked
    merchant.refresh_from_db()
    assert merchant.webhook_events == []
    post(admin_client, action="webhook-test", webhook_id=hook.pk)
    message = OutboxMessage.objects.get()
    assert message.body["type"] == "TEST"
    shown = admin_client.get("/portal/developers/").content.decode()
    assert "TEST created" in shown
    old_key = hook.key_id
    response = post(admin_client, action="webhook-rotate", webhook_id=hook.pk)
    hook.refresh_from_db()
    assert hook.previous_key_id == old_key and 'id="new-secret"' in response.content.decode()
    message.status = "FAILED"
    message.save()
    post(admin_client, action="redeliver", event_id=message.pk)
    message.refresh_from_db()
    assert message.status == "PENDING"
    post(admin_client, action="webhook-delete", webhook_id=hook.pk)
    assert not Webhook.objects.exists()


def test_another_merchants_webhook_is_404(admin_client, participator):
    from merchants import webhooks

    other = MerchantFactory(participator=participator)
    theirs, _ = webhooks.webhook_create(merchant=other, url=URL, events=["PAYMENT"], created_by="x")
    for action in ("webhook-save", "webhook-test", "webhook-rotate", "webhook-delete"):
        response = post(
            admin_client, action=action, webhook_id=theirs.pk, url=URL, events=["PAYMENT"]
        )
        assert response.status_code == 404, action
    assert Webhook.objects.filter(pk=theirs.pk).exists()
