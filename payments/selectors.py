"""Reads of payments, always through the caller's reach."""

from django.db.models import Case, CharField, F, QuerySet, Value, When

from core import results
from core.errors import NotFound
from core.lookups import one
from merchants.models import Entity
from merchants.selectors import merchants_reachable

from .models import Payment


def payments_reachable(*, entity: Entity) -> QuerySet[Payment]:
    return Payment.objects.filter(merchant__in=merchants_reachable(entity=entity))


def payment_get(
    *, entity: Entity, payment_id: str, merchant_transaction_id: str | None = None
) -> Payment:
    """The payment if the entity reaches its merchant (and the reference matches); else 404
    with 700.100.100, whether it does not exist or belongs to someone else."""
    query = payments_reachable(entity=entity).filter(pk=payment_id)
    if merchant_transaction_id:
        query = query.filter(merchant_transaction_id=merchant_transaction_id)
    payment = one(query.select_related("merchant", "terminal"))
    if payment is None:
        raise NotFound(results.REFERENCE_NOT_FOUND)
    return payment


def payment_chain(*, payment: Payment) -> list[Payment]:
    """The top original and every operation under it (CPs, and refunds of those), oldest first,
    from any member of the chain."""
    root = payment
    while root.referenced is not None:
        root = root.referenced
    children = list(Payment.objects.filter(referenced=root).order_by("created_at"))
    grandchildren = list(Payment.objects.filter(referenced__in=children).order_by("created_at"))
    return [root, *sorted(children + grandchildren, key=lambda p: p.created_at)]


# What was given back of a payment, from the running totals its reversals and refunds (and the
# refunds of its captures) keep on it under its row lock (payments.services.referenced): one
# expression in the list's own query, so a page of 50 costs no query per row.
MARK = Case(
    When(reversed_amount__gt=0, reversed_amount__gte=F("amount"), then=Value("reversed")),
    When(reversed_amount__gt=0, then=Value("partly reversed")),
    When(
        refunded_amount__gt=0,
        refunded_amount__gte=F("captured_amount"),
        then=Value("refunded"),
    ),
    When(refunded_amount__gt=0, then=Value("partly refunded")),
    default=Value(""),
    output_field=CharField(),
)


def payments_marked(*, payments: QuerySet[Payment]) -> QuerySet[Payment]:
    """`payments` with `mark`: "reversed" or "refunded" when all of it was given back, "partly
    reversed" or "partly refunded" when some was, "" otherwise (and for the reversals and
    refunds themselves)."""
    return payments.annotate(mark=MARK)
