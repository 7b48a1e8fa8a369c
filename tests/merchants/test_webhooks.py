"""Payment webhooks (issue 35): events for final payments, registrations and chargebacks, sealed
with AES-256-GCM as the anchor's are, delivered through the outbox at least once, outside any
transaction, retried on anything but a 2xx; the secret shown once, rotated at once."""

from collections.abc import Iterator
from datetime import date
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import outbox
from core.models import OutboxMessage
from merchants import webhooks
from merchants.models import Webhook
from tests.core.workers import Receiver
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    server = Receiver()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def payer(merchant_api, merchant):
    return Payer(merchant_api, merchant)


@pytest.fixture
def hook(merchant, receiver):
    made, secret = webhooks.webhook_create(
        merchant=merchant,
        url=receiver.url,
        events=["PAYMENT", "REGISTRATION", "CHARGEBACK"],
        created_by="portal:ann",
    )
    made.secret = secret  # what the merchant was shown, once
    return made


def events_of(hook):
    return list(OutboxMessage.objects.filter(topic=f"webhook:{hook.pk}").order_by("created_at"))


def deliver_all():
    return list(outbox.sweep())


def opened(request, secret):
    headers = request["headers"]
    return webhooks.decrypt(
        secret, request["raw"], headers["X-Initialization-Vector"], headers["X-Authentication-Tag"]
    )


def test_a_new_webhook_has_a_64_hex_secret_and_the_merchant_knows_its_events(merchant, hook):
    assert len(hook.secret) == 64 and int(hook.secret, 16) >= 0
    merchant.refresh_from_db()
    assert merchant.webhook_events == ["CHARGEBACK", "PAYMENT", "REGISTRATION"]
    assert hook.secret not in hook.secret_ciphertext  # kept in the vault only


def test_a_payment_is_told_sealed_and_without_the_cards_details(payer, hook, receiver):
    answer = payer.pay("DB", "12.00", **{"card.holder": "Jane Roe"}).json()
    [message] = events_of(hook)
    assert message.subject == answer["id"] and message.sequence == 1
    assert message.credential == "" and message.sealing == f"webhook:{hook.pk}"
    assert deliver_all() == ["delivered"]
    [request] = receiver.requests
    headers = request["headers"]
    assert headers["Content-Type"] == "text/plain"
    assert "Authorization" not in headers  # the tag is the authentication
    assert headers["X-Webhook-Id"] == message.event_id
    assert headers["X-Webhook-Key-Id"] == hook.key_id
    assert (
        len(headers["X-Initialization-Vector"]) == 24 and len(headers["X-Authentication-Tag"]) == 32
    )
    event = opened(request, hook.secret)
    assert (event["type"], event["action"], event["sequence"]) == ("PAYMENT", "CREATED", 1)
    assert event["eventId"] == message.event_id
    payload = event["payload"]
    assert payload["id"] == answer["id"] and payload["result"]["code"] == "000.000.000"
    card = payload["card"]
    assert card["bin"] == "420000" and card["last4Digits"] == "0000"
    assert not {"holder", "expiryMonth", "expiryYear"} & set(card)
    assert "Jane Roe" not in request["raw"].decode() and "Jane Roe" not in str(event)


def test_the_refund_is_its_own_event_and_a_tampered_body_does_not_open(payer, hook, receiver):
    import cryptography.exceptions

    sale = payer.pay("DB", "12.00").json()["id"]
    refund = payer.ref("RF", sale, "2.00").json()["id"]
    assert [m.subject for m in events_of(hook)] == [sale, refund]
    deliver_all()
    request = receiver.requests[1]
    assert opened(request, hook.secret)["payload"]["paymentType"] == "RF"
    tampered = dict(request, raw=request["raw"][:-2] + b"00")
    with pytest.raises(cryptography.exceptions.InvalidTag):
        opened(tampered, hook.secret)


def test_a_refusal_is_retried_and_a_2xx_ends_it(payer, hook, receiver, settings):
    from django.utils import timezone

    receiver.statuses = [500]
    payer.pay("DB", "12.00")
    assert deliver_all() == ["retry"]
    [message] = events_of(hook)
    later = timezone.now() + timezone.timedelta(seconds=settings.NOTIFICATION_RETRY_SCHEDULE[0] + 1)
    assert list(outbox.sweep(now=later)) == ["delivered"]
    message.refresh_from_db()
    assert message.status == "DELIVERED" and message.attempts == 2
    first, second = receiver.requests
    assert first["headers"]["X-Webhook-Id"] == second["headers"]["X-Webhook-Id"]  # dedupe on it
    assert (
        first["headers"]["X-Initialization-Vector"] != second["headers"]["X-Initialization-Vector"]
    )


