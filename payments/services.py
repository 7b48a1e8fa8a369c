"""Every write to payments. One function per use case; API views and tasks call these.

Idempotency: a payment row is claimed (inserted) inside the same transaction that asks the
network, so two requests with one merchantTransactionId never reach the network twice: the
second waits on the unique index, then replays what the first stored (or is refused with
800.110.100 if its parameters differ).

Referenced operations (CP, RV, RF, PR) lock the original row with `select_for_update`, check the
remaining amount after the lock, write the new row and the original's running totals, and commit
together: captures never exceed the PA, refunds never exceed what was captured or debited,
under any concurrency. A CP and its PA are locked in primary-key order.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from core import results
from core.errors import ApplicationError, NotFound
from merchants.models import Entity, Merchant
from terminals.models import Terminal

from . import cards, risk
from .connectors.base import AuthRequest, NetworkAnswer, ReferenceRequest
from .connectors.simulator import get_connector
from .models import REFERENCED_TYPES, ZERO, Payment, PaymentType, TransactionSource
from .render import payment_body

CARD_PRESENT_TYPES = frozenset({"PO", "PM"})


@dataclass(frozen=True)
class Caller:
    """Who pays: the acting entity, its type, the merchant and (POS) the terminal; base_url is
    where this platform is reached (for 3-D Secure redirects)."""

    entity: Entity
    entity_type: str
    merchant: Merchant
    terminal: Terminal | None
    base_url: str = ""


THREEDS_TYPES = frozenset({PaymentType.PA, PaymentType.DB})


def threeds_requested(merchant: Merchant, flat: Mapping[str, Any]) -> bool:
    """Whether this payment goes through the built-in 3-D Secure 2 flow: a PA or DB with
    threeDSecure.indicator force or true, or any PA or DB of a merchant whose 3DS is mandatory
    (the indicator is then ignored). `third` (pre-authenticated) is not a flow of ours."""
    if flat.get("paymentType") not in THREEDS_TYPES:
        return False
    if merchant.threeds_mode == "MANDATORY":
        return True
    return flat.get("threeDSecure.indicator") in ("force", "true")


@dataclass(frozen=True)
class Outcome:
    body: dict[str, Any]
    replayed: bool
    payment: Payment | None


def payment_submit(
    *, caller: Caller, flat: Mapping[str, Any], request_hash: str, original_id: str | None = None
) -> Outcome:
    """Process one payment request at most once per merchant and merchantTransactionId."""
    mtid = flat["merchantTransactionId"]
    # No look-up first: inserting the payment row claims the reference, and a duplicate (replay
    # or concurrent twin) fails on the unique index and is answered from the stored row.
    try:
        with transaction.atomic():
            if flat["paymentType"] in REFERENCED_TYPES:
                payment = _referenced(caller, flat, request_hash, original_id or "")
            else:
                payment = _initial(caller, flat, request_hash)
    except IntegrityError:
        existing = _existing(caller.merchant, mtid)
        if existing is None:
            raise
        return _replay(existing, request_hash)
    return Outcome(payment.response_body, False, payment)


def _existing(merchant: Merchant, mtid: str) -> Payment | None:
    return Payment.objects.filter(merchant=merchant, merchant_transaction_id=mtid).first()


def _replay(payment: Payment, request_hash: str) -> Outcome:
    if payment.request_hash != request_hash:
        raise ApplicationError(results.DUPLICATE_TRANSACTION)
    return Outcome(dict(payment.response_body), True, payment)


# --- PA, DB, CD, CV ---------------------------------------------------------------------------


def _initial(caller: Caller, flat: Mapping[str, Any], request_hash: str) -> Payment:
    payment = _new_payment(caller, flat, request_hash)
    pan = flat["card.number"]
    payment.payment_brand = flat.get("paymentBrand") or cards.detect_brand(pan)
    payment.card_bin, payment.card_last4 = pan[:6], pan[-4:]
    payment.card_holder = flat.get("card.holder", "")
    payment.card_expiry_month = flat["card.expiryMonth"]
    payment.card_expiry_year = flat["card.expiryYear"]
    payment.pan_ciphertext = cards.encrypt_pan(pan)
    payment.pan_fingerprint = cards.fingerprint(pan)
    payment.entry_mode, payment.condition_code = _entry_and_condition(caller, flat)
    if payment.validity_period_ms:
        payment.expires_at = timezone.now() + timedelta(milliseconds=payment.validity_period_ms)

    three_ds = threeds_requested(caller.merchant, flat)
    refusal = _merchant_refusal(caller)
    if refusal is None and cards.expired(
        payment.card_expiry_month, payment.card_expiry_year, timezone.now().date()
    ):
        refusal = results.CARD_EXPIRED
    if refusal is None and three_ds and caller.merchant.threeds_status != "ENROLLED":
        refusal = results.THREEDS_MERCHANT_NOT_ENROLLED
    if refusal is None:
        # indicator=force: through the risk system, then 3DS (INTERNAL when none is named).
        forced = flat.get("threeDSecure.indicator") == "force" and not flat.get("risk.systemID")
        assessment = risk.assess({**flat, "risk.systemID": "INTERNAL"} if forced else flat)
        if assessment is not None:
            payment.risk_score, payment.risk_decision = assessment.score, assessment.decision
            if assessment.decision == risk.DECLINE:
                refusal = results.RISK_DECLINED
    if refusal is not None:
        return finish_payment(payment, NetworkAnswer(refusal))
    if three_ds:
        from .threeds.services import threeds_start

        threeds_start(payment=payment, flat=flat, pan=pan)
        return finish_payment(
            payment, NetworkAnswer(results.THREEDS_PENDING), base_url=caller.base_url
        )

    answer = get_connector().authorize(
        AuthRequest(
            payment_type=payment.payment_type,
            amount=payment.amount,
            currency=payment.currency,
            brand=payment.payment_brand,
            pan=pan,
            expiry_month=payment.card_expiry_month,
            expiry_year=payment.card_expiry_year,
            cvv=flat.get("card.cvv", ""),
            holder=payment.card_holder,
            billing_street=flat.get("billing.street1", ""),
            billing_postcode=flat.get("billing.postcode", ""),
            entry_mode=payment.entry_mode,
        )
    )
    if answer.approved and payment.payment_type == PaymentType.DB:
        payment.captured_amount = payment.amount or ZERO
    return finish_payment(payment, answer)


def _entry_and_condition(caller: Caller, flat: Mapping[str, Any]) -> tuple[str, str]:
    """POS Entry Mode and Condition Code (spec "additionalData"): card present through a
    terminal, mail/telephone order, or e-commerce."""
    category = flat.get("transactionCategory", "")
    if caller.terminal is not None or category in CARD_PRESENT_TYPES:
        return "01" if category in ("MO", "TO") else "81", "00"
    if category in ("MO", "TO"):
        return "01", "08"
    return "81", "59"


def _merchant_refusal(caller: Caller) -> results.Result | None:
    if not caller.merchant.can_transact:
        return results.MERCHANT_CANNOT_TRANSACT
    if caller.terminal is not None and caller.terminal.status != "NORMAL":
        return results.TERMINAL_CANNOT_TRANSACT
    return None


# --- CP, RV, RF, PR ---------------------------------------------------------------------------


def _referenced(
    caller: Caller, flat: Mapping[str, Any], request_hash: str, original_id: str
) -> Payment:
    original = _lock_original(caller.merchant, original_id)
    payment = _new_payment(caller, flat, request_hash)
    payment.referenced = original
    payment.payment_brand = original.payment_brand
    payment.card_bin, payment.card_last4 = original.card_bin, original.card_last4
    payment.card_holder = original.card_holder
    payment.card_expiry_month = original.card_expiry_month
    payment.card_expiry_year = original.card_expiry_year
    payment.entry_mode, payment.condition_code = original.entry_mode, original.condition_code
    if payment.payment_type == PaymentType.RV and payment.amount is None:
        payment.amount = original.amount - original.reversed_amount if original.amount else None
        payment.currency = original.currency

    refusal = _merchant_refusal(caller) or _workflow_refusal(caller, payment, original)
    if refusal is not None:
        return finish_payment(payment, NetworkAnswer(refusal))
    answer = get_connector().follow_up(
        ReferenceRequest(
            payment_type=payment.payment_type,
            amount=payment.amount,
            currency=payment.currency,
            original_auth_code=original.auth_code,
            original_retrieval_ref_no=original.retrieval_ref_no,
        )
    )
    if answer.approved:
        _apply_to_totals(payment, original)
    return finish_payment(payment, answer)


def _lock_original(merchant: Merchant, original_id: str) -> Payment:
    """The original, locked. A CP's PA is locked too (refunds of a CP count against both), always
    in primary-key order so two requests cannot wait on each other."""
    original = Payment.objects.filter(pk=original_id, merchant=merchant).first()
    if original is None:
        raise NotFound(results.REFERENCE_NOT_FOUND)
    ids = sorted({original.pk, *([original.referenced_id] if original.referenced_id else [])})
    locked = {
        p.pk: p for p in Payment.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    }
    return _with_parent(locked[original.pk], locked)


def _with_parent(payment: Payment, locked: dict[str, Payment]) -> Payment:
    if payment.referenced_id in locked:
        payment.referenced = locked[payment.referenced_id]
    return payment


def _workflow_refusal(caller: Caller, payment: Payment, original: Payment) -> results.Result | None:
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
        refusal = results.POS_REFUND_NEEDS_POS_PURCHASE
    else:
        refusal = _refund_refusal(payment, original)
    # The amount checks compare like with like only when the currencies agree.
    amount_refusals = (results.CAPTURE_EXCEEDS, results.REFUND_EXCEEDS, results.REVERSAL_REFUSED)
    if (refusal is None or refusal in amount_refusals) and (
        payment.amount is not None and payment.currency != original.currency
    ):
        return results.CURRENCY_MISMATCH
    return refusal


def _capture_refusal(payment: Payment, original: Payment) -> results.Result | None:
    if original.payment_type != PaymentType.PA or not original.successful:
        return results.CAPTURE_NOT_OPEN_PA
    if original.closed_at is not None:
        return results.CAPTURE_PA_CLOSED
    if original.reversed_amount >= (original.amount or ZERO):
        return results.CAPTURE_NOT_OPEN_PA
    if (payment.amount or ZERO) > original.capturable:
        return results.CAPTURE_EXCEEDS
    return None


def _reversal_refusal(payment: Payment, original: Payment) -> results.Result | None:
    source = payment.transaction_source
    if original.payment_type not in (PaymentType.PA, PaymentType.DB, PaymentType.CD):
        return results.REVERSAL_REFUSED
    if original.refunded_amount > ZERO or original.reversed_amount >= (original.amount or ZERO):
        return results.REVERSAL_REFUSED
    if original.payment_type == PaymentType.PA and original.captured_amount > ZERO:
        return results.REVERSAL_REFUSED  # captured: refund it instead
    if not original.successful:
        # Only an original whose answer was lost (timeout) or that failed may be reversed, and
        # only as TIMEOUT or ERROR.
        timed_out = results.family_of(original.result_code) == "rejected_communication"
        if not (timed_out and source in (TransactionSource.TIMEOUT, TransactionSource.ERROR)):
            return results.REVERSAL_REFUSED
        return None
    remaining = (original.amount or ZERO) - original.reversed_amount
    if payment.amount is not None and payment.amount > remaining:
        return results.REVERSAL_REFUSED
    if (
        source != TransactionSource.PARTIAL
        and payment.amount is not None
        and payment.amount != remaining
    ):
        return results.REVERSAL_REFUSED
    return None


def _refund_refusal(payment: Payment, original: Payment) -> results.Result | None:
    if original.payment_type not in (PaymentType.DB, PaymentType.PA, PaymentType.CP):
        return results.REFUND_NEEDS_CAPTURE
    if not original.successful or original.captured_amount <= ZERO:
        return results.REFUND_NEEDS_CAPTURE
    refundable = original.refundable
    if original.payment_type == PaymentType.DB:
        refundable -= original.reversed_amount  # a reversal gave part of the debit back
    parent = original.referenced if original.payment_type == PaymentType.CP else None
    if parent is not None:
        refundable = min(refundable, parent.refundable)
    if (payment.amount or ZERO) > refundable:
        return results.REFUND_EXCEEDS
    return None


def _apply_to_totals(payment: Payment, original: Payment) -> None:
    """Move the original's running totals; the caller holds the row locks."""
    amount = payment.amount or ZERO
    touched = [original]
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
            touched.append(original.referenced)
    for row in touched:
        row.save(update_fields=["captured_amount", "refunded_amount", "reversed_amount"])


