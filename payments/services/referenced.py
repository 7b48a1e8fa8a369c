"""CP, RV, RF and PR: operations against an original payment.

In the claim's transaction each locks the original (a CP's PA with it, in primary-key order;
lock_objects), claims its reference, checks the remaining amounts after the lock, counting what
operations in flight have reserved, and reserves its own amount on the original. The engine then
asks the network outside any transaction and, in the finalize transaction, under the same locks,
moves the reservation to the running totals (approved) or releases it (declined). Captures never
exceed the PA, refunds never exceed what was captured or debited, under any concurrency. The kind
of original is checked first, then the currency, then the amounts.
"""

from dataclasses import replace

from django.db import transaction
from django.utils import timezone

from core.results import Result, family_of

from .. import results as payment_results
from ..connectors.base import NetworkAnswer
from ..models import ZERO, Payment, PaymentState, PaymentType, TransactionSource
from ..render import payment_body
from . import advices, engine, network
from .engine import Claim
from .initial import merchant_refusal
from .lock_objects import original_lock, payments_lock
from .trace import trace_ids
from .types import NO_DETAILS, Caller, Details, Money, PaymentOutcome


def payment_capture(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    original_id: str,
    money: Money,
    details: Details = NO_DETAILS,
) -> PaymentOutcome:
    """CP: capture `money` of a successful, open PA (700.400.100 beyond what it holds)."""
    return _referenced(PaymentType.CP, caller, reference, request_hash, original_id, money, details)


def payment_reverse(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    original_id: str,
    source: str,
    money: Money | None = None,
    details: Details = NO_DETAILS,
    hold: bool = False,
) -> PaymentOutcome:
    """RV: reverse a PA, DB or CD (all that remains, or `money` with source PARTIAL);
    700.400.300 when it was refunded, reversed or captured. `hold`: claimed and its amount
    reserved, but held (000.200.400) until `held_send` or `held_release` (the back office's
    second approval)."""
    details = replace(details, transaction_source=source)
    return _referenced(
        PaymentType.RV, caller, reference, request_hash, original_id, money, details, hold=hold
    )


def payment_refund(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    original_id: str,
    money: Money,
    details: Details = NO_DETAILS,
    hold: bool = False,
) -> PaymentOutcome:
    """RF: refund `money` of a DB, a captured PA or a CP (700.400.520 without a capture);
    `hold` as for a reversal."""
    return _referenced(
        PaymentType.RF, caller, reference, request_hash, original_id, money, details, hold=hold
    )


def payment_pos_refund(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    original_id: str,
    money: Money,
    details: Details = NO_DETAILS,
) -> PaymentOutcome:
    """PR: refund `money` of a DB made through a terminal (700.400.530 otherwise)."""
    return _referenced(PaymentType.PR, caller, reference, request_hash, original_id, money, details)


def _referenced(
    kind: str,
    caller: Caller,
    reference: str,
    request_hash: str,
    original_id: str,
    money: Money | None,
    details: Details,
    *,
    hold: bool = False,
) -> PaymentOutcome:
    def process() -> Claim:
        original = original_lock(merchant=caller.merchant, original_id=original_id)
        amount = money
        if kind == PaymentType.RV and money is None and original.amount:
            amount = Money(original.reversible, original.currency)
        payment = engine.claim(
            caller=caller,
            payment_type=kind,
            reference=reference,
            request_hash=request_hash,
            money=amount,
            details=details,
            referenced=original,
            payment_brand=original.payment_brand,
            card_bin=original.card_bin,
            card_last4=original.card_last4,
            card_holder=original.card_holder,
            card_expiry_month=original.card_expiry_month,
            card_expiry_year=original.card_expiry_year,
            entry_mode=original.entry_mode,
            condition_code=original.condition_code,
            # A whole reversal is in the original's currency.
            currency=original.currency if kind == PaymentType.RV and money is None else None,
        )
        # A timeout reversal only gives a hold back: the merchant's state does not stop it.
        timeout_reversal = details.transaction_source == TransactionSource.TIMEOUT
        refusal = (None if timeout_reversal else merchant_refusal(caller)) or workflow_refusal(
            payment, original
        )
        if refusal is not None:
            return Claim(engine.finish_with(payment, refusal))
        reserve(payment, original)
        if hold:  # reserved, nothing asked: held for a second approval
            return Claim(engine.finish_with(payment, payment_results.APPROVAL_AWAITED))
        return Claim(
            payment,
            ask=lambda connector, claimed: network.follow_up(connector, claimed, original),
            settle=settle,
            related=related_to(original),
        )

    return engine.submit(
        caller=caller, reference=reference, request_hash=request_hash, claim=process
    )


