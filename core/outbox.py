"""The outbox: outbound notifications that are never lost and never sent for a change that
rolled back.

`enqueue` writes the message in the caller's transaction and, after commit, hands it to the
dispatcher (the task queue registers one: `core.tasks.hand_over`, from core.apps; this module
knows nothing of Celery). `deliver` takes a due message in a short transaction (the row locked
with SKIP LOCKED, its attempt counted and its next attempt moved a lease ahead, so a worker
killed during the call leaves it due again later), posts it outside any transaction, and records
the attempt: a 2xx acknowledges it; anything else, a timeout or a refused connection schedules
the next attempt from NOTIFICATION_RETRY_SCHEDULE and, after commit, hands the message over again
for that moment; after the schedule's last wait and one more refused attempt the message is
FAILED. A handed-over delivery names the attempts made before it (`deliver_when_due`): a copy
whose attempt was made meanwhile does nothing, one that arrives before its time is handed over
again for that time. `sweep` (beat, every NOTIFICATION_SWEEP_SECONDS, and `manage.py
notifications_deliver`) delivers whatever is due, so a lost hand-over only delays a message by
at most the sweep's period. Delivery is at least once: receivers drop duplicates by event id;
a message is acknowledged (DELIVERED) once.

Headers: `Authorization: Bearer <the entity's access token>` (resolved at delivery time by the
app that owns the credentials, `register_credentials`), `X-Event-Id`, `X-Event-Sequence`. A
sealed message (`sealing`, e.g. a merchant's webhook) carries no token: the app that registered
its sealer (`register_sealer`) turns the body into what is posted and its headers at each attempt
(encrypted with the webhook's secret of that moment).
"""

import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Min, QuerySet
from django.utils import timezone

from . import metrics, outbound
from .lock_objects import outbox_due_lock, outbox_message_lock
from .models import DeliveryAttempt, OutboxMessage, OutboxStatus

logger = logging.getLogger("core.outbox")
# The operating system's reason inside requests' message ("[Errno 111] Connection refused").
_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\")]+)")


class Dispatcher(Protocol):
    def __call__(self, event_id: str, *, attempts: int, eta: datetime | None) -> None:
        """Run `deliver_when_due(event_id, after_attempts=attempts)` at `eta` (None: now)."""


_credentials: Callable[[str], str] | None = None
_dispatcher: Dispatcher | None = None


class Sealed(Protocol):
    @property
    def data(self) -> bytes: ...

    @property
    def headers(self) -> dict[str, str]: ...


Sealer = Callable[[str, "OutboxMessage"], Sealed]
_sealers: dict[str, Sealer] = {}


class NotSendable(Exception):
    """A sealer's refusal (its webhook is gone or switched off): nothing is posted, and the
    message is FAILED at once (no retry can change it; staff may still deliver it again)."""


NOT_SENT = "not sent: "  # a NotSendable attempt's error


def register_sealer(name: str, sealer: Sealer) -> None:
    """The app whose messages are sealed (`sealing` = `<name>:<reference>`) says how: from the
    reference and the message to what is posted and its headers."""
    _sealers[name] = sealer


def register_credentials(resolver: Callable[[str], str]) -> None:
    """The app that keeps access tokens says how to find the one of a credential reference."""
    global _credentials
    _credentials = resolver


def register_dispatcher(dispatcher: Dispatcher) -> None:
    """The task queue says how to run a delivery later (core.apps registers core.tasks')."""
    global _dispatcher
    _dispatcher = dispatcher


def schedule() -> list[int]:
    """Seconds to wait before each retry (the first delivery is at once)."""
    return list(settings.NOTIFICATION_RETRY_SCHEDULE)


def enqueue(
    *,
    topic: str,
    subject: str,
    url: str,
    credential: str = "",
    body: dict[str, Any],
    sealing: str = "",
) -> OutboxMessage:
    """Write a notification in the current transaction; delivered once it commits. The body
    gets `eventId` and `sequence` (per topic and subject). With `sealing`, posted as its sealer
    makes it instead of JSON with a token."""
    assert transaction.get_connection().in_atomic_block, "enqueue in the change's transaction"
    last = OutboxMessage.objects.filter(topic=topic, subject=subject).aggregate(n=Max("sequence"))
    sequence = (last["n"] or 0) + 1
    event_id = uuid.uuid4().hex
    message = OutboxMessage.objects.create(
        event_id=event_id,
        topic=topic,
        subject=subject,
        sequence=sequence,
        url=url,
        credential=credential,
        sealing=sealing,
        body={**body, "eventId": event_id, "sequence": sequence},
        next_attempt_at=timezone.now(),
    )
    transaction.on_commit(lambda: _hand_over(event_id, attempts=0))
    return message


