"""What the ledger reads without changing it: which holds still set money aside, and their total
per account as an annotation (read with an account's lock in lock_objects, or alone)."""

from datetime import datetime
from decimal import Decimal

from django.db.models import DecimalField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from .models import Hold


def holds_counting(*, now: datetime | None = None) -> Q:
    """The holds that still count at `now`: not released, not expired."""
    return Q(released_at__isnull=True, expires_at__gt=now or timezone.now())


def held_total(*, now: datetime | None = None) -> Coalesce:
    """An account's holds that still count at `now`, as an annotation of LedgerAccount rows."""
    held = (
        Hold.objects.filter(holds_counting(now=now), account=OuterRef("pk"))
        .order_by()
        .values("account")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    money = DecimalField(max_digits=16, decimal_places=3)
    return Coalesce(Subquery(held, output_field=money), Value(Decimal(0)))
