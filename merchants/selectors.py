"""Reads of entities and merchants: through the caller's reach for the API and the portal; by
id or primary key for bank staff's tools and reconciliation (each says so)."""

from collections.abc import Collection, Iterable
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from core.bearer import token_hash
from core.context import bind_log
from core.errors import NotFound
from core.lookups import one
from core.prepared import TEXT, PreparedRead

from . import results
from .models import Entity, EntityType, Merchant, PortalUser

# Read on every API request: its SQL is compiled once per process (core.prepared).
_ENTITY_BY_TOKEN = PreparedRead(
    lambda digest: Entity.objects.select_related("merchant").filter(
        token_hash=digest, is_active=True
    ),
    digest=TEXT,
)


def entity_by_token(token: str) -> Entity | None:
    """The active entity whose current token this is, or whose previous token it is while the
    overlap of the last rotation lasts (`previous_token_ends_at` in the future); else None.

    The current token is looked up first, alone, so the hot path stays one indexed query; a
    merchant's entity comes with its merchant (one join), which `merchant_get` then takes
    without a query of its own."""
    digest = token_hash(token)
    current = _ENTITY_BY_TOKEN.one(digest=digest)
    if current is not None:
        return current
    return one(
        Entity.objects.filter(
            previous_token_hash=digest, previous_token_ends_at__gt=timezone.now(), is_active=True
        )
    )


def portal_users_of(*, merchant: Merchant) -> QuerySet[PortalUser]:
    """The merchant's portal users with their Django users, by username."""
    return PortalUser.objects.filter(merchant=merchant).select_related("user")


def portal_user_get(*, username: str) -> PortalUser | None:
    """The portal user with this username (case-insensitive: it is an email), or None."""
    return (
        PortalUser.objects.filter(user__username__iexact=username.strip())
        .select_related("user", "merchant")
        .first()
    )


def portal_user_of(user_id: int) -> PortalUser | None:
    """The portal binding of a signed-in user, with its merchant, or None (bank staff, anyone
    else): core.portal's member finder, registered in merchants.apps."""
    return PortalUser.objects.select_related("merchant").filter(user_id=user_id).first()


def merchants_reachable(*, entity: Entity) -> QuerySet[Merchant]:
    """A participator reaches the merchants it owns; a merchant entity reaches itself."""
    if entity.entity_type == EntityType.PARTICIPATOR:
        return Merchant.objects.filter(participator=entity)
    return Merchant.objects.filter(entity=entity)


def merchant_by_id(*, merchant_id: str) -> Merchant | None:
    """The merchant with this merchant.id, or None: for bank staff's tools (no entity's reach)."""
    return Merchant.objects.filter(merchant_id=merchant_id).first()


def merchants_by_pk(*, pks: Iterable[int] | QuerySet[Any]) -> QuerySet[Merchant]:
    """The merchants of these primary keys, by primary key. `pks` may be another app's query of
    merchant ids (a subquery: one statement)."""
    return Merchant.objects.filter(pk__in=pks).order_by("pk")


def merchant_pks_covered(*, entity: Entity) -> list[int]:
    """The merchants an entity's reconciliation file covers, by primary key: a merchant
    entity's own merchant, a participator's the merchants of the entities it owns."""
    if entity.entity_type == EntityType.PARTICIPATOR:
        found = Merchant.objects.filter(entity__owner=entity)
    else:
        found = Merchant.objects.filter(entity=entity)
    return list(found.order_by("pk").values_list("pk", flat=True))


def entity_by_id(*, entity_id: str) -> Entity | None:
    """The entity with this entityId, active or not, or None: for bank staff's tools and
    reconciliation's files (no entity's reach; `EntityDirectory.by_id` is the API's)."""
    return Entity.objects.filter(entity_id=entity_id).first()


def entities_of_merchants(*, merchant_pks: Collection[int]) -> list[Entity]:
    """The entities of these merchants and the participators that own them, each once, by
    entityId (one statement)."""
    entities = Entity.objects.filter(merchant__pk__in=merchant_pks)
    owners = Entity.objects.filter(owned_entities__merchant__pk__in=merchant_pks)
    return list((entities | owners).distinct().order_by("entity_id"))


def merchant_get(*, entity: Entity, merchant_id: str) -> Merchant:
    """The merchant with that merchant.id if the entity reaches it; 404 (700.100.101) otherwise,
    whether it does not exist or belongs to someone else. A merchant's entity read with its
    merchant (the bearer token's, `entity_by_token`) answers from that row: the same request's
    read, no second query."""
    merchant: Merchant | None
    if entity.entity_type != EntityType.PARTICIPATOR and Entity.merchant.is_cached(entity):
        merchant = getattr(entity, "merchant", None)  # None: an entity without its merchant
        if merchant is not None and merchant.merchant_id != merchant_id:
            merchant = None
    else:
        merchant = one(merchants_reachable(entity=entity).filter(merchant_id=merchant_id))
    if merchant is None:
        raise NotFound(results.MERCHANT_NOT_FOUND)
    bind_log(merchant=merchant.merchant_id)  # on every later log line of the request
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


CENT = Decimal("0.01")
# Read on every payment, as plain SQL (nothing to compile): the lower of the merchant's and the
# platform's limit in a currency. tests/merchants/test_amount_limit_sql.py holds it to the model.
AMOUNT_LIMIT_SQL = (
    'SELECT MIN("max_amount") FROM "merchants_amountlimit" '
    'WHERE "currency" = %s AND ("merchant_id" = %s OR "merchant_id" IS NULL)'
)


def amount_limit_for(*, merchant: Merchant, currency: str) -> Decimal | None:
    """The most one payment of the merchant may be for in `currency`: the lower of its own limit
    and the platform's, or None when neither is set (one indexed read)."""
    with connection.cursor() as cursor:
        cursor.execute(AMOUNT_LIMIT_SQL, [currency, merchant.pk])
        (lowest,) = cursor.fetchone()
    # SQLite answers a number; the column is two decimal places.
    return None if lowest is None else Decimal(str(lowest)).quantize(CENT)