def _hand_over(event_id: str, *, attempts: int, eta: datetime | None = None) -> None:
    """After commit: the dispatcher runs the delivery that follows `attempts` attempts at `eta`.
    Whatever goes wrong here only delays the message until the sweep finds it due."""
    if _dispatcher is None:
        logger.warning("notification %s: no dispatcher registered; the sweep delivers it", event_id)
        return
    try:
        _dispatcher(event_id, attempts=attempts, eta=eta)
    except Exception:  # noqa: BLE001 - the broker is down: the sweep delivers it later
        logger.warning("notification %s not handed over; the sweep delivers it", event_id)


def deliver(event_id: str, *, now: datetime | None = None) -> str:
    """One attempt of a due message: "delivered", "retry", "failed", or "not due" (someone
    else has it, or it is done, or its time has not come)."""
    moment = now or timezone.now()
    with transaction.atomic():
        message = outbox_due_lock(event_id=event_id, now=moment)
        if message is None:
            return "not due"
        message.attempts += 1
        message.next_attempt_at = moment + timedelta(seconds=settings.NOTIFICATION_LEASE_SECONDS)
        message.save(update_fields=["attempts", "next_attempt_at"])
    status, latency, excerpt, error = _post(message)
    final = error.startswith(NOT_SENT)
    with transaction.atomic():
        message = outbox_message_lock(event_id)
        DeliveryAttempt.objects.create(
            message=message,
            attempted_at=moment,
            http_status=status,
            latency_ms=latency,
            excerpt=excerpt,
            error=error,
        )
        if message.status != OutboxStatus.PENDING:
            metrics.notification_attempted("not due")
            return "not due"  # redelivered or settled meanwhile
        if status is not None and 200 <= status < 300:
            message.status = OutboxStatus.DELIVERED
            message.delivered_at = timezone.now()
            outcome = "delivered"
        elif final or message.attempts > len(schedule()):
            message.status = OutboxStatus.FAILED
            outcome = "failed"
        else:
            wait = schedule()[message.attempts - 1]
            message.next_attempt_at = retry_at = moment + timedelta(seconds=wait)
            attempts = message.attempts
            outcome = "retry"
            transaction.on_commit(lambda: _hand_over(event_id, attempts=attempts, eta=retry_at))
        message.save(update_fields=["status", "delivered_at", "next_attempt_at"])
    logger.info(
        "notification %s attempt %d: %s (HTTP %s)", event_id, message.attempts, outcome, status
    )
    metrics.notification_attempted(outcome)
    return outcome


def deliver_when_due(event_id: str, *, after_attempts: int, now: datetime | None = None) -> str:
    """The delivery handed over after `after_attempts` attempts (the dispatcher's task). A copy
    whose attempt was made meanwhile (a duplicate task, or the sweep came first) or whose message
    is settled does nothing ("not due"); one that arrives before the message's time (clock skew
    between hosts, a timer that fired early) is handed over again for that time ("not due");
    otherwise one attempt (`deliver`)."""
    moment = now or timezone.now()
    row = (
        OutboxMessage.objects.filter(pk=event_id)
        .values("status", "attempts", "next_attempt_at")
        .first()
    )
    if row is None or row["status"] != OutboxStatus.PENDING or row["attempts"] != after_attempts:
        return "not due"
    if row["next_attempt_at"] > moment:
        _hand_over(event_id, attempts=after_attempts, eta=row["next_attempt_at"])
        return "not due"
    return deliver(event_id, now=moment)


