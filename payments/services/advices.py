"""Reversal advices owed to the network (ISO 8583 0420/0421, acknowledged by 0430).

Over the ISO 8583 link a payment whose answer never came (or came after the timeout, when nothing
waits for it any more) cannot be asked about: ISO 8583 has no inquiry. The acquirer reverses it
on its own word: the janitor's TIMEOUT reversal is approved at once (iso_link.advice_owed) and
its finalize writes a `ReversalAdvice` row in the same transaction (`owe`). The network is then
told, by `send_owed`, until it acknowledges:

- due rows are leased in a short transaction (SELECT ... FOR UPDATE SKIP LOCKED, their next
  attempt moved past the connector's timeout), so two workers never send one advice at once;
- each is sent outside any transaction: 0420 the first time, 0421 (a repeat) after;
- a 0430 ends it (ACKNOWLEDGED, with its field 39); no answer, or a link that is down, leaves it
  owed, its next attempt after RETRY_SECONDS[attempts] (the last one repeats: for ever, until
  acknowledged; docs/runbook.md, "Reversal advices piling up").

beat runs `send_owed` every `PAYMENTS_ADVICE_SWEEP_SECONDS`, and a new advice asks a worker at
once (on commit). Nothing of the card is in a row, a task's arguments or a log line: the advice
is rebuilt from the payments it names (BIN and last four only).
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import metrics

from ..connectors.base import ConnectorUnavailable
from ..models import Payment, ReversalAdvice
from ..selectors import reversal_advices_outstanding
from . import network
from .lock_objects import advices_due_lock

logger = logging.getLogger(__name__)

# Seconds before the next attempt, by attempts made (the last one repeats).
RETRY_SECONDS = (0, 10, 30, 60, 120, 300)


@dataclass
class AdviceRun:
    acknowledged: int = 0
    failed: int = 0  # sent, or tried, and not acknowledged: owed still


def owe(reversal: Payment) -> ReversalAdvice:
    """Record that the network is owed an advice of `reversal` (inside its finalize), and ask a
    worker to send it once that commits."""
    advice = ReversalAdvice.objects.create(reversal=reversal, next_attempt_at=timezone.now())
    transaction.on_commit(_send_soon)
    return advice


def _send_soon() -> None:
    from celery import current_app

    try:  # by name: payments.tasks imports the services
        current_app.tasks["payments.send_reversal_advices"].delay()
    except Exception:  # the broker is down: beat's sweep sends it
        logger.warning("reversal advice: could not ask a worker; beat's sweep will send it")


def send_owed(*, now: datetime | None = None, batch: int = 100) -> AdviceRun:
    """Send the advices due by `now` (0420, or 0421 when repeated); mark those acknowledged."""
    from ..connectors.iso_link import Iso8583Connector

    run = AdviceRun()
    if not settings.PAYMENTS_NETWORK_URL:
        if reversal_advices_outstanding():
            logger.error("reversal advices owed, but no network link is set (PAYMENTS_NETWORK_URL)")
        return run
    connector = Iso8583Connector()
    for advice in _lease(now or timezone.now(), batch, lease=connector.timeout + 5):
        reversal = advice.reversal
        assert reversal.referenced is not None
        request = network.reference_request(reversal, reversal.referenced)
        try:
            code = connector.advise(request, repeat=advice.attempts > 1)
        except ConnectorUnavailable as exc:
            _failed(advice, str(exc))
            run.failed += 1
            continue
        _acknowledged(advice, code)
        run.acknowledged += 1
    metrics.reversal_advices(acknowledged=run.acknowledged, failed=run.failed)
    return run


def _lease(now: datetime, batch: int, *, lease: float) -> list[ReversalAdvice]:
    """The due advices, each leased to this caller: its attempt counted and its next attempt
    moved past what sending it may take (a worker that dies sending leaves it due again)."""
    with transaction.atomic(durable=True):
        due = advices_due_lock(now=now, batch=batch)
        leased_until = timezone.now() + timedelta(seconds=lease)  # the clock's, not `now`
        for advice in due:
            advice.attempts += 1
            advice.next_attempt_at = leased_until
            advice.save(update_fields=["attempts", "next_attempt_at"])
    return due


def _failed(advice: ReversalAdvice, error: str) -> None:
    wait = RETRY_SECONDS[min(advice.attempts, len(RETRY_SECONDS) - 1)]
    ReversalAdvice.objects.filter(pk=advice.pk, state=ReversalAdvice.State.OWED).update(
        next_attempt_at=timezone.now() + timedelta(seconds=wait), last_error=error[:255]
    )
    logger.warning(
        "reversal advice %s not acknowledged (attempt %d): %s", advice.pk, advice.attempts, error
    )


def _acknowledged(advice: ReversalAdvice, code: str) -> None:
    ReversalAdvice.objects.filter(pk=advice.pk).update(
        state=ReversalAdvice.State.ACKNOWLEDGED,
        acknowledged_at=timezone.now(),
        response_code=code[:2],
        last_error="",
    )
    if code != "00":
        logger.error(
            "reversal advice %s acknowledged with response code %s: the network did not accept "
            "it; reconcile it by hand (docs/runbook.md)",
            advice.pk,
            code,
        )
