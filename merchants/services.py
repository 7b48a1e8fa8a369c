"""Every write to entities and merchants. Admin actions, API views and commands call these.

Status changes and 3DS enrolment lock the merchant row (`select_for_update`), check the
transition after the lock, write the new state and an append-only history row in one transaction.
Refusals raise `ApplicationError` with their result code before anything is written.
"""

import logging
import secrets
from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core import outbox, vault
from core import results as core_results
from core.bearer import new_token, token_hash
from core.errors import ApplicationError, Forbidden
from core.lifecycle import Lifecycle
from core.status import operating_lifecycle
from core.writes import save_changes

from . import results
from .lock_objects import amount_limit_lock, entity_lock, merchant_lock, portal_user_lock
from .models import (
    MERCHANT_DATA_FIELDS,
    AmountLimit,
    Entity,
    EntityTokenChange,
    EntityType,
    Merchant,
    MerchantStatusChange,
    PortalUser,
    PortalUserChange,
    ThreeDSEnrolmentEvent,
    ThreeDSStatus,
)

logger = logging.getLogger("merchants")

TOKEN_PURPOSE = "entity-token"
# How long the token a rotation replaces may keep working (docs/decisions.md, issue 25).
MAX_TOKEN_OVERLAP = timedelta(hours=24)


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
    locked = merchant_lock(merchant.pk)
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


# --- portal users -------------------------------------------------------------------------------

PORTAL_PASSWORD_BYTES = 12  # 16 URL-safe characters


def _one_time_password() -> str:
    return secrets.token_urlsafe(PORTAL_PASSWORD_BYTES)


def _email_refusal(description: str) -> ApplicationError:
    return ApplicationError(core_results.DUPLICATE_ENTRY, description)


def portal_user_email_problem(email: str) -> str:
    """Why `email` cannot become a new portal user, or "" (the admin's form shows it by the
    field; `portal_user_create` checks again under its transaction)."""
    try:
        validate_email(email)
    except ValidationError:
        return "enter a valid email address"
    existing = (
        User.objects.filter(Q(username__iexact=email) | Q(email__iexact=email))
        .select_related("portal__merchant")
        .first()
    )
    if existing is None:
        return ""
    if existing.is_staff or existing.is_superuser:
        return f"{email} is a bank staff user: staff cannot be a merchant's portal user"
    link = PortalUser.objects.filter(user=existing).select_related("merchant").first()
    if link is not None:
        return f"{email} is already a portal user of merchant {link.merchant.merchant_id}"
    return f"a user {existing.get_username()} with this email already exists"


def portal_user_create(
    *, merchant: Merchant, email: str, changed_by: str
) -> tuple[PortalUser, str]:
    """A new portal user of `merchant`: a Django user whose username and email are `email`
    (lower-cased), not staff, bound to this merchant only, with a one-time password that is
    returned once and must be changed at the first sign-in.

    Refused with 200.300.405, nothing written, when the email is malformed or names an existing
    user: bank staff, another merchant's (or this merchant's) portal user, or any other user, so
    no existing account is ever attached to a merchant. The unique username decides under
    concurrency."""
    email = email.strip().lower()
    problem = portal_user_email_problem(email)
    if problem:
        raise _email_refusal(f"portal user not created: {problem}")
    password = _one_time_password()
    try:
        with transaction.atomic():
            user = User(username=email, email=email, is_staff=False, is_superuser=False)
            user.set_password(password)
            user.save()
            portal_user = PortalUser.objects.create(
                user=user, merchant=merchant, must_change_password=True
            )
            _portal_history(portal_user, PortalUserChange.Action.CREATED, changed_by)
    except IntegrityError:
        raise _email_refusal(
            f"portal user not created: a user with the email {email} already exists"
        ) from None
    return portal_user, password


@transaction.atomic
def portal_user_set_active(*, portal_user: PortalUser, active: bool, changed_by: str) -> bool:
    """Deactivate (the sign-in and every open session of the user are refused from the next
    request) or re-activate a portal user. Returns whether anything changed; a user already in
    that state is left as it is, with no history row."""
    user = portal_user_lock(portal_user)
    if user.is_active == active:
        return False
    user.is_active = active
    user.save(update_fields=["is_active"])
    action = PortalUserChange.Action.ACTIVATED if active else PortalUserChange.Action.DEACTIVATED
    _portal_history(portal_user, action, changed_by)
    portal_user.user.is_active = active
    return True


@transaction.atomic
def portal_user_reset_password(*, portal_user: PortalUser, changed_by: str) -> str:
    """Give a portal user a new one-time password and return it (shown once, never stored in
    clear). The old password and every open session stop working (Django's session hash follows
    the password); the portal asks for a new password at the next sign-in. The user's failed
    sign-ins are forgotten (django-axes), so a locked-out user may sign in with it at once. A
    deactivated user stays deactivated."""
    from axes.utils import reset as forget_failed_sign_ins  # needs settings: imported late

    user = portal_user_lock(portal_user)
    password = _one_time_password()
    user.set_password(password)
    user.save(update_fields=["password"])
    forget_failed_sign_ins(username=user.get_username())
    PortalUser.objects.filter(pk=portal_user.pk).update(must_change_password=True)
    portal_user.must_change_password = True
    _portal_history(portal_user, PortalUserChange.Action.PASSWORD_RESET, changed_by)
    return password


def portal_user_password_changed(*, portal_user: PortalUser) -> None:
    """The user chose its own password: the one-time password's restriction ends."""
    PortalUser.objects.filter(pk=portal_user.pk).update(must_change_password=False)
    portal_user.must_change_password = False


def _portal_history(portal_user: PortalUser, action: str, changed_by: str) -> None:
    PortalUserChange.objects.create(
        merchant_id=portal_user.merchant_id,
        username=portal_user.user.get_username(),
        action=action,
        changed_by=changed_by,
    )


# --- amount limits ------------------------------------------------------------------------------


@transaction.atomic
def amount_limit_set(
    *, merchant: Merchant | None, currency: str, max_amount: Decimal, changed_by: str
) -> AmountLimit:
    """The most one payment of `merchant` (None: of every merchant, the platform's limit) may be
    for in `currency`: created, or changed if one is set. The row is locked while it changes."""
    limit = amount_limit_lock(merchant=merchant, currency=currency)
    if limit is None:
        limit = AmountLimit(merchant=merchant, currency=currency)
    limit.max_amount, limit.changed_by = max_amount, changed_by
    limit.save()
    logger.info(
        "amount limit %s %s set to %s by %s",
        merchant.merchant_id if merchant else "platform",
        currency,
        max_amount,
        changed_by,
    )
    return limit


@transaction.atomic
def amount_limit_remove(*, limit: AmountLimit, changed_by: str) -> None:
    """No more limit of this row's level in its currency (the other level's still applies)."""
    AmountLimit.objects.filter(pk=limit.pk).delete()
    logger.info(
        "amount limit %s %s removed by %s",
        limit.merchant.merchant_id if limit.merchant_id else "platform",  # type: ignore[union-attr]
        limit.currency,
        changed_by,
    )