def _post(message: OutboxMessage) -> tuple[int | None, int, str, str]:
    """(HTTP status or None, latency in ms, the answer's first characters, the error). Through
    core.outbound: no redirect followed (a 3xx is a failed attempt), the URL and the address it
    resolves to checked at this moment (a refused one is a failed attempt with no request)."""
    started = time.monotonic()
    headers = {
        "X-Event-Id": message.event_id,
        "X-Event-Sequence": str(message.sequence),
        "User-Agent": "cardplatform-notifications/1",
    }
    try:
        if message.sealing:
            name, _, reference = message.sealing.partition(":")
            sealed = _sealers[name](reference, message)
            content: dict[str, Any] = {"data": sealed.data}
            headers.update(sealed.headers)
        else:
            assert _credentials is not None, "no credentials resolver registered"
            content = {"json": message.body}
            headers["Authorization"] = f"Bearer {_credentials(message.credential)}"
        answer = outbound.call(
            "POST",
            message.url,
            headers=headers,
            timeout=settings.NOTIFICATION_TIMEOUT_SECONDS,
            max_bytes=200,
            **content,
        )
    except NotSendable as exc:
        return None, _ms(started), "", f"{NOT_SENT}{exc}"[:200]
    except outbound.Refused as exc:
        logger.warning("notification %s not sent: %s", message.event_id, exc)
        return None, _ms(started), "", f"refused: {exc}"[:200]
    except (requests.RequestException, OSError, ValueError) as exc:
        return None, _ms(started), "", _reason(exc)[:200]
    text = answer.body[:200].decode("utf-8", "replace")
    if answer.redirected:
        where = urlsplit(answer.location).netloc or answer.location or "nowhere"
        logger.warning(
            "notification %s: HTTP %s redirect to %s not followed",
            message.event_id,
            answer.status,
            where[:100],
        )
        return answer.status, _ms(started), text, f"redirect to {where} not followed"[:200]
    return answer.status, _ms(started), text, ""


def _reason(exc: Exception) -> str:
    """What went wrong, without the URL (requests' messages repeat it, query string and all)."""
    if isinstance(exc, requests.Timeout):
        return "timed out"
    if isinstance(exc, requests.exceptions.SSLError):
        return "TLS handshake failed (certificate not trusted or not for this host)"
    if isinstance(exc, requests.ConnectionError):
        cause = _ERRNO.search(str(exc))
        return f"connection failed: {cause.group(1)}" if cause else "connection failed"
    return exc.__class__.__name__


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def due(*, now: datetime | None = None, batch: int = 500) -> list[str]:
    moment = now or timezone.now()
    return list(
        OutboxMessage.objects.filter(status=OutboxStatus.PENDING, next_attempt_at__lte=moment)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:batch]
    )


def sweep(*, now: datetime | None = None, batch: int = 500) -> Iterator[str]:
    """Deliver what is due (beat and the command): yields each attempt's outcome."""
    for event_id in due(now=now, batch=batch):
        yield deliver(event_id, now=now)


def redeliver(*, event_id: str, actor: str) -> OutboxMessage:
    """Bank staff (or, later, the merchant) ask for another delivery now: a FAILED or DELIVERED
    message becomes PENDING and due, its event id and sequence unchanged."""
    with transaction.atomic():
        message = outbox_message_lock(event_id)
        message.status = OutboxStatus.PENDING
        message.next_attempt_at = timezone.now()
        message.attempts = 0
        message.save(update_fields=["status", "next_attempt_at", "attempts"])
        transaction.on_commit(lambda: _hand_over(event_id, attempts=0))
    return message


def messages_of_topics(topics: list[str]) -> QuerySet[OutboxMessage]:
    """The messages of these topics (an app's webhooks), newest first."""
    return OutboxMessage.objects.filter(topic__in=topics).order_by("-created_at", "-pk")


def message_list_for_credential(*, credential: str) -> QuerySet[OutboxMessage]:
    """The messages delivered with `credential`'s access token (an app's notifications to one
    of its own, e.g. a merchant's to its entity), newest first."""
    return OutboxMessage.objects.filter(credential=credential).order_by("-created_at", "-pk")


def depth_by_status() -> list[metrics.Sample]:
    """The number of messages in each status (the metrics' outbox depth)."""
    counts = dict(OutboxMessage.objects.order_by().values_list("status").annotate(n=Count("pk")))
    return [((status,), counts.get(status, 0)) for status in OutboxStatus.values]


def oldest_pending_age(*, now: datetime | None = None) -> list[metrics.Sample]:
    """Seconds since the oldest PENDING message was written (0 when none)."""
    oldest = OutboxMessage.objects.filter(status=OutboxStatus.PENDING).aggregate(
        at=Min("created_at")
    )["at"]
    age = ((now or timezone.now()) - oldest).total_seconds() if oldest else 0.0
    return [((), max(age, 0.0))]
