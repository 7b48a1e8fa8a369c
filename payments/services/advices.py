"""Reversal advices owed to the network (ISO 8583 0420/0421, acknowledged by 0430).

Over the ISO 8583 link a payment whose answer never came (or came after the timeout, when nothing
waits for it any more) cannot be asked about: ISO 8583 has no inquiry. The acquirer reverses it
on its own word: the janitor's TIMEOUT reversal is approved at once (iso_link.advice_owed) and
its finalize writes a `ReversalAdvice` row in the same transaction (`owe`). The network is then
told, by `send_owed`, until it acknowledges:

- one advice at a time is leased in a short transaction (SELECT ... FOR UPDATE SKIP LOCKED, its
  attempt counted, `leased_until` past the connector's timeout), so two senders never send one
  advice at once, and a sender that dies leaves it due again when the lease runs out;
- it is sent outside any transaction, with no database connection held: 0420 the first time,
  0421 (a repeat) after;
- a 0430 ends it (ACKNOWLEDGED, with its field 39), except an answer that asks for it again
  (TRY_AGAIN: 91, 92, 96); no answer, a link that is down, or an advice that cannot be sent
  leaves it owed, its next attempt after RETRY_SECONDS[attempts] (the last one repeats: for
  ever, until acknowledged; docs/runbook.md, "Reversal advices piling up"). Only the sender
  whose lease holds (the attempts it counted) writes the outcome.

beat runs `send_owed` every `PAYMENTS_ADVICE_SWEEP_SECONDS`, and a new advice asks a worker at
once (on commit). Nothing of the card is in a row, a task's arguments or a log line: the advice
is rebuilt from the payments it names (BIN and last four only).
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import metrics
from core.pools import give_back_for_a_wait

from ..connectors.base import ConnectorUnavailable
from ..models import Payment, ReversalAdvice
from ..selectors import reversal_advices_outstanding
from . import network
from .lock_objects import advices_due_lock

logger = logging.getLogger(__name__)

# Seconds before the next attempt, by attempts made (the last one repeats).
RETRY_SECONDS = (0, 10, 30, 60, 120, 300)
# Answers of a 0430 that say the network could not take it now (issuer or switch unavailable,
# routing failed): the advice stays owed and is sent again.
TRY_AGAIN = frozenset({"91", "92", "96"})


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

    try:  # by name (payments.tasks imports the services), its module loaded as a worker does
        if "payments.send_reversal_advices" not in current_app.tasks:
            current_app.loader.import_default_modules()
        current_app.tasks["payments.send_reversal_advices"].delay()
    except Exception:  # the broker is down: beat's sweep sends it
        logger.warning("reversal advice: could not ask a worker; beat's sweep will send it")


def send_owed(*, now: datetime | None = None, batch: int = 100) -> AdviceRun:
    """Send the advices due by `now` (0420, or 0421 when repeated), one at a time, each leased
    while it is sent; mark those the network acknowledges. At most `batch` advices."""
    from ..connectors.iso_link import Iso8583Connector

    run = AdviceRun()
    if not settings.PAYMENTS_NETWORK_URL:
        if reversal_advices_outstanding():
            logger.error("reversal advices owed, but no network link is set (PAYMENTS_NETWORK_URL)")
        return run
    connector = Iso8583Connector()
    due_by = now or timezone.now()
    tried: set[str] = set()  # each advice once a run, whatever `due_by`
    for _ in range(batch):
        advice = _lease(due_by, lease=connector.timeout + 5, besides=tried)
        if advice is None:
            break
        tried.add(advice.pk)
        reversal = advice.reversal
        assert reversal.referenced is not None
        give_back_for_a_wait()  # no database connection held while the network is asked
        try:
            request = network.reference_request(reversal, reversal.referenced)
            code = connector.advise(request, repeat=advice.attempts > 1)
        except ConnectorUnavailable as exc:
            _failed(advice, str(exc))
            run.failed += 1
            continue
        except Exception as exc:  # one advice that cannot be sent must not stall the others
            logger.exception("reversal advice %s could not be sent", advice.pk)
            _failed(advice, f"could not be sent: {type(exc).__name__}")
            run.failed += 1
            continue
        if code in TRY_AGAIN:
            _failed(advice, f"the network answered {code}: try again")
            run.failed += 1
            continue
        _acknowledged(advice, code)
        run.acknowledged += 1
    metrics.reversal_advices(acknowledged=run.acknowledged, failed=run.failed)
    return run


def _lease(due_by: datetime, *, lease: float, besides: set[str]) -> ReversalAdvice | None:
    """The advice longest due, leased to this caller: its attempt counted and nobody else takes
    it for `lease` seconds (a sender that dies sending leaves it due again after that)."""
    with transaction.atomic(durable=True):
        clock = timezone.now()
        advice = advices_due_lock(due_by=due_by, now=clock, besides=besides)
        if advice is not None:
            advice.attempts += 1
            advice.leased_until = clock + timedelta(seconds=lease)
            advice.save(update_fields=["attempts", "leased_until"])
    return advice


def _ours(advice: ReversalAdvice) -> Any:
    """The advice's row while this caller's lease holds (no other sender counted an attempt)."""
    return ReversalAdvice.objects.filter(
        pk=advice.pk, state=ReversalAdvice.State.OWED, attempts=advice.attempts
    )


def _failed(advice: ReversalAdvice, error: str) -> None:
    wait = RETRY_SECONDS[min(advice.attempts, len(RETRY_SECONDS) - 1)]
    _ours(advice).update(
        next_attempt_at=timezone.now() + timedelta(seconds=wait),
        leased_until=None,
        last_error=error[:255],
    )
    logger.warning(
        "reversal advice %s not acknowledged (attempt %d): %s", advice.pk, advice.attempts, error
    )


def _acknowledged(advice: ReversalAdvice, code: str) -> None:
    ReversalAdvice.objects.filter(pk=advice.pk, state=ReversalAdvice.State.OWED).update(
        state=ReversalAdvice.State.ACKNOWLEDGED,
        acknowledged_at=timezone.now(),
        leased_until=None,
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
