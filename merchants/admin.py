"""Staff admin for entities and merchants.

Every write goes through `merchants.services`: creating an entity or a merchant (which issues its
token), editing registered data, status, 3-D Secure enrolment and token rotation. Status and
enrolment fields are read-only in forms and change only through the actions, each writing its
history row with `changed_by="staff:<username>"`. Tokens are shown once, in a message right after
they are issued, and never again: neither the hash nor the vault copy is in any form or list.
"""

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.widgets import RelatedFieldWidgetWrapper
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from core.admin import HistoryInline, action_form_response, staff_actor
from core.errors import ApplicationError
from terminals.models import Terminal

from . import services
from .forms import (
    EntityChangeForm,
    EntityCreateForm,
    MerchantCreateForm,
    MerchantDataForm,
    MerchantStatusForm,
    ThreeDSDeleteForm,
)
from .models import Entity, Merchant, MerchantStatusChange, ThreeDSEnrolmentEvent, ThreeDSMode

TOKEN_FIELDS = ("token_hash", "token_ciphertext")


def show_token_once(request: HttpRequest, label: str, token: str) -> None:
    messages.success(
        request, f"New token for {label}: {token} — copy it now, it is not shown again."
    )


def refusal_message(request: HttpRequest, obj: Model, exc: ApplicationError) -> None:
    messages.error(request, f"{obj}: not changed — {exc.description} ({exc.result.code}).")


