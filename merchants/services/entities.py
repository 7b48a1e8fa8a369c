"""Entities and their bearer tokens: created with a fresh token (shown once), rotated or set
with an optional overlap for the old one, kept as a SHA-256 hash for look-up and encrypted with
the vault key for the outbound notifications' Authorization header (docs/decisions.md, issue 25).
"""

import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import vault
from core.bearer import new_token, token_hash
from core.writes import save_changes

from ..lock_objects import entity_lock
from ..models import Entity, EntityTokenChange, Merchant

TOKEN_PURPOSE = "entity-token"
# How long the token a rotation replaces may keep working (docs/decisions.md, issue 25).
MAX_TOKEN_OVERLAP = timedelta(hours=24)


def _token_fields(token: str) -> dict[str, Any]:
    return {
        "token_hash": token_hash(token),
        "token_last4": token[-4:],
        "token_ciphertext": vault.encrypt(token, purpose=TOKEN_PURPOSE),
        "token_rotated_at": timezone.now(),
    }


def entity_create(
    *, entity_type: str, entity_id: str, name: str = "", owner: Entity | None = None
) -> tuple[Entity, str]:
    """Create an entity with a fresh token; the token is returned once and never again."""
    token = new_token()
    entity = Entity.objects.create(
        entity_id=entity_id, entity_type=entity_type, name=name, owner=owner, **_token_fields(token)
    )
    return entity, token


@transaction.atomic
def entity_rotate_token(
    *,
    entity: Entity,
    token: str | None = None,
    overlap: timedelta = timedelta(0),
    changed_by: str = "system",
) -> str:
    """Replace an entity's token (a given one, or a fresh random one) and return it.

    The old token stops at once (`overlap` zero) or keeps authenticating for `overlap`, at most
    MAX_TOKEN_OVERLAP (ValueError beyond); outbound notifications carry the new one from now on.
    Only one previous token is kept: a token still in the overlap of an earlier rotation ends
    now. Locks the entity row; writes one `EntityTokenChange` row in the same transaction.
    """
    if not timedelta(0) <= overlap <= MAX_TOKEN_OVERLAP:
        raise ValueError(f"the overlap must be between 0 and {MAX_TOKEN_OVERLAP}")
    kind = EntityTokenChange.Kind.SET if token else EntityTokenChange.Kind.ROTATED
    token = token or new_token()
    locked = entity_lock(entity.pk)
    now = timezone.now()
    cut_short = locked.previous_token_last4 if locked.previous_token_live(now) else ""
    old_last4, ends_at = locked.token_last4, now + overlap
    if overlap:
        locked.previous_token_hash = locked.token_hash
        locked.previous_token_last4 = locked.token_last4
        locked.previous_token_ends_at = ends_at
    else:
        locked.previous_token_hash, locked.previous_token_last4 = "", ""
        locked.previous_token_ends_at = None
    for key, value in _token_fields(token).items():
        setattr(locked, key, value)
    locked.token_rotated_at = now
    locked.save(update_fields=[*TOKEN_COLUMNS, *PREVIOUS_TOKEN_COLUMNS])
    _token_history(
        locked,
        kind=kind,
        old_last4=old_last4,
        new_last4=locked.token_last4,
        ends_at=ends_at,
        cut_short=cut_short,
        changed_by=changed_by,
        now=now,
    )
    entity.refresh_from_db()
    return token


@transaction.atomic
def entity_end_previous_token(*, entity: Entity, changed_by: str) -> bool:
    """End the overlap of the last rotation now: the previous token is refused from this moment.
    False (and nothing written) when no previous token is working."""
    locked = entity_lock(entity.pk)
    now = timezone.now()
    if not locked.previous_token_live(now):
        return False
    old_last4 = locked.previous_token_last4
    locked.previous_token_hash, locked.previous_token_last4 = "", ""
    locked.previous_token_ends_at = None
    locked.save(update_fields=list(PREVIOUS_TOKEN_COLUMNS))
    _token_history(
        locked,
        kind=EntityTokenChange.Kind.ENDED,
        old_last4=old_last4,
        new_last4="",
        ends_at=now,
        cut_short="",
        changed_by=changed_by,
        now=now,
    )
    entity.refresh_from_db()
    return True


TOKEN_COLUMNS = ("token_hash", "token_last4", "token_ciphertext", "token_rotated_at")
PREVIOUS_TOKEN_COLUMNS = ("previous_token_hash", "previous_token_last4", "previous_token_ends_at")


def _token_history(
    entity: Entity,
    *,
    kind: str,
    old_last4: str,
    new_last4: str,
    ends_at: Any,
    cut_short: str,
    changed_by: str,
    now: Any,
) -> None:
    EntityTokenChange.objects.create(
        entity=entity,
        merchant=Merchant.objects.filter(entity=entity).first(),
        kind=kind,
        old_last4=old_last4,
        new_last4=new_last4,
        old_token_ends_at=ends_at,
        cut_short_last4=cut_short,
        changed_by=changed_by,
        changed_at=now,
    )


@transaction.atomic
def entity_update(
    *,
    entity: Entity,
    name: str | None = None,
    is_active: bool | None = None,
    test_mode: bool | None = None,
) -> Entity:
    """Change an entity's name, deactivate it (an inactive entity's token answers 401), or put a
    participator's merchants in connector test mode (000.100.112, no production settlement).

    Only these columns are written, under the row lock, so a concurrent token rotation is kept.
    """
    locked = entity_lock(entity.pk)
    changes = {
        key: value
        for key, value in (("name", name), ("is_active", is_active), ("test_mode", test_mode))
        if value is not None
    }
    save_changes(locked, changes, allowed=("name", "is_active", "test_mode"))
    if test_mode is not None:
        Merchant.objects.filter(participator=locked).update(participator_test_mode=test_mode)
    return locked


def entity_token_plaintext(*, entity: Entity) -> str:
    """The token in clear, only to place it in an outbound Authorization header."""
    return vault.decrypt(entity.token_ciphertext, purpose=TOKEN_PURPOSE)


def free_entity_id(preferred: str | None) -> str:
    """The merchant's entityId: its merchant.id when that has 8 digits and is free, else a fresh
    random 8-digit id not used by any entity."""
    if (
        preferred
        and len(preferred) == 8
        and not Entity.objects.filter(entity_id=preferred).exists()
    ):
        return preferred
    while True:
        candidate = f"{secrets.randbelow(90_000_000) + 10_000_000}"
        if not Entity.objects.filter(entity_id=candidate).exists():
            return candidate


def notification_credentials(entity_pk: str) -> str:
    """The access token an outbound notification to this entity carries (core.outbox)."""
    return entity_token_plaintext(entity=Entity.objects.get(pk=entity_pk))