def held_send(*, payment_id: str) -> Payment | None:
    """Send a held operation (approved) to the network, as its claim would have: in flight under
    the locks of it and its originals, then asked outside any transaction and finalized. It is
    booked when it is sent: its time (settlement's day), STAN and RRN are the send's, not the
    request's. A merchant or terminal that may no longer transact refuses it (its reservation
    released), as a new request would be. None when it is no longer held (approved, rejected or
    expired meanwhile)."""
    with transaction.atomic(durable=True):
        held = Payment.objects.select_related("merchant", "terminal", "entity").get(pk=payment_id)
        locked = _chain_locked(held)
        payment = locked.pop(payment_id)
        if payment.state != PaymentState.PENDING:
            return None
        payment.merchant, payment.terminal = held.merchant, held.terminal
        caller = Caller(held.entity, held.entity_type, held.merchant, held.terminal)
        refusal = merchant_refusal(caller)
        if refusal is not None:
            answer = NetworkAnswer(refusal)
            settle(payment, locked, answer)
            return engine.finish(payment, answer)
        now = engine.mark_in_flight(payment)
        payment.created_at = now
        payment.stan, payment.retrieval_ref_no = trace_ids(now)
        payment.save(update_fields=IN_FLIGHT_FIELDS)
    assert payment.referenced_id is not None
    original = locked[payment.referenced_id]
    return engine.complete(
        Claim(
            payment,
            ask=lambda connector, claimed: network.follow_up(connector, claimed, original),
            settle=settle,
            related=related_to(original),
        )
    )


def held_release(*, payment_id: str, result: Result) -> Payment | None:
    """Answer a held operation with `result` (rejected, expired) and release what it reserved,
    under the locks of it and its originals; nothing is sent. None when it is no longer held."""
    with transaction.atomic(durable=True):
        held = Payment.objects.select_related("merchant").get(pk=payment_id)
        locked = _chain_locked(held)
        payment = locked.pop(payment_id)
        if payment.state != PaymentState.PENDING:
            return None
        payment.merchant = held.merchant
        answer = NetworkAnswer(result)
        settle(payment, locked, answer)
        return engine.finish(payment, answer)


IN_FLIGHT_FIELDS = [
    "state",
    "in_flight_since",
    "result_code",
    "result_description",
    "response_body",
    "created_at",
    "stan",
    "retrieval_ref_no",
]


def _chain_locked(payment: Payment) -> dict[str, Payment]:
    """The operation and its originals (a refund of a CP: the CP and its PA), locked in
    primary-key order, each original's `referenced` the locked row."""
    assert payment.referenced_id is not None
    above = Payment.objects.only("referenced_id").get(pk=payment.referenced_id).referenced_id
    chain = [payment.referenced_id, *([above] if above else [])]
    locked = payments_lock([payment.pk, *chain])
    for row in locked.values():
        if row.referenced_id in locked and row.pk != payment.pk:
            row.referenced = locked[row.referenced_id]
    return locked


def related_to(original: Payment) -> list[str]:
    """The rows an operation against `original` moves: it, and a CP's PA."""
    return [original.pk, *([original.referenced_id] if original.referenced_id else [])]


TOTALS = (
    "captured_amount",
    "refunded_amount",
    "reversed_amount",
    "capturing_amount",
    "refunding_amount",
    "reversing_amount",
)


def _touched(payment: Payment, original: Payment) -> list[tuple[Payment, str]]:
    """(row, reservation column) an operation reserves on: the original, and for a refund of a
    CP its PA too (refunds of a CP count against both)."""
    kind = payment.payment_type
    if kind == PaymentType.CP:
        return [(original, "capturing_amount")]
    if kind == PaymentType.RV:
        return [(original, "reversing_amount")]
    rows = [(original, "refunding_amount")]
    if original.payment_type == PaymentType.CP and original.referenced is not None:
        rows.append((original.referenced, "refunding_amount"))
    return rows


def reserve(payment: Payment, original: Payment) -> None:
    """Hold the operation's amount on the original while the network is asked (locked rows)."""
    amount = payment.amount or ZERO
    for row, column in _touched(payment, original):
        setattr(row, column, getattr(row, column) + amount)
        row.save(update_fields=[column])


def settle(payment: Payment, locked: dict[str, Payment], answer: NetworkAnswer) -> None:
    """Under the finalize locks: release the reservation and, when the network approved, move
    the amount to the running totals."""
    assert payment.referenced_id is not None
    original = locked[payment.referenced_id]
    amount = payment.amount or ZERO
    for row, column in _touched(payment, original):
        setattr(row, column, getattr(row, column) - amount)
    if answer.approved:
        apply_to_totals(payment, original)
    for row, _ in _touched(payment, original):
        row.save(update_fields=list(TOTALS))
    if answer.approved and answer.owed_advice:
        advices.owe(payment)  # the network is told in the same breath the reversal is booked
    if answer.approved and _undoes_a_timeout(payment, original):
        # No longer uncertain: the original says it was reversed, and by which reversal.
        result = payment_results.TIMEOUT_REVERSED
        original.result_code, original.result_description = result.code, result.description
        original.response_body = payment_body(original)
        original.save(update_fields=["result_code", "result_description", "response_body"])
        engine.tell_webhooks(original, "UPDATED")