def adopt(obj: Model, created: Model) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's own
    logging and redirect after "add" point at it."""
    for field in created._meta.concrete_fields:
        setattr(obj, field.attname, getattr(created, field.attname))
    obj._state.adding = False
    obj._state.db = created._state.db


def no_related_popups(formfield: Any) -> Any:
    """No add/change popups beside a foreign key: a popup's response does not show messages, so
    the one-time token of an object added there would surface later on an unrelated page."""
    if isinstance(getattr(formfield, "widget", None), RelatedFieldWidgetWrapper):
        widget = formfield.widget
        widget.can_add_related = widget.can_change_related = widget.can_delete_related = False
    return formfield


class ServiceAddMixin:
    """Adding runs a service inside the admin's transaction. A refusal the form could not foresee
    (a concurrent duplicate id) rolls it back and returns to the add page with the reason."""

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc]
        except ApplicationError as exc:
            messages.error(request, f"Not saved — {exc.description} ({exc.result.code}).")
            return HttpResponseRedirect(request.get_full_path())


# --- entities ------------------------------------------------------------------------------------


@admin.register(Entity)
class EntityAdmin(ServiceAddMixin, admin.ModelAdmin):
    list_display = (
        "entity_id",
        "entity_type",
        "name",
        "owner",
        "token_display",
        "is_active",
        "created_at",
    )
    list_filter = ("entity_type", "is_active")
    search_fields = ("entity_id", "name")
    list_select_related = ("owner",)
    ordering = ("entity_id",)
    date_hierarchy = "created_at"
    list_per_page = 50
    exclude = TOKEN_FIELDS
    actions = ("rotate_token",)

    add_fieldsets = ((None, {"fields": ("entity_id", "entity_type", "name")}),)
    change_fieldsets = (
        (
            None,
            {"fields": ("entity_id", "entity_type", "name", "owner", "merchant_link", "is_active")},
        ),
        (
            "Token",
            {
                "fields": ("token_display", "token_rotated_at"),
                "description": "Only the last four characters are kept in clear. Use the "
                "“Rotate token” action to issue a new one.",
            },
        ),
        ("Record", {"fields": ("created_at",)}),
    )
    change_readonly_fields = (
        "entity_id",
        "entity_type",
        "owner",
        "merchant_link",
        "token_display",
        "token_rotated_at",
        "created_at",
    )

    @admin.display(description="token", ordering="token_last4")
    def token_display(self, obj: Entity) -> str:
        return f"…{obj.token_last4}"

    @admin.display(description="merchant")
    def merchant_link(self, obj: Entity) -> str:
        merchant = Merchant.objects.filter(entity=obj).first()
        if merchant is None:
            return "-"
        url = reverse("admin:merchants_merchant_change", args=[merchant.pk])
        return format_html('<a href="{}">{}</a>', url, merchant)

    def get_fieldsets(self, request: HttpRequest, obj: Entity | None = None) -> Any:
        return self.add_fieldsets if obj is None else self.change_fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Entity | None = None) -> Any:
        return () if obj is None else self.change_readonly_fields

    def get_form(
        self, request: HttpRequest, obj: Entity | None = None, change: bool = False, **kwargs: Any
    ) -> type[ModelForm]:
        kwargs["form"] = EntityCreateForm if obj is None else EntityChangeForm
        return super().get_form(request, obj, change, **kwargs)

    def save_model(self, request: HttpRequest, obj: Entity, form: ModelForm, change: bool) -> None:
        if not change:
            entity, token = services.entity_create(
                entity_type=form.cleaned_data["entity_type"],
                entity_id=form.cleaned_data["entity_id"],
                name=form.cleaned_data["name"],
            )
            adopt(obj, entity)
            show_token_once(request, entity.entity_id, token)
            return
        changed = {f: form.cleaned_data[f] for f in ("name", "is_active") if f in form.changed_data}
        if changed:
            services.entity_update(entity=obj, **changed)

    def has_delete_permission(self, request: HttpRequest, obj: Entity | None = None) -> bool:
        return False  # deactivate instead: merchants and history refer to entities

    @admin.action(description="Rotate token (the old one stops at once)", permissions=["change"])
    def rotate_token(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        for entity in queryset:
            token = services.entity_rotate_token(entity=entity)
            show_token_once(request, entity.entity_id, token)


# --- merchants -----------------------------------------------------------------------------------


class MerchantStatusChangeInline(HistoryInline):
    model = MerchantStatusChange
    verbose_name = "status change"
    verbose_name_plural = "status history"
    fields = (
        "changed_at",
        "changed_by",
        "from_status",
        "to_status",
        "from_security_status",
        "to_security_status",
        "ndc",
    )


class ThreeDSEnrolmentEventInline(HistoryInline):
    model = ThreeDSEnrolmentEvent
    verbose_name = "3-D Secure event"
    verbose_name_plural = "3-D Secure enrolment history"
    fields = ("changed_at", "changed_by", "action", "reason", "ndc")


class TerminalInline(HistoryInline):
    model = Terminal
    verbose_name_plural = "terminals"
    fields = (
        "terminal_link",
        "name",
        "terminal_type",
        "pin_entry_capability",
        "status",
        "created_at",
    )

    @admin.display(description="pos.terminalId")
    def terminal_link(self, obj: Terminal) -> str:
        url = reverse("admin:terminals_terminal_change", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.terminal_id)


_DATA = {
    "Business": (
        "name",
        "business",
        "website",
        "corporate_status",
        "corporate_name",
        "national_tax_identification_number",
        "date_designed",
    ),
    "Location": (
        "street",
        "location_street_address1",
        "postcode",
        "city",
        "state",
        "country",
        "phone",
    ),
    "Categories": (
        "mmcc",
        "vmcc",
        ("mcc2", "mcc3", "mcc4"),
        ("mcc5", "mcc6", "mcc7"),
        ("mcc8", "mcc9", "mcc10"),
    ),
    "Payment facilitator and aggregator": (
        "pf_id",
        "pf_abbv",
        "iso_id",
        "submerchant_id",
        "aggregator_id",
        "aggregator_name",
        "aggregator_type",
        "aggregator_abbv",
        "mvv_id",
    ),
}
DATA_FIELDSETS = tuple((title, {"fields": fields}) for title, fields in _DATA.items())

STATUS_FIELDS = (
    "status",
    "security_status",
    "threeds_status",
    "threeds_mode",
    "threeds_enrolled_at",
    "threeds_deleted_at",
    "threeds_delete_reason",
)


@admin.register(Merchant)
class MerchantAdmin(ServiceAddMixin, admin.ModelAdmin):
    list_display = (
        "merchant_id",
        "name",
        "business",
        "participator_id_display",
        "country",
        "mmcc",
        "status",
        "security_status",
        "threeds_status",
        "created_at",
    )
    list_filter = (
        "status",
        "security_status",
        "country",
        "mmcc",
        "threeds_status",
        "threeds_mode",
        ("participator", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("merchant_id", "name", "business", "entity__entity_id")
    list_select_related = ("participator", "entity")
    ordering = ("merchant_id",)
    date_hierarchy = "created_at"
    list_per_page = 50
    actions = (
        "set_status",
        "threeds_enrol",
        "threeds_delete",
        "threeds_make_mandatory",
        "threeds_make_optional",
        "rotate_merchant_token",
    )

    add_fieldsets = (
        (
            "Merchant",
            {
                "fields": ("merchant_id", "participator"),
                "description": "The merchant's entity and token are created with it; the "
                "token is shown once, after saving.",
            },
        ),
        *DATA_FIELDSETS,
    )
    change_fieldsets = (
        ("Merchant", {"fields": ("merchant_id", "entity_link", "participator")}),
        (
            "Status",
            {
                "fields": STATUS_FIELDS,
                "description": "Changed only through the actions on the merchant list "
                "(Set status…, Enrol in / Delete from 3-D Secure…).",
            },
        ),
        *DATA_FIELDSETS,
        ("Record", {"fields": ("created_at", "updated_at")}),
    )
    change_readonly_fields = (
        "merchant_id",
        "entity_link",
        "participator",
        *STATUS_FIELDS,
        "created_at",
        "updated_at",
    )

    @admin.display(description="participator", ordering="participator__entity_id")
    def participator_id_display(self, obj: Merchant) -> str:
        return obj.participator.entity_id

    @admin.display(description="entity")
    def entity_link(self, obj: Merchant) -> str:
        url = reverse("admin:merchants_entity_change", args=[obj.entity_id])
        return format_html(
            '<a href="{}">{}</a> (token …{})', url, obj.entity.entity_id, obj.entity.token_last4
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Merchant]:
        return super().get_queryset(request).select_related("participator", "entity")

    def get_fieldsets(self, request: HttpRequest, obj: Merchant | None = None) -> Any:
        return self.add_fieldsets if obj is None else self.change_fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Merchant | None = None) -> Any:
        return () if obj is None else self.change_readonly_fields

    def get_form(
        self, request: HttpRequest, obj: Merchant | None = None, change: bool = False, **kwargs: Any
    ) -> type[ModelForm]:
        if obj is None:
            # The create form's own Meta lists its model fields: merchant_id is declared on the
            # form (it is not an editable model field) and would be refused in `fields`.
            kwargs.update(form=MerchantCreateForm, fields=None)
        else:
            kwargs["form"] = MerchantDataForm
        return super().get_form(request, obj, change, **kwargs)

    def get_inlines(self, request: HttpRequest, obj: Merchant | None) -> Any:
        if obj is None:
            return ()
        return (MerchantStatusChangeInline, ThreeDSEnrolmentEventInline, TerminalInline)

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        return no_related_popups(super().formfield_for_dbfield(db_field, request, **kwargs))

    def save_model(
        self, request: HttpRequest, obj: Merchant, form: ModelForm, change: bool
    ) -> None:
        if not change:
            assert isinstance(form, MerchantCreateForm)
            merchant, token = services.merchant_create(
                participator=form.cleaned_data["participator"],
                merchant_id=form.cleaned_data["merchant_id"],
                values=form.merchant_values(),
                changed_by=staff_actor(request),
            )
            adopt(obj, merchant)
            show_token_once(
                request,
                f"merchant {merchant.merchant_id} (entityId {merchant.entity.entity_id})",
                token,
            )
            return
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        if changes:
            services.merchant_update(merchant=obj, values=changes)

    def has_delete_permission(self, request: HttpRequest, obj: Merchant | None = None) -> bool:
        return False  # merchants are CLOSED or TERMINATED, never deleted

    # --- actions ---------------------------------------------------------------------------

    @admin.action(description="Set status…", permissions=["change"])
    def set_status(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> HttpResponse | None:
        form = MerchantStatusForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return action_form_response(
                self,
                request,
                queryset,
                form=form,
                title="Set merchant status",
                submit_label="Set status",
                intro="Each merchant is changed on its own; one that may not take the new status "
                "is left as it is and named in an error message.",
            )
        arguments = form.service_arguments()
        done = []
        for merchant in queryset:
            try:
                services.merchant_set_status(
                    merchant=merchant, **arguments, changed_by=staff_actor(request)
                )
            except ApplicationError as exc:
                refusal_message(request, merchant, exc)
            else:
                done.append(merchant.merchant_id)
        if done:
            messages.success(request, f"Status set for {len(done)} merchant(s): {', '.join(done)}.")
        return None

    @admin.action(description="Enrol in 3-D Secure", permissions=["change"])
    def threeds_enrol(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        done = []
        for merchant in queryset:
            try:
                services.merchant_3ds_enrol(merchant=merchant, changed_by=staff_actor(request))
            except ApplicationError as exc:
                refusal_message(request, merchant, exc)
            else:
                done.append(merchant.merchant_id)
        if done:
            messages.success(request, f"Enrolled in 3-D Secure: {', '.join(done)}.")

    @admin.action(description="Delete from 3-D Secure…", permissions=["change"])
    def threeds_delete(
        self, request: HttpRequest, queryset: QuerySet[Merchant]
    ) -> HttpResponse | None:
        form = ThreeDSDeleteForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return action_form_response(
                self,
                request,
                queryset,
                form=form,
                title="Delete from 3-D Secure",
                submit_label="Delete from 3-D Secure",
                intro="The selected merchants leave the card network's 3-D Secure programme.",
            )
        done = []
        for merchant in queryset:
            try:
                services.merchant_3ds_delete(
                    merchant=merchant,
                    reason=form.cleaned_data["reason"],
                    changed_by=staff_actor(request),
                )
            except ApplicationError as exc:
                refusal_message(request, merchant, exc)
            else:
                done.append(merchant.merchant_id)
        if done:
            messages.success(request, f"Deleted from 3-D Secure: {', '.join(done)}.")
        return None

    @admin.action(
        description="Rotate merchant token (the old one stops at once)", permissions=["change"]
    )
    def rotate_merchant_token(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        for merchant in queryset:
            token = services.entity_rotate_token(entity=merchant.entity)
            show_token_once(
                request,
                f"merchant {merchant.merchant_id} (entityId {merchant.entity.entity_id})",
                token,
            )

    @admin.action(description="Make 3-D Secure mandatory", permissions=["change"])
    def threeds_make_mandatory(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        for merchant in queryset:
            services.merchant_set_threeds_mode(merchant=merchant, mode=ThreeDSMode.MANDATORY)
        messages.success(
            request, f"3-D Secure is now mandatory for {queryset.count()} merchant(s)."
        )

    @admin.action(description="Make 3-D Secure optional", permissions=["change"])
    def threeds_make_optional(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        for merchant in queryset:
            services.merchant_set_threeds_mode(merchant=merchant, mode=ThreeDSMode.OPTIONAL)
        messages.success(request, f"3-D Secure is now optional for {queryset.count()} merchant(s).")
