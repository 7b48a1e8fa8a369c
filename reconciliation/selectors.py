"""Reads of exchange rates."""

from datetime import date

from core.errors import NotFound

from . import results
from .models import ExchangeRate


def rate_in_force(*, currency: str, on: date) -> ExchangeRate:
    """The rate with the latest effective date on or before `on`; 404 (700.550.120) if none."""
    rate = (
        ExchangeRate.objects.filter(currency=currency, effective_date__lte=on)
        .order_by("-effective_date")
        .first()
    )
    if rate is None:
        raise NotFound(results.RATE_NOT_FOUND)
    return rate