# --- shared -----------------------------------------------------------------------------------


def _new_payment(caller: Caller, flat: Mapping[str, Any], request_hash: str) -> Payment:
    """The row that claims merchantTransactionId (inserted before the network is asked)."""
    payment = Payment(
        merchant=caller.merchant,
        terminal=caller.terminal,
        entity=caller.entity,
        entity_type=caller.entity_type,
        payment_type=flat["paymentType"],
        merchant_transaction_id=flat["merchantTransactionId"],
        request_hash=request_hash,
        amount=flat.get("amount"),
        currency=flat.get("currency", ""),
        tax_amount=flat.get("taxAmount"),
        transaction_source=flat.get("transactionSource", ""),
        transaction_category=flat.get("transactionCategory", ""),
        descriptor=flat.get("descriptor", ""),
        merchant_invoice_id=flat.get("merchantInvoiceId", ""),
        merchant_memo=flat.get("merchantMemo", ""),
        checkout_type=flat.get("checkoutType", ""),
        validity_period_ms=int(flat["validityPeriod"]) if flat.get("validityPeriod") else None,
        result_code="000.200.000",
        result_description="pending",
        data=stored_groups(flat),
    )
    payment.save(force_insert=True)
    return payment


def finish_payment(payment: Payment, answer: NetworkAnswer, *, base_url: str = "") -> Payment:
    """Record the network's (or a refusal's) answer on the payment and store the response."""
    payment.result_code = answer.result.code
    payment.result_description = answer.extended_description or answer.result.description
    payment.successful = answer.approved
    for name in (
        "auth_code",
        "acquirer_response",
        "avs_response",
        "cvv_response",
        "mac_response",
        "stan",
        "retrieval_ref_no",
        "acquirer_ref_no",
    ):
        setattr(payment, name, getattr(answer, name))
    payment.response_body = payment_body(payment, base_url=base_url)
    payment.save()
    return payment


