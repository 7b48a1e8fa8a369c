"""The janitor: resolves payments left IN_FLIGHT (a worker died between asking the network and
recording its answer, or the answer never came).

For every payment IN_FLIGHT for longer than the connector's timeout (beat runs this every
minute; `python manage.py resolve_in_flight` runs it by hand), the network is asked what became
of the request, by its reference, outside any transaction; the answer is then recorded exactly
as the request would have (engine.finalize: the same locks, the same settlement of the totals).
When the network cannot say, the payment is recorded as timed out (900.100.300) and:
- an authorization (PA, DB, CD, CV) is reversed at the network with transactionSource TIMEOUT
  (an RV of its own, reference TIMEOUT + the payment's id), so no hold stays on the card; once
  approved, the payment answers 900.100.301 with the reversal's id (referenced.settle);
- a referenced operation's reservation is released (nothing was captured or refunded here).
Over the ISO 8583 link (which has no inquiry) a capture or refund is asked about by sending it
again as a repeat, which the network answers as it answered the first, or takes now
(iso_link.inquire). One the network leaves unanswered, or cannot be sent, stays in flight with
its amount reserved and is repeated at each run: the network may have done it. Only after
PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS is it booked timed out, with an error logged to reconcile it
by hand.
A payment finalized meanwhile (the request's own finalize won) is left as it is.
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core import cards, idempotency, metrics
from core.pools import give_back_for_a_wait

from .. import results as payment_results
from ..connectors.base import AuthRequest, ConnectorUnavailable, NetworkAnswer, ReferenceRequest
from ..connectors.remote import get_connector
from ..connectors.routing import connector_for
from ..models import REFERENCED_TYPES, Payment, PaymentState, TransactionSource
from . import engine, network, referenced
from .types import Caller

logger = logging.getLogger(__name__)


@dataclass
class Resolution:
    resolved: int = 0  # finalized with the network's answer
    reversed: int = 0  # the network could not say: timed out and reversed (or released)
    skipped: int = 0  # the network could not be asked now: left for the next run


def payment_resolve_in_flight(
    *, now: datetime | None = None, older_than: timedelta | None = None, batch: int = 200
) -> Resolution:
    """Resolve IN_FLIGHT payments older than the connector's timeout (or `older_than`)."""
    connector = get_connector()
    cutoff = (now or timezone.now()) - (
        older_than if older_than is not None else timedelta(seconds=connector.timeout)
    )
    due = list(
        Payment.objects.filter(state=PaymentState.IN_FLIGHT, in_flight_since__lte=cutoff)
        .order_by("in_flight_since")
        .values_list("pk", flat=True)[:batch]
    )
    outcome = Resolution()
    for payment_id in due:
        payment = Payment.objects.select_related("referenced", "merchant").get(pk=payment_id)
        if payment.state != PaymentState.IN_FLIGHT:
            continue
        asked, request = connector_for(payment), _request_of(payment)
        give_back_for_a_wait()  # no database connection held while the network is asked
        try:
            answer = asked.inquire(request)
        except ConnectorUnavailable:
            if not _given_up(payment, now or timezone.now()):
                outcome.skipped += 1
                continue
            logger.error(
                "janitor: %s %s in flight since %s, never answered by the network: booked timed "
                "out and its amount released; reconcile it with the network's records",
                payment.payment_type,
                payment.pk,
                payment.in_flight_since,
            )
            answer = None
        claim = _claim_of(payment)
        if answer is not None:
            engine.finalize(claim, answer=answer)
            outcome.resolved += 1
            continue
        finished = engine.finalize(claim, answer=NetworkAnswer(payment_results.TIMEOUT_UNCERTAIN))
        if finished.result_code == payment_results.TIMEOUT_UNCERTAIN.code:
            if payment.payment_type not in REFERENCED_TYPES:
                _reverse(finished)
            outcome.reversed += 1
    metrics.janitor_resolved(
        resolved=outcome.resolved, reversed=outcome.reversed, skipped=outcome.skipped
    )
    return outcome


def _given_up(payment: Payment, now: datetime) -> bool:
    """A capture, refund or reversal the network has left unanswered, every time it was asked
    again, for PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS: booked timed out rather than held for ever."""
    hours = settings.PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS
    return (
        payment.payment_type in REFERENCED_TYPES
        and payment.in_flight_since is not None
        and payment.in_flight_since <= now - timedelta(hours=hours)
    )


def _request_of(payment: Payment) -> AuthRequest | ReferenceRequest:
    """The request the payment made, as the network knows it (by reference)."""
    if payment.payment_type in REFERENCED_TYPES:
        assert payment.referenced is not None
        return network.reference_request(payment, payment.referenced)
    pan = cards.decrypt_pan(payment.pan_ciphertext)
    return network.authorization_request(payment, pan=pan)


def _claim_of(payment: Payment) -> engine.Claim:
    if payment.payment_type in REFERENCED_TYPES:
        assert payment.referenced is not None
        original = payment.referenced
        return engine.Claim(
            payment, settle=referenced.settle, related=referenced.related_to(original)
        )
    return engine.Claim(payment, settle=network.settle_authorization)


def _reverse(payment: Payment) -> None:
    """Reverse a timed-out authorization at the network (transactionSource TIMEOUT)."""
    reference = f"TIMEOUT{payment.pk[:25]}"
    referenced.payment_reverse(
        caller=Caller(payment.entity, payment.entity_type, payment.merchant, payment.terminal),
        reference=reference,
        request_hash=idempotency.fingerprint({"timeoutReversalOf": payment.pk}),
        original_id=payment.pk,
        source=TransactionSource.TIMEOUT,
    )
