"""Reads of entities and merchants, always through the caller's reach."""

from django.db.models import QuerySet

from core import results
from core.errors import NotFound
from core.tokens import token_hash

from .models import Entity, EntityType, Merchant


def entity_by_token(token: str) -> Entity | None:
    return Entity.objects.filter(token_hash=token_hash(token), is_active=True).first()


def merchants_reachable(*, entity: Entity) -> QuerySet[Merchant]:
    """A participator reaches the merchants it owns; a merchant entity reaches itself."""
    if entity.entity_type == EntityType.PARTICIPATOR:
        return Merchant.objects.filter(participator=entity)
    return Merchant.objects.filter(entity=entity)


def merchant_get(*, entity: Entity, merchant_id: str) -> Merchant:
    """The merchant with that merchant.id if the entity reaches it; 404 (700.100.101) otherwise,
    whether it does not exist or belongs to someone else."""
    merchant = merchants_reachable(entity=entity).filter(merchant_id=merchant_id).first()
    if merchant is None:
        raise NotFound(results.MERCHANT_NOT_FOUND)
    return merchant
