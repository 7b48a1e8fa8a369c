"""Reads of entities and merchants, always through the caller's reach."""

from typing import Any

from django.db.models import QuerySet

from core.bearer import token_hash
from core.errors import NotFound
from core.lookups import one

from . import results
from .models import Entity, EntityType, Merchant


def entity_by_token(token: str) -> Entity | None:
    return one(Entity.objects.filter(token_hash=token_hash(token), is_active=True))


def merchants_reachable(*, entity: Entity) -> QuerySet[Merchant]:
    """A participator reaches the merchants it owns; a merchant entity reaches itself."""
    if entity.entity_type == EntityType.PARTICIPATOR:
        return Merchant.objects.filter(participator=entity)
    return Merchant.objects.filter(entity=entity)


def merchant_get(*, entity: Entity, merchant_id: str) -> Merchant:
    """The merchant with that merchant.id if the entity reaches it; 404 (700.100.101) otherwise,
    whether it does not exist or belongs to someone else."""
    merchant = one(merchants_reachable(entity=entity).filter(merchant_id=merchant_id))
    if merchant is None:
        raise NotFound(results.MERCHANT_NOT_FOUND)
    return merchant


class EntityDirectory:
    """How core's bearer authentication finds entities (registered in MerchantsConfig.ready)."""

    def by_token(self, token: str) -> Entity | None:
        return entity_by_token(token)

    def by_id(self, entity_id: str) -> Entity | None:
        return one(Entity.objects.filter(entity_id=entity_id, is_active=True))

    def may_act(self, token_entity: Any, entity: Any) -> bool:
        """Itself, or channel dispatching: a participator acting for a merchant it owns."""
        return token_entity.pk == entity.pk or (
            token_entity.entity_type == EntityType.PARTICIPATOR
            and entity.owner_id == token_entity.pk
        )

    def entity_types(self, entity: Any) -> frozenset[str]:
        if entity.entity_type == EntityType.PARTICIPATOR:
            return frozenset({EntityType.PARTICIPATOR})
        return frozenset({EntityType.MERCHANT, EntityType.POS})
