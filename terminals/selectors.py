"""Reads of terminals, always through the caller's reach."""

from typing import Any

from django.db.models import QuerySet

from core.errors import NotFound
from core.lookups import one
from merchants.models import Entity
from merchants.selectors import merchants_reachable

from . import results
from .models import Terminal


def terminals_reachable(*, entity: Entity) -> QuerySet[Terminal]:
    return Terminal.objects.filter(merchant__in=merchants_reachable(entity=entity)).select_related(
        "merchant"
    )


def terminal_get(*, entity: Entity, terminal_id: str) -> Terminal:
    """The terminal if the entity reaches its merchant; 404 (700.100.102) otherwise."""
    terminal = one(terminals_reachable(entity=entity).filter(terminal_id=terminal_id))
    if terminal is None:
        raise NotFound(results.TERMINAL_NOT_FOUND)
    return terminal


def terminal_list_for_merchant(*, merchant_pk: int) -> QuerySet[Terminal]:
    return Terminal.objects.filter(merchant_id=merchant_pk)


def terminal_of_merchant_entity(entity: Any, terminal_id: str) -> Terminal | None:
    """The terminal a POS entity acts through (core.auth's terminal finder), or None."""
    return one(Terminal.objects.filter(terminal_id=terminal_id, merchant__entity=entity))
