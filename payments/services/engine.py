"""The payment engine: claim, ask the network outside any transaction, finalize.

1. Claim (one short transaction): the payment row is inserted IN_FLIGHT; the unique (merchant,
   merchantTransactionId) index claims the reference, so a duplicate (a replay or a concurrent
   twin) fails on it and is answered from the stored row through core's one replay path
   (`core.idempotency.once`): the same answer for the same parameters, 800.110.100 for others;
   a retry of a request still IN_FLIGHT answers that it is in progress (000.200.100) and never
   asks the network again. In the same transaction a referenced operation reserves its amount on
   the original under its row lock, and everything that needs no network is decided: a refusal
   (merchant state, workflow, risk) or a 3-D Secure redirect ends the claim answered.
2. Ask a remote network (connectors.base) with its timeout, outside any transaction: a worker
   that dies here leaves a committed IN_FLIGHT row, no lock held, and the janitor resolves it
   (janitor.py). No answer in time: the client is told the payment is in progress. A network
   that cannot be reached (nothing was sent) declines it at once with 900.100.600.
3. Finalize (a second short transaction): the payment and its originals locked in primary-key
   order; approval moves the reservation to the totals, a decline releases it; the answer is
   stored. A local connector (the on-us one) is asked here, under the same locks.

Both transactions are `durable`: the use cases cannot run inside a caller's transaction, so the
network call between them is never inside one.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from core import idempotency, metrics
from core.lookups import one
from core.pools import give_back_for_a_wait
from core.results import TRANSACTION_SUCCEEDED, Result
from merchants import webhooks

from .. import results as payment_results
from ..connectors.base import (
    Connector,
    ConnectorUnavailable,
    NetworkAnswer,
    NetworkUnreachable,
)
from ..connectors.routing import connector_for
from ..models import PAYMENT_STATE, Payment, PaymentState
from ..registrations.instructions import standing_data
from ..render import payment_body
from .lock_objects import ANSWERED, ANSWERED_IF_IN_FLIGHT, CLAIM, payments_lock, state_lock
from .trace import trace_ids
from .types import Caller, Details, Money, PaymentOutcome

PENDING_CODE = "000.200.000"

Ask = Callable[[Connector, Payment], NetworkAnswer]
Settle = Callable[[Payment, dict[str, Payment], NetworkAnswer], None]


def _nothing_to_settle(payment: Payment, locked: dict[str, Payment], answer: NetworkAnswer) -> None:
    return None


@dataclass
class Claim:
    """What the claim transaction left: the payment, and unless it is answered already, what to
    ask the network and how its answer settles the totals (under the finalize locks)."""

    payment: Payment
    ask: Ask | None = None
    settle: Settle = _nothing_to_settle
    related: list[str] = field(default_factory=list)  # originals to lock at finalize
    base_url: str = ""


def submit(
    *, caller: Caller, reference: str, request_hash: str, claim: Callable[[], Claim]
) -> PaymentOutcome:
    """Claim (replaying a known reference), then ask the network and finalize."""

    def replayed(existing: Payment) -> PaymentOutcome:
        stored = idempotency.replay(
            stored_hash=existing.request_hash,
            stored_body=answer_of(existing),
            request_hash=request_hash,
        )
        return PaymentOutcome(stored.body, replayed=True, payment=existing)

    claimed = idempotency.once(
        find=lambda: one(
            Payment.objects.filter(merchant=caller.merchant, merchant_transaction_id=reference)
        ),
        run=claim,
        replayed=replayed,
        durable=True,
        look_first=False,  # the claim's insert is the look-up: a new reference costs no query
    )
    if isinstance(claimed, PaymentOutcome):
        return claimed
    payment = complete(claimed)
    return PaymentOutcome(answer_of(payment, base_url=claimed.base_url), payment=payment)


def answer_of(payment: Payment, *, base_url: str = "") -> dict[str, object]:
    """The stored answer; a payment in flight has none yet and answers "in progress"."""
    if payment.state == PaymentState.IN_FLIGHT:
        return payment_body(payment, base_url=base_url)
    return payment.response_body


def complete(claimed: Claim) -> Payment:
    """Steps 2 and 3 for a claimed payment (also after a 3-D Secure authentication)."""
    if claimed.ask is None:
        return claimed.payment
    connector = connector_for(claimed.payment)
    if not connector.remote:
        return finalize(claimed, connector=connector)
    give_back_for_a_wait()  # no PostgreSQL connection held while the network takes its time
    try:
        answer = claimed.ask(connector, claimed.payment)
    except NetworkUnreachable:  # nothing was sent: declined at once, a reservation released
        answer = NetworkAnswer(payment_results.NETWORK_UNAVAILABLE)
    except ConnectorUnavailable:
        return claimed.payment  # IN_FLIGHT, answered "in progress"; the janitor resolves it
    return finalize(claimed, answer=answer)


class _AnsweredMeanwhile(Exception):
    """The payment left IN_FLIGHT before this finalize wrote it: roll the finalize back."""


def finalize(
    claimed: Claim, *, answer: NetworkAnswer | None = None, connector: Connector | None = None
) -> Payment:
    """Record the network's answer under the locks of the payment and its originals. A payment
    no longer IN_FLIGHT (the janitor resolved it meanwhile) keeps what it has.

    A payment with no originals and the network's answer in hand (a PA, DB, CD or CV of a remote
    connector) is not locked first: the answer's UPDATE is the lock, written only while the row
    is still IN_FLIGHT (`finish(..., in_flight_only=True)`); when it is not, the transaction is
    rolled back, what `settle` wrote with it, and the stored payment kept. One statement less
    than a locked read and the UPDATE."""
    payment = claimed.payment
    try:
        with transaction.atomic(durable=True):
            unlocked = not claimed.related and answer is not None
            if claimed.related:
                locked = payments_lock([payment.pk, *claimed.related])
                state = locked.pop(payment.pk).state
                for original in locked.values():
                    if original.referenced_id in locked:
                        original.referenced = locked[original.referenced_id]
            elif unlocked:
                locked, state = {}, PaymentState.IN_FLIGHT  # checked by the UPDATE itself
            else:  # a local connector asks under the payment's lock
                locked, state = {}, state_lock(payment.pk)
            if state != PaymentState.IN_FLIGHT:
                return Payment.objects.get(pk=payment.pk)  # answered meanwhile: keep that
            # Still in flight: nobody else has written the row since the claim, so the claimed
            # object (its merchant already loaded) is current.
            if answer is None:
                assert connector is not None and claimed.ask is not None
                answer = claimed.ask(connector, payment)
            claimed.settle(payment, locked, answer)
            return finish(payment, answer, base_url=claimed.base_url, in_flight_only=unlocked)
    except _AnsweredMeanwhile:
        return Payment.objects.get(pk=payment.pk)


def claim(
    *,
    caller: Caller,
    payment_type: str,
    reference: str,
    request_hash: str,
    money: Money | None,
    details: Details,
    currency: str | None = None,
    **fields: object,
) -> Payment:
    """Insert the row that claims merchantTransactionId, IN_FLIGHT (before the network).
    `currency` when there is no amount (a whole reversal is in the original's)."""
    payment = Payment(
        merchant=caller.merchant,
        terminal=caller.terminal,
        entity=caller.entity,
        entity_type=caller.entity_type,
        payment_type=payment_type,
        merchant_transaction_id=reference,
        request_hash=request_hash,
        amount=money.amount if money else None,
        currency=currency if currency is not None else (money.currency if money else ""),
        tax_amount=details.tax_amount,
        transaction_source=details.transaction_source,
        transaction_category=details.transaction_category,
        descriptor=details.descriptor,
        merchant_invoice_id=details.merchant_invoice_id,
        merchant_memo=details.merchant_memo,
        checkout_type=details.checkout_type,
        validity_period_ms=details.validity_period_ms,
        data=_stored_data(details),
        test_mode=caller.merchant.in_test_mode,
        **fields,
    )
    claimed_at = mark_in_flight(payment)
    payment.stan, payment.retrieval_ref_no = trace_ids(claimed_at)  # the acquirer's
    return CLAIM.insert(payment)


def _stored_data(details: Details) -> dict[str, object]:
    """The data groups as the payment keeps them, with createRegistration and the standing
    instruction (typed in `details`), which the finalize and the network read."""
    data = dict(details.data)
    if details.create_registration:
        data["createRegistration"] = "true"
    if details.standing is not None:
        for name, value in standing_data(details.standing).items():
            data.setdefault(name, value)  # as sent, when the API sent it
    return data


def mark_in_flight(payment: Payment) -> datetime:
    """In flight until the network's answer is recorded: a replay or an inquiry meanwhile
    answers "in progress" (rendered when asked: nothing is stored until the answer). Since
    when."""
    payment.state = PaymentState.IN_FLIGHT
    payment.in_flight_since = now = timezone.now()
    payment.result_code = payment_results.IN_PROGRESS.code
    payment.result_description = payment_results.IN_PROGRESS.description
    payment.response_body = {}
    return now


# The network's answer, as `finish` records it.
ANSWER_FIELDS = (
    "auth_code",
    "acquirer_response",
    "avs_response",
    "cvv_response",
    "mac_response",
    "stan",
    "retrieval_ref_no",
    "acquirer_ref_no",
    "network_reference",
    "clearing_institute",
)
# What a claim's transaction or the finalize may have changed since the row was inserted.
FINISH_FIELDS = (
    "state",
    "in_flight_since",
    "successful",
    "result_code",
    "result_description",
    "response_body",
    "captured_amount",  # an approved DB, a CP
    "currency",  # a whole reversal takes the original's
    "risk_score",
    "risk_decision",
    "threeds_started",
    "registration",  # stored by an approved createRegistration
    "standing_instruction",  # the chain an approved CIT set up
    *ANSWER_FIELDS,
)


def finish(
    payment: Payment, answer: NetworkAnswer, *, base_url: str = "", in_flight_only: bool = False
) -> Payment:
    """Record the network's (or a refusal's) answer on the payment and store the response.
    `in_flight_only`: written only if the row is still IN_FLIGHT (the caller holds no lock on
    it; `_AnsweredMeanwhile` when it is not, inside the caller's transaction)."""
    for name in ANSWER_FIELDS:
        setattr(payment, name, getattr(answer, name))
    payment.successful = answer.approved
    target = PaymentState.PENDING if answer.result.is_pending else PaymentState.DONE
    if payment.state != target:
        PAYMENT_STATE.check(payment.state, target)
        payment.state = target
    payment.in_flight_since = None
    result = answer.result
    if payment.test_mode and result == TRANSACTION_SUCCEEDED:
        result = payment_results.TEST_MODE_SUCCEEDED  # a merchant in connector test mode
    payment.result_code = result.code
    payment.result_description = answer.extended_description or result.description
    payment.response_body = payment_body(payment, base_url=base_url)
    if in_flight_only:
        written = ANSWERED_IF_IN_FLIGHT.update(payment, payment.pk, PaymentState.IN_FLIGHT.value)
        if not written:
            raise _AnsweredMeanwhile(payment.pk)
    elif not ANSWERED.update(payment, payment.pk):  # save(update_fields=...)'s refusal
        raise DatabaseError("Save with update_fields did not affect any rows.")
    metrics.payment_answered(
        payment_type=payment.payment_type, code=result.code, connector=connector_name(answer)
    )
    if target == PaymentState.DONE:  # its final answer: the merchant's webhooks are told
        tell_webhooks(payment, "CREATED")
    return payment


def tell_webhooks(payment: Payment, action: str) -> None:
    """The payment's stored answer to the merchant's webhooks that take payments (in the
    caller's transaction; nothing is looked up for a merchant without such webhooks)."""
    webhooks.emit(
        merchant=payment.merchant,
        kind="PAYMENT",
        action=action,
        subject=payment.pk,
        payload=webhooks.without_card_details(payment.response_body),
    )


def connector_name(answer: NetworkAnswer) -> str:
    """Who answered, as the metrics name it: `on-us` (the platform's own issuer), `simulator`
    (the network), or `none` (the platform's own refusal: no connector was asked)."""
    if not answer.clearing_institute:
        return "none"
    return "on-us" if answer.clearing_institute == settings.ISSUER_NAME else "simulator"


def finish_with(payment: Payment, result: Result, *, base_url: str = "") -> Payment:
    """Answer a payment with a code of ours (a refusal: merchant state, workflow, risk; or
    pending while 3-D Secure runs)."""
    return finish(payment, NetworkAnswer(result), base_url=base_url)