# Groups kept with the payment (never card data): everything but these names.
NOT_STORED = (
    "card.",
    "entityId",
    "entityType",
    "merchantTransactionId",
    "paymentType",
    "amount",
    "currency",
    "merchant.id",
    "pos.terminalId",
    "originalTransactionId",
)


def stored_groups(flat: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _json(value) for name, value in flat.items() if not name.startswith(NOT_STORED)}


def _json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


# --- validityPeriod -----------------------------------------------------------------------------


def payment_close_expired(*, now: Callable[[], Any] = timezone.now, batch: int = 500) -> int:
    """Close successful PAs whose validityPeriod has elapsed (beat runs this every minute).

    Each PA is locked and re-checked, so a capture in flight either commits first (and the PA
    is closed with what it captured) or sees it closed (700.400.104). Returns how many closed.
    """
    closed = 0
    while True:
        with transaction.atomic():
            due = list(
                Payment.objects.select_for_update(skip_locked=True)
                .filter(
                    payment_type=PaymentType.PA,
                    successful=True,
                    closed_at__isnull=True,
                    expires_at__lte=now(),
                )
                .order_by("pk")[:batch]
            )
            for payment in due:
                payment.closed_at = now()
                payment.save(update_fields=["closed_at"])
        closed += len(due)
        if len(due) < batch:
            return closed