def test_a_rotated_secret_seals_the_next_delivery(payer, hook, receiver):
    old_key = hook.key_id
    payer.pay("DB", "12.00")  # written before the rotation, delivered after it
    secret = webhooks.webhook_rotate(hook=hook)
    hook.refresh_from_db()
    assert hook.previous_key_id == old_key and hook.key_id != old_key and secret != hook.secret
    deliver_all()
    [request] = receiver.requests
    assert request["headers"]["X-Webhook-Key-Id"] == hook.key_id
    assert opened(request, secret)["type"] == "PAYMENT"


def test_registrations_and_chargebacks_are_told(payer, hook, merchant):
    from payments.registrations.services import registration_deregister
    from reconciliation.services import chargeback_record

    answer = payer.pay("DB", "20.00", createRegistration="true").json()
    registration_deregister(entity=merchant.entity, registration_id=answer["registrationId"])
    chargeback_record(
        payment_ref=answer["id"],
        reason_code="4837",
        amount=Decimal("5.00"),
        currency="EUR",
        received_on=date.today(),
        actor="staff:alice",
    )
    told = [(m.body["type"], m.body["action"]) for m in events_of(hook)]
    assert told == [
        ("REGISTRATION", "CREATED"),
        ("PAYMENT", "CREATED"),
        ("REGISTRATION", "DELETED"),
        ("CHARGEBACK", "CREATED"),
    ]
    registration = next(m for m in events_of(hook) if m.body["type"] == "REGISTRATION")
    assert "holder" not in str(registration.body["payload"].get("card", {}))


def test_only_the_types_a_webhook_takes_and_a_merchant_without_costs_nothing(
    merchant_api, merchant, receiver
):
    payer = Payer(merchant_api, merchant)
    payer.pay("DB", "1.00")
    with CaptureQueriesContext(connection) as without:
        payer.pay("DB", "1.00")
    chargebacks_only, _ = webhooks.webhook_create(
        merchant=merchant, url=receiver.url, events=["CHARGEBACK"], created_by="staff:x"
    )
    merchant.refresh_from_db()
    payer.pay("DB", "1.00")
    assert events_of(chargebacks_only) == []
    assert not any("merchants_webhook" in q["sql"] for q in without.captured_queries)


def test_a_webhook_refuses_a_url_it_may_not_call_and_no_events(merchant, settings):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    with pytest.raises(webhooks.WebhookRefused, match="URL"):
        webhooks.webhook_create(
            merchant=merchant, url="http://127.0.0.1/x", events=["PAYMENT"], created_by="x"
        )
    with pytest.raises(webhooks.WebhookRefused, match="at least one"):
        webhooks.webhook_create(
            merchant=merchant, url="https://shop.example/hook", events=[], created_by="x"
        )
    assert not Webhook.objects.exists()


def test_a_deleted_webhooks_pending_delivery_fails_without_a_request(payer, hook, receiver):
    payer.pay("DB", "1.00")
    webhooks.webhook_delete(hook=hook)
    assert deliver_all() == ["failed"]  # at once: no retry could send it
    assert receiver.requests == []
    message = OutboxMessage.objects.get()
    assert message.deliveries.get().error == "not sent: the webhook was deleted"


def test_a_test_event(hook, receiver):
    webhooks.webhook_send_test(hook=hook)
    deliver_all()
    assert opened(receiver.requests[0], hook.secret)["type"] == "TEST"


def test_the_docs_decryption_example_opens_a_delivery(payer, hook, receiver):
    """docs/api.md's Python example, run as written against a real delivery."""
    import re
    from pathlib import Path

    from django.conf import settings

    docs = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    section = docs[docs.index("## Webhooks") :]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    exec(example, scope)  # noqa: S102 - the documentation's own code
    payer.pay("DB", "12.00")
    deliver_all()
    [request] = receiver.requests
    scope["SECRETS"][hook.key_id] = hook.secret
    event = scope["open_webhook"](request["headers"], request["raw"])
    assert event["type"] == "PAYMENT" and event["sequence"] == 1


def test_staff_see_the_webhooks_and_their_log_in_the_admin(admin_client, hook, payer):
    from django.urls import reverse

    payer.pay("DB", "1.00")
    listed = admin_client.get(reverse("admin:merchants_webhook_changelist")).content.decode()
    assert hook.url in listed and "Payments (final outcomes)" in listed
    page = admin_client.get(reverse("admin:merchants_webhook_change", args=[hook.pk]))
    shown = page.content.decode()
    assert hook.key_id in shown and hook.secret not in shown
    log = reverse("admin:core_outboxmessage_changelist") + f"?topic=webhook:{hook.pk}"
    assert log.split("?")[1] in shown.replace("%3A", ":")
    assert len(admin_client.get(log).context["cl"].result_list) == 1


def test_the_settlement_account_is_masked_in_a_payment_event(payer, hook, merchant):
    merchant.bank_account_holder, merchant.bank_account_number = "Shop", "DE89370400440532013000"
    merchant.bank_account_country = "DE"
    merchant.save()
    payer.pay("DB", "1.00")
    [message] = events_of(hook)
    assert "DE89370400440532013000" not in str(message.body)
    assert message.body["payload"]["merchant"]["bankAccount"]["number"] == "DE…3000"
