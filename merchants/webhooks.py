"""A merchant's webhooks: what happened to its payments, registrations and chargebacks, posted to
URLs of its own, encrypted and authenticated as the anchor's webhooks are.

- **Events.** `emit` is called in the transaction of the change (a payment's final answer, a
  registration created or deleted, a chargeback): one outbox message per active webhook that
  takes the event's type, so nothing is sent for a change that rolls back and nothing is lost
  after it commits. The body is `{"type", "action", "payload", "eventId", "sequence"}`; the
  sequence counts one subject's events (a payment's, per webhook), so a receiver orders what
  arrives out of order: a delivery never waits for an earlier one's acknowledgement.
  A merchant without webhooks costs a payment nothing: `Merchant.webhook_events` (kept here)
  says which types any of its webhooks take, on the row the payment already has.
- **Sealed.** Each attempt is encrypted with the webhook's secret of that moment: AES-256-GCM
  with a 12-byte random IV, the ciphertext hex-encoded as the `text/plain` body, the IV and the
  16-byte tag in `X-Initialization-Vector` and `X-Authentication-Tag` (hex), the event id in
  `X-Webhook-Id` (the receiver deduplicates on it), the secret's name in `X-Webhook-Key-Id`. No
  API token: the tag is the authentication.
- **Secrets.** 32 random bytes, shown once as 64 hex characters when made or rotated, kept as
  vault ciphertext. A rotation encrypts with the new one at once; the receiver keeps the old one
  under its key id until it has the new one (docs/api.md, "Webhooks").
- **Delivered** by the outbox (core.outbox): at least once, outside any transaction, retried on
  anything but a 2xx on NOTIFICATION_RETRY_SCHEDULE (about 3.6 days).
"""

import json
import os
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core import outbox, vault
from core.models import OutboxMessage
from core.outbound import url_problem

from .lock_objects import merchant_lock
from .models import Merchant, Webhook
from .services.merchants import masked_account

SECRET_PURPOSE = "webhook-secret"
SEALING = "webhook"
TOPIC = "webhook:"  # + the webhook's id: one sequence per webhook and subject
EVENTS = tuple(Webhook.Event.values)
TEST = "TEST"


@dataclass(frozen=True)
class Sealed:
    data: bytes
    headers: dict[str, str]


class WebhookRefused(Exception):
    """What the page says back (a URL that may not be called, no event type chosen)."""


def _new_secret() -> tuple[str, str]:
    """(the secret as 64 hex characters, its key id)."""
    return secrets.token_hex(32), secrets.token_hex(4)


def _refresh_events(merchant: Merchant) -> None:
    """Merchant.webhook_events from its active webhooks (in the caller's transaction, under the
    merchant's lock: two changes of its webhooks at once cannot leave a stale list)."""
    merchant_lock(merchant.pk)
    taken = sorted(
        {event for hook in merchant.webhooks.filter(active=True) for event in hook.events}
    )
    Merchant.objects.filter(pk=merchant.pk).update(webhook_events=taken)
    merchant.webhook_events = taken


def _checked(url: str, events: list[str]) -> list[str]:
    problem = url_problem(url)
    if problem:
        raise WebhookRefused(f"the URL {problem}")
    chosen = [event for event in EVENTS if event in events]
    if not chosen:
        raise WebhookRefused("choose at least one kind of event")
    return chosen


@transaction.atomic
def webhook_create(
    *, merchant: Merchant, url: str, events: list[str], created_by: str
) -> tuple[Webhook, str]:
    """A new webhook and its secret (64 hex characters: shown once, never again)."""
    chosen = _checked(url, events)
    secret, key_id = _new_secret()
    hook = Webhook.objects.create(
        merchant=merchant,
        url=url,
        events=chosen,
        secret_ciphertext=vault.encrypt(secret, purpose=SECRET_PURPOSE),
        key_id=key_id,
        created_by=created_by,
    )
    _refresh_events(merchant)
    return hook, secret


@transaction.atomic
def webhook_update(*, hook: Webhook, url: str, events: list[str], active: bool) -> Webhook:
    hook.events = _checked(url, events)
    hook.url, hook.active = url, active
    hook.save(update_fields=["url", "events", "active"])
    _refresh_events(hook.merchant)
    return hook


@transaction.atomic
def webhook_rotate(*, hook: Webhook) -> str:
    """A new secret, used from the next delivery on; the old one's key id is kept as the
    previous one (shown to the merchant) so that its receiver can hold both meanwhile."""

    secret, key_id = _new_secret()
    hook.previous_key_id, hook.key_id = hook.key_id, key_id
    hook.secret_ciphertext = vault.encrypt(secret, purpose=SECRET_PURPOSE)
    hook.rotated_at = timezone.now()
    hook.save(update_fields=["previous_key_id", "key_id", "secret_ciphertext", "rotated_at"])
    return secret