def _undoes_a_timeout(payment: Payment, original: Payment) -> bool:
    return (
        payment.payment_type == PaymentType.RV
        and payment.transaction_source == TransactionSource.TIMEOUT
        and original.result_code == payment_results.TIMEOUT_UNCERTAIN.code
    )


def workflow_refusal(payment: Payment, original: Payment) -> Result | None:
    """Why this operation may not be applied to the (locked) original, or None. The kind of
    original is checked first, then the currency, then the amounts."""
    kind = payment.payment_type
    if kind == PaymentType.CP:
        refusal = _capture_refusal(payment, original)
    elif kind == PaymentType.RV:
        refusal = _reversal_refusal(payment, original)
    elif kind == PaymentType.PR and (
        original.payment_type != PaymentType.DB or original.terminal_id is None
    ):
        refusal = payment_results.POS_REFUND_NEEDS_POS_PURCHASE
    else:
        refusal = _refund_refusal(payment, original)
    # The amount checks compare like with like only when the currencies agree.
    amount_refusals = (
        payment_results.CAPTURE_EXCEEDS,
        payment_results.REFUND_EXCEEDS,
        payment_results.REVERSAL_REFUSED,
    )
    if (refusal is None or refusal in amount_refusals) and (
        payment.amount is not None and payment.currency != original.currency
    ):
        return payment_results.CURRENCY_MISMATCH
    return refusal


def _capture_refusal(payment: Payment, original: Payment) -> Result | None:
    if original.payment_type != PaymentType.PA or not original.successful:
        return payment_results.CAPTURE_NOT_OPEN_PA
    # Past its validityPeriod a PA is closed, whether or not the beat task has marked it yet.
    if original.closed_at is not None or (
        original.expires_at is not None and original.expires_at <= timezone.now()
    ):
        return payment_results.CAPTURE_PA_CLOSED
    if original.reversed_amount + original.reversing_amount >= (original.amount or ZERO):
        return payment_results.CAPTURE_NOT_OPEN_PA
    if (payment.amount or ZERO) > original.capturable:
        return payment_results.CAPTURE_EXCEEDS
    return None


def _reversal_refusal(payment: Payment, original: Payment) -> Result | None:
    source = payment.transaction_source
    if original.payment_type not in (PaymentType.PA, PaymentType.DB, PaymentType.CD):
        return payment_results.REVERSAL_REFUSED
    if original.refunded_amount + original.refunding_amount > ZERO or original.reversible <= ZERO:
        return payment_results.REVERSAL_REFUSED
    if original.payment_type == PaymentType.PA and (
        original.captured_amount + original.capturing_amount > ZERO
    ):
        return payment_results.REVERSAL_REFUSED  # captured: refund it instead
    if not original.successful:
        # Only an original whose answer was lost (timeout) or that failed may be reversed, and
        # only as TIMEOUT or ERROR.
        timed_out = family_of(original.result_code) == "rejected_communication"
        if not (timed_out and source in (TransactionSource.TIMEOUT, TransactionSource.ERROR)):
            return payment_results.REVERSAL_REFUSED
        return None
    remaining = original.reversible
    if payment.amount is not None and payment.amount > remaining:
        return payment_results.REVERSAL_REFUSED
    if (
        source != TransactionSource.PARTIAL
        and payment.amount is not None
        and payment.amount != remaining
    ):
        return payment_results.REVERSAL_REFUSED
    return None


def _refund_refusal(payment: Payment, original: Payment) -> Result | None:
    if original.payment_type not in (PaymentType.DB, PaymentType.PA, PaymentType.CP):
        return payment_results.REFUND_NEEDS_CAPTURE
    if not original.successful or original.captured_amount <= ZERO:
        return payment_results.REFUND_NEEDS_CAPTURE
    refundable = original.refundable
    if original.payment_type == PaymentType.DB:
        # A reversal gave part of the debit back (or is giving it back).
        refundable -= original.reversed_amount + original.reversing_amount
    parent = original.referenced if original.payment_type == PaymentType.CP else None
    if parent is not None:
        refundable = min(refundable, parent.refundable)
    if (payment.amount or ZERO) > refundable:
        return payment_results.REFUND_EXCEEDS
    return None


def apply_to_totals(payment: Payment, original: Payment) -> None:
    """Move the original's running totals (saved by the caller, who holds the row locks)."""
    amount = payment.amount or ZERO
    if payment.payment_type == PaymentType.CP:
        original.captured_amount += amount
        payment.captured_amount = amount  # a CP is refundable in its own right
    elif payment.payment_type == PaymentType.RV:
        # A timed-out original is marked reversed too, so it cannot be reversed twice.
        original.reversed_amount += amount
    else:  # RF, PR
        original.refunded_amount += amount
        if original.payment_type == PaymentType.CP and original.referenced is not None:
            original.referenced.refunded_amount += amount
