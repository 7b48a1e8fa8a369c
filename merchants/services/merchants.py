"""Merchants: creation (with their own MERCHANT entity and token), registered data, status and
securityStatus, connector test mode, 3-D Secure mode and enrolment in the network's 3DS2
programme, each under the merchant's row lock with its history; the test notification."""

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from core import outbox
from core import results as core_results
from core.errors import ApplicationError, Forbidden
from core.lifecycle import Lifecycle
from core.status import operating_lifecycle
from core.writes import save_changes

from .. import results
from ..lock_objects import merchant_lock
from ..models import (
    MERCHANT_DATA_FIELDS,
    Entity,
    EntityType,
    Merchant,
    MerchantDataChange,
    MerchantStatusChange,
    ThreeDSEnrolmentEvent,
    ThreeDSStatus,
)
from .entities import entity_create, free_entity_id


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
                entity_id=free_entity_id(merchant_id),
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


MASKED_FIELDS = ("bank_account_number",)


@transaction.atomic
def merchant_update(*, merchant: Merchant, values: Mapping[str, Any], changed_by: str) -> Merchant:
    """Change registered data (MERCHANT_DATA_FIELDS only). merchant.id, status and 3DS enrolment
    are not changed here. Only the given columns are written, under the row lock; each one whose
    value changes is kept in the merchant's data history with `changed_by`."""
    locked = merchant_lock(merchant.pk)
    before = {name: getattr(locked, name) for name in values if hasattr(locked, name)}
    save_changes(locked, values, allowed=MERCHANT_DATA_FIELDS)
    MerchantDataChange.objects.bulk_create(
        MerchantDataChange(
            merchant=locked,
            field=_field_name(name),
            old_value=_shown(name, before[name]),
            new_value=_shown(name, value),
            changed_by=changed_by,
        )
        for name, value in values.items()
        if before.get(name) != value
    )
    return locked


def _field_name(name: str) -> str:
    field = Merchant._meta.get_field(name)
    return str(getattr(field, "verbose_name", name))


def _shown(name: str, value: Any) -> str:
    """A value as the history keeps it: an account number by its last four characters."""
    text = "" if value is None else str(value)
    if name in MASKED_FIELDS and text:
        return masked_account(text)
    return text[:255]


def masked_account(number: str) -> str:
    """An IBAN or account number as pages and the history show it: its country (an IBAN's)
    and last four characters ("DE…3000", "…6789")."""
    country = number[:2] if number[:2].isalpha() else ""
    return f"{country}…{number[-4:]}"


@transaction.atomic
def merchant_set_status(
    *, merchant: Merchant, status: str | None, security_status: str | None, changed_by: str
) -> Merchant:
    """Set merchant.status (and optionally merchant.securityStatus), with history.

    Refused with 700.500.100, state unchanged, when NORMAL is requested for a CLOSED or
    TERMINATED merchant.
    """
    locked = merchant_lock(merchant.pk)
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
    locked = merchant_lock(merchant.pk)
    save_changes(locked, {"test_mode": test_mode}, allowed=("test_mode",))
    return locked


@transaction.atomic
def merchant_set_threeds_mode(*, merchant: Merchant, mode: str) -> Merchant:
    """OPTIONAL: 3-D Secure when a payment asks for it; MANDATORY: every PA and DB."""
    locked = merchant_lock(merchant.pk)
    locked.threeds_mode = mode
    locked.save(update_fields=["threeds_mode", "updated_at"])
    return locked


@transaction.atomic
def merchant_3ds_enrol(*, merchant: Merchant, changed_by: str) -> Merchant:
    """Enrol in the network's 3DS2 programme; 700.500.200 when already enrolled."""
    locked = merchant_lock(merchant.pk)
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
    locked = merchant_lock(merchant.pk)
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
