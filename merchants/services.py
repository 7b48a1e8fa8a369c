"""Every write to entities and merchants. Admin actions, API views and commands call these.

Status changes and 3DS enrolment lock the merchant row (`select_for_update`), check the
transition after the lock, write the new state and an append-only history row in one transaction.
Refusals raise `ApplicationError` with their result code before anything is written.
"""

import secrets
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from core import outbox, vault
from core import results as core_results
from core.bearer import new_token, token_hash
from core.errors import ApplicationError, Forbidden
from core.lifecycle import Lifecycle
from core.status import operating_lifecycle
from core.writes import save_changes

from . import results
from .models import (
    MERCHANT_DATA_FIELDS,
    Entity,
    EntityType,
    Merchant,
    MerchantStatusChange,
    ThreeDSEnrolmentEvent,
    ThreeDSStatus,
)

TOKEN_PURPOSE = "entity-token"


def _enrolment_refusal(current: str, target: str) -> ApplicationError:
    if target == ThreeDSStatus.ENROLLED:
        return ApplicationError(results.THREEDS_ALREADY_ENROLLED)
    return ApplicationError(results.THREEDS_NOT_ENROLLED)


# Enrolment in the network's 3DS2 programme: a deleted merchant may enrol again.
THREEDS_ENROLMENT = Lifecycle(
    "3DS enrolment",
    {
        ThreeDSStatus.NOT_ENROLLED: {ThreeDSStatus.ENROLLED},
        ThreeDSStatus.ENROLLED: {ThreeDSStatus.DELETED},
        ThreeDSStatus.DELETED: {ThreeDSStatus.ENROLLED},
    },
    field="threeds_status",
    refusal=_enrolment_refusal,
    history=ThreeDSEnrolmentEvent,
    subject="merchant",
    history_fields=lambda previous, target: {
        "action": ThreeDSEnrolmentEvent.Action.ENROL
        if target == ThreeDSStatus.ENROLLED
        else ThreeDSEnrolmentEvent.Action.DELETE
    },
)

MERCHANT_STATUS = operating_lifecycle(
    "merchant status",
    refusal=lambda current, target: ApplicationError(results.MERCHANT_STATUS_NOT_ALLOWED),
    history=MerchantStatusChange,
    subject="merchant",
)


# --- entities -----------------------------------------------------------------------------------


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
def entity_rotate_token(*, entity: Entity, token: str | None = None) -> str:
    """Replace an entity's token (a given one, or a fresh random one); the old one stops at once."""
    token = token or new_token()
    locked = Entity.objects.select_for_update().get(pk=entity.pk)
    for key, value in _token_fields(token).items():
        setattr(locked, key, value)
    locked.save(update_fields=["token_hash", "token_last4", "token_ciphertext", "token_rotated_at"])
    entity.refresh_from_db()
    return token


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
    locked = Entity.objects.select_for_update().get(pk=entity.pk)
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


def _free_entity_id(preferred: str | None) -> str:
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


# --- merchants ----------------------------------------------------------------------------------


def merchant_create(
    *, participator: Entity, merchant_id: str, values: Mapping[str, Any], changed_by: str
) -> tuple[Merchant, str]:
    """Create a merchant owned by `participator`, with its own MERCHANT entity and token.

    A merchant.id that exists already (under any participator: the id is acquirer-wide) is
    refused with 200.300.405; the unique constraint decides under concurrency.
    """
    if participator.entity_type != EntityType.PARTICIPATOR:
        raise Forbidden("only a participator owns merchants")
    if Merchant.objects.filter(merchant_id=merchant_id).exists():
        raise _duplicate_merchant(merchant_id)
    try:
        with transaction.atomic():
            entity, token = entity_create(
                entity_type=EntityType.MERCHANT,
                entity_id=_free_entity_id(merchant_id),
                name=str(values.get("business", ""))[:100],
                owner=participator,
            )
            merchant = Merchant.objects.create(
                merchant_id=merchant_id,
                entity=entity,
                participator=participator,
                participator_test_mode=participator.test_mode,
                **values,
            )
            MERCHANT_STATUS.record(merchant, "", merchant.status, actor=changed_by)
    except IntegrityError:
        if Merchant.objects.filter(merchant_id=merchant_id).exists():
            raise _duplicate_merchant(merchant_id) from None
        raise
    return merchant, token


