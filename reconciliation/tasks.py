"""Celery tasks of reconciliation: thin wrappers over its services."""

from datetime import date

from celery import group, shared_task
from django.utils import timezone

from core.business_day import business_day_bounds, last_business_day
from merchants.models import Entity
from merchants.selectors import entity_by_id

from .models import ReconFile
from .recon.generate import entities_of_day, recon_file_generate
from .settlement import settle_day


@shared_task(name="reconciliation.settle_last_day", ignore_result=True)
def settle_last_day() -> int:
    """Beat, every hour: settle the last business day whose cut-off has passed (a re-run of a
    day already settled gives the same figures, so running it again is harmless)."""
    return len(settle_day(day=last_business_day(timezone.now())))


@shared_task(name="reconciliation.recon_files_last_day", ignore_result=True)
def recon_files_last_day() -> int:
    """Beat, every hour: the files of the last business day whose cut-off has passed, for every
    entity that has none made after the day ended, one task per entity (a Celery group:
    produced in parallel on as many workers as run)."""
    day = last_business_day(timezone.now())
    ended = business_day_bounds(day)[1]
    done = set(  # a file made before the day ended (a preview) is made again
        ReconFile.objects.filter(day=day, generated_at__gte=ended).values_list(
            "entity__entity_id", flat=True
        )
    )
    missing = [e.entity_id for e in entities_of_day(day) if e.entity_id not in done]
    if missing:
        group(recon_file.si(entity_id, day.isoformat()) for entity_id in missing).apply_async()
    return len(missing)


@shared_task(name="reconciliation.recon_file", ignore_result=True, acks_late=True)
def recon_file(entity_id: str, day: str) -> str:
    """One entity's file of `day` (YYYY-MM-DD); its merchants are settled first when no final
    run of the day exists, so the file carries the reconciliation amounts."""
    entity = entity_by_id(entity_id=entity_id)
    if entity is None:
        raise Entity.DoesNotExist(f"no entity {entity_id}")
    return recon_file_generate(entity=entity, day=date.fromisoformat(day)).path