@transaction.atomic
def webhook_delete(*, hook: Webhook) -> None:
    """Stop and forget a webhook; what was written for it and not delivered fails ("not
    sent: the webhook was deleted")."""
    merchant = hook.merchant
    hook.delete()
    _refresh_events(merchant)


def emit(*, merchant: Merchant, kind: str, action: str, subject: str, payload: Any) -> int:
    """Write the event for each of the merchant's active webhooks that takes `kind`, in the
    caller's transaction. How many were written (0 without a query when none takes it)."""
    if kind not in (merchant.webhook_events or ()):
        return 0
    written = 0
    for hook in Webhook.objects.filter(merchant_id=merchant.pk, active=True):
        if kind in hook.events:
            _enqueue(hook, kind, action, subject, payload)
            written += 1
    return written


def _enqueue(hook: Webhook, kind: str, action: str, subject: str, payload: Any) -> None:
    outbox.enqueue(
        topic=f"{TOPIC}{hook.pk}",
        subject=subject,
        url=hook.url,
        body={"type": kind, "action": action, "payload": payload},
        sealing=f"{SEALING}:{hook.pk}",
    )


@transaction.atomic
def webhook_send_test(*, hook: Webhook) -> None:
    """A test event (type TEST), delivered and logged as any other."""
    _enqueue(hook, TEST, "CREATED", f"test-{secrets.token_hex(8)}", {"message": "a test event"})


def deliveries_of(merchant: Merchant) -> QuerySet[OutboxMessage]:
    """The merchant's webhook deliveries, newest first."""
    topics = [f"{TOPIC}{pk}" for pk in merchant.webhooks.values_list("pk", flat=True)]
    return outbox.messages_of_topics(topics)


# --- what is posted ---------------------------------------------------------------------------


def seal(reference: str, message: OutboxMessage) -> Sealed:
    """The message as its webhook posts it now (core.outbox's sealer for `webhook:<id>`)."""
    hook = Webhook.objects.filter(pk=reference).first()
    if hook is None:
        raise outbox.NotSendable("the webhook was deleted")
    if not hook.active:
        raise outbox.NotSendable("the webhook is switched off")
    key = bytes.fromhex(vault.decrypt(hook.secret_ciphertext, purpose=SECRET_PURPOSE))
    return encrypt(key, hook.key_id, message.event_id, message.body)


def encrypt(key: bytes, key_id: str, event_id: str, body: Any) -> Sealed:
    iv = os.urandom(12)
    plain = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    sealed = AESGCM(key).encrypt(iv, plain, None)
    ciphertext, tag = sealed[:-16], sealed[-16:]
    return Sealed(
        data=ciphertext.hex().encode(),
        headers={
            "Content-Type": "text/plain",
            "X-Initialization-Vector": iv.hex(),
            "X-Authentication-Tag": tag.hex(),
            "X-Webhook-Id": event_id,
            "X-Webhook-Key-Id": key_id,
        },
    )


def decrypt(secret_hex: str, body: bytes, iv_hex: str, tag_hex: str) -> Any:
    """What a receiver does (docs/api.md, "Webhooks"): the event back from a delivery."""
    plain = AESGCM(bytes.fromhex(secret_hex)).decrypt(
        bytes.fromhex(iv_hex), bytes.fromhex(body.decode()) + bytes.fromhex(tag_hex), None
    )
    return json.loads(plain)


HIDDEN_CARD_FIELDS = ("holder", "expiryMonth", "expiryYear")


def without_card_details(answer: dict[str, Any]) -> dict[str, Any]:
    """The API's answer as a webhook carries it: the card by BIN and last four only (no holder,
    no expiry), the merchant's settlement account number masked as its pages show it."""
    payload = {
        key: value
        for key, value in answer.items()
        if key not in {f"card.{name}" for name in HIDDEN_CARD_FIELDS}
    }
    card = payload.get("card")
    if isinstance(card, dict):
        payload["card"] = {k: v for k, v in card.items() if k not in HIDDEN_CARD_FIELDS}
    merchant = payload.get("merchant")
    if isinstance(merchant, dict) and isinstance(merchant.get("bankAccount"), dict):
        account = dict(merchant["bankAccount"])
        if account.get("number"):
            account["number"] = masked_account(str(account["number"]))
        payload["merchant"] = {**merchant, "bankAccount": account}
    return payload
