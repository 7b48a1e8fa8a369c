"""The payment engine's shared steps: claim the reference, record the answer, replay.

A payment row is inserted before the network is asked: the unique (merchant,
merchantTransactionId) index claims the reference, so a duplicate (a replay or a concurrent
twin) fails on it, waits for the first to commit, and is answered from the stored row through
core's one replay path (`core.idempotency.replay`): the same answer for the same parameters,
800.110.100 for others. The network is never asked twice for one reference.
"""

from collections.abc import Callable

from django.db import IntegrityError, transaction

from core.idempotency import replay
from core.results import Result

from ..connectors.base import NetworkAnswer
from ..models import Payment
from ..render import payment_body
from .types import Caller, Details, Money, PaymentOutcome

PENDING_CODE = "000.200.000"


def submit(
    *, caller: Caller, reference: str, request_hash: str, process: Callable[[], Payment]
) -> PaymentOutcome:
    """Run `process` (which claims the reference and answers) in one transaction, or replay."""
    try:
        with transaction.atomic():
            payment = process()
    except IntegrityError:
        existing = Payment.objects.filter(
            merchant=caller.merchant, merchant_transaction_id=reference
        ).first()
        if existing is None:
            raise
        replayed = replay(
            stored_hash=existing.request_hash,
            stored_body=existing.response_body,
            request_hash=request_hash,
        )
        return PaymentOutcome(replayed.body, replayed=True, payment=existing)
    return PaymentOutcome(payment.response_body, payment=payment)


def claim(
    *,
    caller: Caller,
    payment_type: str,
    reference: str,
    request_hash: str,
    money: Money | None,
    details: Details,
    **fields: object,
) -> Payment:
    """Insert the row that claims merchantTransactionId (before the network is asked)."""
    payment = Payment(
        merchant=caller.merchant,
        terminal=caller.terminal,
        entity=caller.entity,
        entity_type=caller.entity_type,
        payment_type=payment_type,
        merchant_transaction_id=reference,
        request_hash=request_hash,
        amount=money.amount if money else None,
        currency=money.currency if money else "",
        tax_amount=details.tax_amount,
        transaction_source=details.transaction_source,
        transaction_category=details.transaction_category,
        descriptor=details.descriptor,
        merchant_invoice_id=details.merchant_invoice_id,
        merchant_memo=details.merchant_memo,
        checkout_type=details.checkout_type,
        validity_period_ms=details.validity_period_ms,
        result_code=PENDING_CODE,
        result_description="pending",
        data=dict(details.data),
        **fields,
    )
    payment.save(force_insert=True)
    return payment


ANSWER_FIELDS = (
    "auth_code",
    "acquirer_response",
    "avs_response",
    "cvv_response",
    "mac_response",
    "stan",
    "retrieval_ref_no",
    "acquirer_ref_no",
)


def finish(payment: Payment, answer: NetworkAnswer, *, base_url: str = "") -> Payment:
    """Record the network's (or a refusal's) answer on the payment and store the response."""
    payment.result_code = answer.result.code
    payment.result_description = answer.extended_description or answer.result.description
    payment.successful = answer.approved
    for name in ANSWER_FIELDS:
        setattr(payment, name, getattr(answer, name))
    payment.response_body = payment_body(payment, base_url=base_url)
    payment.save()
    return payment


def finish_with(payment: Payment, result: Result, *, base_url: str = "") -> Payment:
    """Answer a payment with a code of ours (a refusal: merchant state, workflow, risk; or
    pending while 3-D Secure runs)."""
    return finish(payment, NetworkAnswer(result), base_url=base_url)