def _duplicate_merchant(merchant_id: str) -> ApplicationError:
    return ApplicationError(
        core_results.DUPLICATE_ENTRY, f"duplicate entry: merchant.id {merchant_id} already exists"
    )


@transaction.atomic
def merchant_update(*, merchant: Merchant, values: Mapping[str, Any]) -> Merchant:
    """Change registered data (MERCHANT_DATA_FIELDS only). merchant.id, status and 3DS enrolment
    are not changed here. Only the given columns are written, under the row lock."""
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    save_changes(locked, values, allowed=MERCHANT_DATA_FIELDS)
    return locked


@transaction.atomic
def merchant_set_status(
    *, merchant: Merchant, status: str | None, security_status: str | None, changed_by: str
) -> Merchant:
    """Set merchant.status (and optionally merchant.securityStatus), with history.

    Refused with 700.500.100, state unchanged, when NORMAL is requested for a CLOSED or
    TERMINATED merchant.
    """
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    new_status = status or locked.status
    MERCHANT_STATUS.check(locked.status, new_status)
    old_security = locked.security_status
    if security_status is not None:
        locked.security_status = security_status
    MERCHANT_STATUS.apply(
        locked,
        new_status,
        actor=changed_by,
        save_fields=["security_status"],
        history={
            "from_security_status": old_security,
            "to_security_status": locked.security_status,
        },
    )
    return locked


@transaction.atomic
def merchant_set_test_mode(*, merchant: Merchant, test_mode: bool) -> Merchant:
    """Connector test mode: approvals answer 000.100.112 and the payments stay out of production
    settlement and daily files."""
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    save_changes(locked, {"test_mode": test_mode}, allowed=("test_mode",))
    return locked


@transaction.atomic
def merchant_set_threeds_mode(*, merchant: Merchant, mode: str) -> Merchant:
    """OPTIONAL: 3-D Secure when a payment asks for it; MANDATORY: every PA and DB."""
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    locked.threeds_mode = mode
    locked.save(update_fields=["threeds_mode", "updated_at"])
    return locked


@transaction.atomic
def merchant_3ds_enrol(*, merchant: Merchant, changed_by: str) -> Merchant:
    """Enrol in the network's 3DS2 programme; 700.500.200 when already enrolled."""
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    THREEDS_ENROLMENT.check(locked.threeds_status, ThreeDSStatus.ENROLLED)
    locked.threeds_enrolled_at = timezone.now()
    locked.threeds_delete_reason = ""
    THREEDS_ENROLMENT.apply(
        locked,
        ThreeDSStatus.ENROLLED,
        actor=changed_by,
        save_fields=["threeds_enrolled_at", "threeds_delete_reason"],
    )
    return locked


@transaction.atomic
def merchant_3ds_delete(*, merchant: Merchant, reason: str, changed_by: str) -> Merchant:
    """Delete from the 3DS2 programme with one of the five reasons; 700.500.201 if not enrolled."""
    locked = Merchant.objects.select_for_update().get(pk=merchant.pk)
    THREEDS_ENROLMENT.check(locked.threeds_status, ThreeDSStatus.DELETED)
    locked.threeds_deleted_at = timezone.now()
    locked.threeds_delete_reason = reason
    THREEDS_ENROLMENT.apply(
        locked,
        ThreeDSStatus.DELETED,
        actor=changed_by,
        save_fields=["threeds_deleted_at", "threeds_delete_reason"],
        history={"reason": reason},
    )
    return locked


def notification_credentials(entity_pk: str) -> str:
    """The access token an outbound notification to this entity carries (core.outbox)."""
    return entity_token_plaintext(entity=Entity.objects.get(pk=entity_pk))


TEST_TOPIC = "merchant.test"


def notification_test(*, merchant: Merchant) -> str:
    """A test notification to the merchant's notification URL (its administrator asks for it in
    the portal), delivered as the token notifications are; returns its event id. ValueError
    when the merchant has no URL."""
    if not merchant.notification_url:
        raise ValueError("no notification URL is set")
    with transaction.atomic():
        message = outbox.enqueue(
            topic=TEST_TOPIC,
            subject=merchant.merchant_id,
            url=merchant.notification_url,
            credential=str(merchant.entity_id),
            body={"test": True, "merchantId": merchant.merchant_id},
        )
    return message.event_id
