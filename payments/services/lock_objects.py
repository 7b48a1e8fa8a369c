"""Row locks, in one place. Every money movement re-reads its rows here with
`select_for_update()` inside the caller's transaction; several rows are always locked in
primary-key order, so two requests cannot wait on each other. (Registrations and checkouts
keep theirs in their packages' lock_objects.py.)"""

from collections.abc import Callable, Collection
from datetime import datetime

from django.db.models import Q

from core.errors import NotFound
from core.lookups import one
from core.prepared import TEXT, PreparedRead
from core.results import REFERENCE_NOT_FOUND
from core.rows import Insert, Update
from merchants.models import Merchant

from ..models import Payment, PaymentType, ReversalAdvice, ThreeDSAuthentication


def payments_lock(pks: list[str]) -> dict[str, Payment]:
    """The payments, locked in primary-key order."""
    rows = Payment.objects.select_for_update().filter(pk__in=sorted(set(pks))).order_by("pk")
    return {payment.pk: payment for payment in rows}


def payment_lock(pk: str) -> Payment:
    """One payment, locked (another app's change to it, a chargeback, waits for the money
    movements on it and they for the change)."""
    return Payment.objects.select_for_update().get(pk=pk)


def expired_lock(*, now: Callable[[], datetime], batch: int) -> list[Payment]:
    """Up to `batch` successful PAs not closed whose validityPeriod has elapsed, locked in
    primary-key order; those another transaction holds (a capture) are left to a later pass."""
    return list(
        Payment.objects.select_for_update(skip_locked=True)
        .filter(
            payment_type=PaymentType.PA,
            successful=True,
            closed_at__isnull=True,
            expires_at__lte=now(),
        )
        .order_by("pk")[:batch]
    )


# Every locked finalize (an on-us payment's, a capture's) takes it: compiled once per process.
_STATE_LOCK = PreparedRead(
    lambda pk: Payment.objects.select_for_update().filter(pk=pk).only("state"), pk=TEXT
)


def state_lock(pk: str) -> str:
    """Lock one payment; its processing state (the finalize needs nothing else of it)."""
    return str(_STATE_LOCK.get(pk=pk).state)


def original_lock(*, merchant: Merchant, original_id: str) -> Payment:
    """The original of a referenced operation, locked; a CP's PA is locked with it (refunds of a
    CP count against both) and set as its `referenced`. 404 (700.100.100) when the merchant has
    no such payment."""
    original = one(
        Payment.objects.filter(pk=original_id, merchant=merchant).only("pk", "referenced_id")
    )
    if original is None:
        raise NotFound(REFERENCE_NOT_FOUND)
    ids = [original.pk, *([original.referenced_id] if original.referenced_id else [])]
    locked = payments_lock(ids)
    payment = locked[original.pk]
    if payment.referenced_id in locked:
        payment.referenced = locked[payment.referenced_id]
    return payment


def threeds_lock(auth_id: str) -> ThreeDSAuthentication:
    """An authentication and its payment, locked (authentication first: the pages and the
    expiry task all lock in this order)."""
    auth = ThreeDSAuthentication.objects.select_for_update().get(pk=auth_id)
    auth.payment = Payment.objects.select_for_update().get(pk=auth.payment_id)
    return auth


# --- the payment's own two writes, as plain SQL (core/rows.py) -----------------------------------

# Every payment's first write, IN_FLIGHT before the network (engine.claim): every column.
CLAIM = Insert(
    Payment,
    'INSERT INTO "payments_payment" ("id", "merchant_id", "terminal_id", "entity_id", '
    '"entity_type", "payment_type", "merchant_transaction_id", "request_hash", "referenced_id", '
    '"amount", "currency", "tax_amount", "payment_brand", "state", "in_flight_since", '
    '"result_code", "result_description", "successful", "card_bin", "card_last4", '
    '"card_holder", "card_expiry_month", "card_expiry_year", "pan_ciphertext", '
    '"pan_fingerprint", "auth_code", "acquirer_response", "avs_response", "cvv_response", '
    '"mac_response", "stan", "retrieval_ref_no", "acquirer_ref_no", "entry_mode", '
    '"condition_code", "captured_amount", "refunded_amount", "reversed_amount", '
    '"capturing_amount", "refunding_amount", "reversing_amount", "validity_period_ms", '
    '"expires_at", "closed_at", "transaction_source", "transaction_category", "descriptor", '
    '"merchant_invoice_id", "merchant_memo", "checkout_type", "risk_score", "risk_decision", '
    '"test_mode", "network_reference", "clearing_institute", "threeds_started", '
    '"registration_id", "scheme_token_id", "standing_instruction_id", "data", "response_body", '
    '"created_at") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, '
    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
    "%s)",
)

# Every payment's answer (engine.finish): what the claim's transaction or the finalize may have
# changed since the INSERT, and the network's answer. ANSWERED writes it under the caller's
# lock; ANSWERED_IF_IN_FLIGHT only while the row is still IN_FLIGHT (no lock held).
ANSWERED = Update(
    Payment,
    'UPDATE "payments_payment" SET '
    '"state" = %s, "in_flight_since" = %s, "successful" = %s, "result_code" = %s, '
    '"result_description" = %s, "response_body" = %s, "captured_amount" = %s, "currency" = %s, '
    '"risk_score" = %s, "risk_decision" = %s, "threeds_started" = %s, "registration_id" = %s, '
    '"standing_instruction_id" = %s, "auth_code" = %s, "acquirer_response" = %s, '
    '"avs_response" = %s, "cvv_response" = %s, "mac_response" = %s, "stan" = %s, '
    '"retrieval_ref_no" = %s, "acquirer_ref_no" = %s, "network_reference" = %s, '
    '"clearing_institute" = %s WHERE "id" = %s',
)
ANSWERED_IF_IN_FLIGHT = Update(Payment, ANSWERED.sql + ' AND "state" = %s')


def advices_due_lock(
    *, due_by: datetime, now: datetime, besides: Collection[str] = ()
) -> ReversalAdvice | None:
    """The reversal advice longest due by `due_by` that no sender holds at `now` (and that is
    not one of `besides`), locked; one another transaction has locked is skipped."""
    return (
        ReversalAdvice.objects.select_for_update(skip_locked=True, of=("self",))
        .exclude(pk__in=besides)
        .select_related("reversal__referenced", "reversal__merchant", "reversal__terminal")
        .filter(state=ReversalAdvice.State.OWED, next_attempt_at__lte=due_by)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lte=now))
        .order_by("next_attempt_at")
        .first()
    )
