"""Look-ups by a unique key on the hot path."""

from typing import TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def one(queryset: QuerySet[M]) -> M | None:
    """The row a unique key names, or None. Unlike `.first()`, no ORDER BY: there is at most one
    row to order, and building the clause costs more than the query on a hot path."""
    return next(iter(queryset.order_by()[:1]), None)
