"""Staff admin for merchants.

Every write goes through `merchants.services`: creating a merchant (which issues its token),
editing registered data, status, 3-D Secure enrolment and mode, token rotation (confirmed, with
an optional overlap: `tokens.py`) and the merchant's portal users (`portal_users.py`). Status
and enrolment fields are read-only in forms and change only through the actions, each writing
its history row with `changed_by="staff:<username>"`. Tokens and one-time passwords are shown
once, in a message right after they are issued, and never again.
"""

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from core.admin import (
    HistoryInline,
    ServiceAddMixin,
    adopt,
    each_through_service,
    form_action,
    show_secret_once,
    staff_actor,
)

from .. import services
from ..extensions import merchant_inlines
from ..forms import MerchantCreateForm, MerchantDataForm, MerchantStatusForm, ThreeDSDeleteForm
from ..models import (
    AmountLimit,
    Merchant,
    MerchantDataChange,
    MerchantStatusChange,
    PortalUser,
    ThreeDSEnrolmentEvent,
    ThreeDSMode,
)
from .limits import AmountLimitInline, save_amount_limits
from .portal_users import PortalUserChangeInline, PortalUserInline, save_portal_users
from .tokens import MerchantTokenChangeInline, previous_token_text, rotate_tokens_action


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


class MerchantDataChangeInline(HistoryInline):
    model = MerchantDataChange
    verbose_name = "change"
    verbose_name_plural = "change history (registered data, settlement account)"
    fields = ("changed_at", "changed_by", "field", "old_value", "new_value")


class ThreeDSEnrolmentEventInline(HistoryInline):
    model = ThreeDSEnrolmentEvent
    verbose_name = "3-D Secure event"
    verbose_name_plural = "3-D Secure enrolment history"
    fields = ("changed_at", "changed_by", "action", "reason", "ndc")


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
# Where the bank pays the merchant, and where its notifications go: changed only by staff with
# the permission "Can change a merchant's settlement account and notification URL".
SETTLEMENT_FIELDS = (
    "bank_account_holder",
    "bank_account_number",
    "bank_account_bic",
    "bank_account_country",
    "settlement_currency",
    "notification_url",
)
SETTLEMENT_PERMISSION = "merchants.change_settlement_account"
DATA_FIELDSETS = (
    *((title, {"fields": fields}) for title, fields in _DATA.items()),
    (
        "Settlement account and notifications",
        {
            "fields": SETTLEMENT_FIELDS,
            "description": "Where the bank pays the merchant out, in which currency, and where "
            "token status notifications are posted. Changed only by staff with the permission "
            "for it; every change is kept in the change history below.",
        },
    ),
)

