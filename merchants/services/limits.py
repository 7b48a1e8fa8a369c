"""Amount limits: the most one payment may be for in a currency, per merchant or for the whole
platform."""

import logging
from decimal import Decimal

from django.db import transaction

from ..lock_objects import amount_limit_lock
from ..models import AmountLimit, Merchant

logger = logging.getLogger("merchants")


@transaction.atomic
def amount_limit_set(
    *, merchant: Merchant | None, currency: str, max_amount: Decimal, changed_by: str
) -> AmountLimit:
    """The most one payment of `merchant` (None: of every merchant, the platform's limit) may be
    for in `currency`: created, or changed if one is set. The row is locked while it changes."""
    limit = amount_limit_lock(merchant=merchant, currency=currency)
    if limit is None:
        limit = AmountLimit(merchant=merchant, currency=currency)
    limit.max_amount, limit.changed_by = max_amount, changed_by
    limit.save()
    logger.info(
        "amount limit %s %s set to %s by %s",
        merchant.merchant_id if merchant else "platform",
        currency,
        max_amount,
        changed_by,
    )
    return limit


@transaction.atomic
def amount_limit_remove(*, limit: AmountLimit, changed_by: str) -> None:
    """No more limit of this row's level in its currency (the other level's still applies)."""
    AmountLimit.objects.filter(pk=limit.pk).delete()
    logger.info(
        "amount limit %s %s removed by %s",
        limit.merchant.merchant_id if limit.merchant_id else "platform",  # type: ignore[union-attr]
        limit.currency,
        changed_by,
    )
