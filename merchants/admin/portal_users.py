"""The merchant page's portal users (issue 23): bank staff onboard a merchant's portal users and
set each one's role (administrator, operator, viewer: issue 35).

An inline on the merchant's change page lists its portal users. A new row takes an email: saving
creates the user (its username and email), bound to this merchant (the inline's parent, so the
merchant cannot be chosen or changed), and shows a one-time password once. On an existing row,
"active" deactivates or re-activates the user and "reset password" issues a new one-time
password. Every write goes through `merchants.services.portal_user_*` with the staff actor; a
refusal (an email of staff or of another merchant's user) is shown by the field and nothing is
written. The changes are listed in "portal user history".
"""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet
from django.http import HttpRequest

from core.admin import HistoryInline, show_secret_once, staff_actor

from .. import services
from ..forms import PortalUserInlineForm
from ..models import Merchant, PortalUser, PortalUserChange


class PortalUserInline(admin.TabularInline):
    model = PortalUser
    form = PortalUserInlineForm
    verbose_name = "portal user"
    verbose_name_plural = "portal users (merchant administrators: sign in at /portal/)"
    fields = (
        "email",
        "role",
        "active",
        "reset_password",
        "password_state",
        "last_sign_in",
        "created_at",
    )
    readonly_fields = ("password_state", "last_sign_in", "created_at")
    extra = 1
    can_delete = False
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[PortalUser]:
        return super().get_queryset(request).select_related("user")

    @admin.display(description="password")
    def password_state(self, obj: PortalUser) -> str:
        if not obj.pk:
            return "a one-time password is shown after saving"
        if obj.must_change_password:
            return "one-time (not yet changed)"
        return "chosen by the user"

    @admin.display(description="last sign-in (UTC)")
    def last_sign_in(self, obj: PortalUser) -> str:
        last = obj.user.last_login if obj.pk else None
        return last.strftime("%Y-%m-%d %H:%M") if last else "-"


class PortalUserChangeInline(HistoryInline):
    model = PortalUserChange
    verbose_name = "portal user change"
    verbose_name_plural = "portal user history"
    fields = ("changed_at", "changed_by", "username", "action", "detail")


def save_portal_users(request: HttpRequest, formset: BaseInlineFormSet) -> None:
    """The inline's changed rows, each through its service (in the admin's transaction: a
    refusal raised here rolls the whole save back)."""
    merchant: Merchant = formset.instance
    actor = staff_actor(request)
    label = f"merchant {merchant.merchant_id}"
    # What saving the formset would have recorded, for the admin's change message.
    formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
    for form in formset.forms:
        if not form.has_changed():
            continue
        data: dict[str, Any] = form.cleaned_data
        if form.instance.pk is None:
            portal_user, password = services.portal_user_create(
                merchant=merchant, email=data["email"], changed_by=actor, role=data["role"]
            )
            formset.new_objects.append(portal_user)
            show_secret_once(
                request,
                f"portal user {portal_user.user.username} of {label}",
                password,
                what="one-time password",
            )
            continue
        portal_user = form.instance
        formset.changed_objects.append((portal_user, form.changed_data))
        if "active" in form.changed_data:
            services.portal_user_set_active(
                portal_user=portal_user, active=data["active"], changed_by=actor
            )
        if "role" in form.changed_data:
            services.portal_user_set_role(
                portal_user=portal_user, role=data["role"], changed_by=actor
            )
        if data.get("reset_password"):
            password = services.portal_user_reset_password(
                portal_user=portal_user, changed_by=actor
            )
            show_secret_once(
                request,
                f"portal user {portal_user.user.username} of {label}",
                password,
                what="one-time password",
            )
