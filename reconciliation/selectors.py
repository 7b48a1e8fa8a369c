"""Reads of exchange rates, and of the daily files for the metrics."""

from datetime import UTC, date, datetime, time

from django.db.models import Max

from core.errors import NotFound

from . import results
from .models import ExchangeRate, ReconFile, SettlementRun


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


def recon_files_last_day() -> list[tuple[tuple[str, str], float]]:
    """Per entity and kind (production, test), the business day of its latest daily file, as
    the Unix time of that day's start (UTC): the metrics' last daily file gauge."""
    rows = (
        ReconFile.objects.order_by()
        .values_list("entity__entity_id", "production")
        .annotate(last=Max("day"))
    )
    return [
        (
            (entity_id, "production" if production else "test"),
            datetime.combine(last, time(), tzinfo=UTC).timestamp(),
        )
        for entity_id, production, last in rows
    ]


def settlement_last_final_day() -> list[tuple[tuple[()], float]]:
    """The latest business day with a final settlement run (any merchant), as the Unix time of
    its start (UTC): the metrics' "settlement not run" gauge. None yet: no sample."""
    last = SettlementRun.objects.filter(provisional=False).aggregate(last=Max("day"))["last"]
    if last is None:
        return []
    return [((), datetime.combine(last, time(), tzinfo=UTC).timestamp())]
