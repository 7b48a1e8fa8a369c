"""Reads of payments, always through the caller's reach."""

from django.db.models import QuerySet

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
