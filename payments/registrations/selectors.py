"""Reads of registrations, always through the caller's reach."""

from django.db.models import QuerySet

from core.errors import NotFound
from core.lookups import one
from merchants.models import Entity
from merchants.selectors import merchants_reachable

from .. import results
from .models import Registration


def registrations_reachable(*, entity: Entity) -> QuerySet[Registration]:
    """The registrations of the merchants the entity reaches (its own, or its channel's)."""
    return Registration.objects.filter(merchant__in=merchants_reachable(entity=entity))


def registration_get(*, entity: Entity, registration_id: str) -> Registration:
    """The registration with its standing instructions; 404 (100.150.200) when it does not
    exist or belongs to a merchant the entity does not reach."""
    registration = one(
        registrations_reachable(entity=entity)
        .filter(pk=registration_id)
        .select_related("merchant")
        .prefetch_related("standing_instructions")
    )
    if registration is None:
        raise NotFound(results.REGISTRATION_NOT_FOUND)
    return registration