STATUS_FIELDS = (
    "status",
    "security_status",
    "threeds_status",
    "threeds_mode",
    "threeds_enrolled_at",
    "threeds_deleted_at",
    "threeds_delete_reason",
    "test_mode",
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
        "test_mode",
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
        "test_mode_on",
        "test_mode_off",
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
        (
            "Merchant",
            {"fields": ("merchant_id", "entity_link", "previous_token", "participator")},
        ),
        (
            "Status",
            {
                "fields": STATUS_FIELDS,
                "description": "Changed only through the actions on the merchant list "
                "(Set status…, Enrol in / Delete from 3-D Secure…, connector test mode).",
            },
        ),
        *DATA_FIELDSETS,
        ("Record", {"fields": ("created_at", "updated_at")}),
    )
    change_readonly_fields = (
        "merchant_id",
        "entity_link",
        "previous_token",
        "participator",
        *STATUS_FIELDS,
        "created_at",
        "updated_at",
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        shown = tuple(super().get_readonly_fields(request, obj))
        if request.user.has_perm(SETTLEMENT_PERMISSION):
            return shown
        return (*shown, *SETTLEMENT_FIELDS)  # seen, not changed

    @admin.display(description="participator", ordering="participator__entity_id")
    def participator_id_display(self, obj: Merchant) -> str:
        return obj.participator.entity_id

    @admin.display(description="entity")
    def entity_link(self, obj: Merchant) -> str:
        url = reverse("admin:merchants_entity_change", args=[obj.entity_id])
        return format_html(
            '<a href="{}">{}</a> (token …{})', url, obj.entity.entity_id, obj.entity.token_last4
        )

    @admin.display(description="previous token")
    def previous_token(self, obj: Merchant) -> str:
        return previous_token_text(obj.entity)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Merchant]:
        return super().get_queryset(request).select_related("participator", "entity")

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
        return (
            PortalUserInline,
            AmountLimitInline,
            MerchantStatusChangeInline,
            ThreeDSEnrolmentEventInline,
            MerchantTokenChangeInline,
            PortalUserChangeInline,
            MerchantDataChangeInline,
            *merchant_inlines(),  # those of apps that build on merchants (extensions.py)
        )

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is PortalUser:
            save_portal_users(request, formset)  # through the services: the formset saves nothing
            return
        if formset.model is AmountLimit:
            save_amount_limits(request, formset, form.instance)  # through the services too
            return
        super().save_formset(request, form, formset, change)

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
            show_secret_once(
                request,
                f"merchant {merchant.merchant_id} (entityId {merchant.entity.entity_id})",
                token,
            )
            return
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        if changes:
            services.merchant_update(merchant=obj, values=changes, changed_by=staff_actor(request))

    def has_delete_permission(self, request: HttpRequest, obj: Merchant | None = None) -> bool:
        return False  # merchants are CLOSED or TERMINATED, never deleted

    # --- actions ---------------------------------------------------------------------------

    @admin.action(description="Set status…", permissions=["change"])
    def set_status(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> HttpResponse | None:
        def apply(form: Any) -> None:
            arguments = form.service_arguments()
            each_through_service(
                request,
                queryset,
                lambda merchant: services.merchant_set_status(
                    merchant=merchant, **arguments, changed_by=staff_actor(request)
                ),
                name=lambda merchant: merchant.merchant_id,
                done=lambda ids: f"Status set for {len(ids)} merchant(s): {', '.join(ids)}.",
            )

        return form_action(
            self,
            request,
            queryset,
            form_class=MerchantStatusForm,
            title="Set merchant status",
            submit_label="Set status",
            intro="Each merchant is changed on its own; one that may not take the new status "
            "is left as it is and named in an error message.",
            apply=apply,
        )

    @admin.action(description="Enrol in 3-D Secure", permissions=["change"])
    def threeds_enrol(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        each_through_service(
            request,
            queryset,
            lambda merchant: services.merchant_3ds_enrol(
                merchant=merchant, changed_by=staff_actor(request)
            ),
            name=lambda merchant: merchant.merchant_id,
            done=lambda ids: f"Enrolled in 3-D Secure: {', '.join(ids)}.",
        )

    @admin.action(description="Delete from 3-D Secure…", permissions=["change"])
    def threeds_delete(
        self, request: HttpRequest, queryset: QuerySet[Merchant]
    ) -> HttpResponse | None:
        def apply(form: Any) -> None:
            each_through_service(
                request,
                queryset,
                lambda merchant: services.merchant_3ds_delete(
                    merchant=merchant,
                    reason=form.cleaned_data["reason"],
                    changed_by=staff_actor(request),
                ),
                name=lambda merchant: merchant.merchant_id,
                done=lambda ids: f"Deleted from 3-D Secure: {', '.join(ids)}.",
            )

        return form_action(
            self,
            request,
            queryset,
            form_class=ThreeDSDeleteForm,
            title="Delete from 3-D Secure",
            submit_label="Delete from 3-D Secure",
            intro="The selected merchants leave the card network's 3-D Secure programme.",
            apply=apply,
        )

    @admin.action(description="Rotate merchant token…", permissions=["change"])
    def rotate_merchant_token(
        self, request: HttpRequest, queryset: QuerySet[Merchant]
    ) -> HttpResponse | None:
        return rotate_tokens_action(
            self,
            request,
            queryset,
            entity_of=lambda merchant: merchant.entity,
            label_of=lambda merchant: (
                f"merchant {merchant.merchant_id} (entityId {merchant.entity.entity_id})"
            ),
        )

    @admin.action(description="Make 3-D Secure mandatory", permissions=["change"])
    def threeds_make_mandatory(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        self._each(
            request, queryset, services.merchant_set_threeds_mode, mode=ThreeDSMode.MANDATORY
        )

    @admin.action(description="Make 3-D Secure optional", permissions=["change"])
    def threeds_make_optional(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        self._each(request, queryset, services.merchant_set_threeds_mode, mode=ThreeDSMode.OPTIONAL)

    @admin.action(description="Connector test mode: on (000.100.112)", permissions=["change"])
    def test_mode_on(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        self._each(request, queryset, services.merchant_set_test_mode, test_mode=True)

    @admin.action(description="Connector test mode: off", permissions=["change"])
    def test_mode_off(self, request: HttpRequest, queryset: QuerySet[Merchant]) -> None:
        self._each(request, queryset, services.merchant_set_test_mode, test_mode=False)

    def _each(
        self, request: HttpRequest, queryset: QuerySet[Merchant], service: Any, **change: Any
    ) -> None:
        """One setting for each merchant, through its service; one message naming them."""
        ((name, value),) = change.items()
        shown = getattr(value, "label", value)
        each_through_service(
            request,
            queryset,
            lambda merchant: service(merchant=merchant, **change),
            name=lambda merchant: merchant.merchant_id,
            done=lambda ids: (
                f"{name.replace('_', ' ')} set to {shown} for {len(ids)} "
                f"merchant(s): {', '.join(ids)}."
            ),
        )
