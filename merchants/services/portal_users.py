"""The merchant portal's users: created by bank staff with a one-time password, deactivated,
re-activated, given a new one-time password; each change in the merchant's history."""

import secrets

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q

from core import results as core_results
from core.errors import ApplicationError

from ..lock_objects import portal_user_lock
from ..models import Merchant, PortalUser, PortalUserChange

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
    *,
    merchant: Merchant,
    email: str,
    changed_by: str,
    role: str = PortalUser.Role.ADMINISTRATOR,
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
                user=user, merchant=merchant, must_change_password=True, role=role
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


@transaction.atomic
def portal_user_set_role(*, portal_user: PortalUser, role: str, changed_by: str) -> bool:
    """Make a portal user an administrator, an operator or a viewer (PortalUser.Role), from
    its next request. Returns whether anything changed; the change is kept in the history, with
    the role it had and the one it has."""
    if role not in PortalUser.Role.values:
        raise ValueError(f"no such role: {role}")
    portal_user_lock(portal_user)
    before = PortalUser.objects.values_list("role", flat=True).get(pk=portal_user.pk)
    if before == role:
        return False
    PortalUser.objects.filter(pk=portal_user.pk).update(role=role)
    portal_user.role = role
    names = dict(PortalUser.Role.choices)
    _portal_history(
        portal_user,
        PortalUserChange.Action.ROLE_CHANGED,
        changed_by,
        detail=f"{names[before].split(' (')[0]} to {names[role].split(' (')[0]}",
    )
    return True


def portal_user_password_changed(*, portal_user: PortalUser) -> None:
    """The user chose its own password: the one-time password's restriction ends."""
    PortalUser.objects.filter(pk=portal_user.pk).update(must_change_password=False)
    portal_user.must_change_password = False


def _portal_history(
    portal_user: PortalUser, action: str, changed_by: str, detail: str = ""
) -> None:
    PortalUserChange.objects.create(
        merchant_id=portal_user.merchant_id,
        username=portal_user.user.get_username(),
        action=action,
        changed_by=changed_by,
        detail=detail,
    )
