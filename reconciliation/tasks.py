"""Celery tasks of reconciliation: thin wrappers over its services."""

from celery import shared_task
from django.utils import timezone

from .settlement import last_business_day, settle_day


@shared_task(name="reconciliation.settle_last_day", ignore_result=True)
def settle_last_day() -> int:
    """Beat, every hour: settle the last business day whose cut-off has passed (a re-run of a
    day already settled gives the same figures, so running it again is harmless)."""
    return len(settle_day(day=last_business_day(timezone.now())))
