"""Staff admin for exchange rates: every rate with the history of its values (rates are set
through the API's services; a future rate may be replaced, a current one never)."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from core.admin import (
    HistoryInline,
    ReadOnlyMixin,
    amount_column,
    each_through_service,
    staff_actor,
)
from core.display import amount_text
from core.errors import ApplicationError
from core.fields.codes import minor_units

from . import services
from .models import (
    Chargeback,
    ExchangeRate,
    ExchangeRateChange,
    FeePlan,
    FeeRule,
    ReconFile,
    SettlementItem,
    SettlementRun,
)
from .recon.generate import recon_file_generate, storage
from .settlement import settlement_run


class ExchangeRateChangeInline(HistoryInline):
    model = ExchangeRateChange
    verbose_name_plural = "history"
    fields = ("changed_at", "changed_by", "buying_rate", "selling_rate", "ndc")


@admin.register(ExchangeRate)
class ExchangeRateAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "currency",
        "effective_date",
        "buying_rate",
        "selling_rate",
        "created_by",
        "updated_at",
    )
    list_filter = ("currency",)
    search_fields = ("=currency",)
    date_hierarchy = "effective_date"
    ordering = ("currency", "-effective_date")
    readonly_fields = (
        "currency",
        "effective_date",
        "buying_rate",
        "selling_rate",
        "created_by",
        "created_at",
        "updated_at",
    )
    inlines = (ExchangeRateChangeInline,)


class FeeRuleInline(admin.TabularInline):
    model = FeeRule
    extra = 1
    fields = ("brand", "payment_type", "mdr_percent", "fixed")


@admin.register(FeePlan)
class FeePlanAdmin(admin.ModelAdmin):
    """A merchant's fees and reserve (bank staff set them; the next settlement run uses them)."""

    list_display = ("merchant", "threeds_fee", "scheme_fee", "reserve_percent", "reserve_days")
    search_fields = ("=merchant__merchant_id",)
    raw_id_fields = ("merchant",)
    inlines = (FeeRuleInline,)


class SettlementItemInline(HistoryInline):
    model = SettlementItem
    verbose_name_plural = "payments settled"
    fields = ("payment", "kind", "amount_shown", "fee_shown")
    max_num = None  # type: ignore[assignment]

    amount_shown = amount_column("amount", "amount", currency="run.currency")
    fee_shown = amount_column("fee", "fee", currency="run.currency")

    def get_queryset(self, request: HttpRequest) -> QuerySet[SettlementItem]:
        return super().get_queryset(request).select_related("run", "payment")


@admin.register(SettlementRun)
class SettlementRunAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Settlement runs (read-only); "Settle again" recomputes a day through the service. A run
    made before its day's cut-off is marked provisional."""

    # Every amount with its currency's decimals (the run keeps three), each column on one line
    # of a 1280-pixel screen.
    list_display = (
        "day_and_status",
        "merchant",
        "currency",
        "sales",
        "refunds",
        "credits",
        "chargebacks",
        "fees",
        "reserve",
        "net",
    )
    list_filter = ("provisional", "currency", ("merchant", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("merchant",)
    date_hierarchy = "day"
    ordering = ("-day",)
    inlines = (SettlementItemInline,)
    actions = ("settle_again",)
    fields = (
        ("merchant", "day", "currency"),
        "sales",
        "refunds",
        "credits",
        "chargebacks",
        "fees",
        ("reserve_held_shown", "reserve_released_shown"),
        "net",
        ("created_at", "updated_at"),
    )
    readonly_fields = (
        "merchant",
        "day",
        "currency",
        "sales",
        "refunds",
        "credits",
        "chargebacks",
        "fees",
        "reserve_held_shown",
        "reserve_released_shown",
        "net",
        "created_at",
        "updated_at",
    )

    sales = amount_column("sales_amount", "sales", count="sales_count")
    refunds = amount_column("refunds_amount", "refunds", count="refunds_count")
    credits = amount_column("credits_amount", "credits", count="credits_count")
    fees = amount_column("fees_amount", "fees")
    reserve_held_shown = amount_column("reserve_held", "reserve held")
    reserve_released_shown = amount_column("reserve_released", "reserve released")
    net = amount_column("net_amount", "net")

    @admin.display(description="chargebacks", ordering="chargebacks_amount")
    def chargebacks(self, obj: SettlementRun) -> Any:
        """What chargebacks took, with their count, as the portal says it: "−20.00 (1)", "0.00
        (0)" for none; what their reversals gave back on a line of its own ("+5.00 reversed")."""
        taken = amount_text(obj.chargebacks_amount, obj.currency)
        shown = format_html(
            '<span class="num">{}{}</span> <span class="quiet">({})</span>',
            "−" if obj.chargebacks_amount else "",
            taken,
            obj.chargebacks_count,
        )
        if obj.chargeback_reversals_amount:
            back = amount_text(obj.chargeback_reversals_amount, obj.currency)
            shown = format_html("{}<br>+{} reversed", shown, back)
        return shown

    @admin.display(description="reserve held / released", ordering="reserve_held")
    def reserve(self, run: SettlementRun) -> Any:
        return format_html(
            '<span class="num">{} / {}</span>',
            amount_text(run.reserve_held, run.currency),
            amount_text(run.reserve_released, run.currency),
        )

    @admin.display(description="day", ordering="day")
    def day_and_status(self, run: SettlementRun) -> Any:
        """The day and whether its run is final or provisional (made before the day's cut-off:
        the run after the cut-off replaces it); one column, so the figures keep their width."""
        if run.provisional:
            return format_html(
                '{} <span class="badge provisional" title="{}">provisional</span>',
                f"{run.day:%Y-%m-%d}",
                "Settled before the day's cut-off: the run after the cut-off replaces it",
            )
        return format_html('{} <span class="quiet">final</span>', f"{run.day:%Y-%m-%d}")

    @admin.action(
        description="Settle again (the same figures unless payments changed)",
        permissions=["manage"],
    )
    def settle_again(self, request: HttpRequest, queryset: QuerySet[SettlementRun]) -> None:
        each_through_service(
            request,
            queryset.select_related("merchant"),
            lambda run: settlement_run(merchant=run.merchant, day=run.day),
            name=lambda run: f"{run.merchant.merchant_id} {run.day:%Y-%m-%d}",
            done=lambda names: f"Settled again: {', '.join(names)}.",
        )


class ChargebackForm(forms.ModelForm):
    """Bank staff record a chargeback found by the payment's id or its ARN."""

    payment_ref = forms.CharField(label="Payment id or ARN", max_length=32)
    currency = forms.CharField(max_length=3, help_text="ISO 4217 (the chargeback's currency)")

    class Meta:
        model = Chargeback
        fields = (
            "reason_code",
            "amount",
            "currency",
            "received_on",
            "second_presentment",
            "reference",
            "note",
        )

    def clean_currency(self) -> str:
        value = str(self.cleaned_data["currency"]).upper()
        if minor_units(value) is None:
            raise forms.ValidationError("not an ISO 4217 currency with minor units")
        return value


@admin.register(Chargeback)
class ChargebackAdmin(admin.ModelAdmin):
    list_display = (
        "received_on",
        "merchant",
        "payment",
        "reason_code",
        "amount_shown",
        "partial",
        "reversed_on",
        "settled_in",
    )
    list_filter = ("reason_code", ("merchant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=payment__id", "=payment__acquirer_ref_no", "=merchant__merchant_id")
    date_hierarchy = "received_on"
    actions = ("reverse_today",)

    amount_shown = amount_column("amount", "amount", with_currency=True)
    settlement_amount_shown = amount_column(
        "settlement_amount", "settlement amount", currency="settled_in.currency"
    )
    reversal_amount_shown = amount_column(
        "reversal_amount", "reversal amount", currency="reversal_settled_in.currency"
    )
    SHOWN = {
        "amount": "amount_shown",
        "settlement_amount": "settlement_amount_shown",
        "reversal_amount": "reversal_amount_shown",
    }

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = ChargebackForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("payment_ref", *ChargebackForm.Meta.fields)
        return [self.SHOWN.get(f.name, f.name) for f in self.model._meta.fields if f.name != "id"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [] if obj is None else self.get_fields(request, obj)

    def save_model(self, request: HttpRequest, obj: Chargeback, form: Any, change: bool) -> None:
        data = form.cleaned_data
        try:
            made = services.chargeback_record(
                payment_ref=data["payment_ref"],
                reason_code=data["reason_code"],
                amount=data["amount"],
                currency=data["currency"],
                received_on=data["received_on"],
                actor=staff_actor(request),
                second_presentment=data.get("second_presentment", False),
                note=data.get("note", ""),
                reference=data.get("reference", ""),
            )
        except ApplicationError as exc:
            messages.error(request, exc.description)
            raise forms.ValidationError(exc.description) from None
        obj.pk = made.pk

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Reversed today (the merchant won)", permissions=["add"])
    def reverse_today(self, request: HttpRequest, queryset: QuerySet[Chargeback]) -> None:
        actor = staff_actor(request)
        for chargeback in queryset:
            try:
                services.chargeback_reverse(
                    chargeback_id=chargeback.pk, reversed_on=timezone.localdate(), actor=actor
                )
            except ApplicationError as exc:
                messages.error(request, f"{chargeback}: {exc.description}")
        messages.success(request, "Reversals recorded; the next settlement credits them.")


@admin.register(ReconFile)
class ReconFileAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The daily reconciliation files (produced by beat after the cut-off, or `manage.py
    recon_file`): staff download them, and produce a day's file again."""

    list_display = (
        "name",
        "entity",
        "day",
        "production",
        "made",
        "records",
        "size",
        "download",
    )
    list_filter = ("production", ("entity", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=name", "=entity__entity_id")
    date_hierarchy = "day"
    actions = ("produce_again",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields] + ["download"]

    @admin.display(description="made", ordering="generated_at")
    def made(self, obj: ReconFile) -> str:
        """When, and whether before the day's cut-off (a preview, replaced after it)."""
        at = f"{obj.generated_at:%Y-%m-%d %H:%M} UTC"
        return f"{at}, preview (before the cut-off)" if obj.preview else at

    @admin.display(description="file")
    def download(self, obj: ReconFile) -> str:
        url = reverse("admin:reconciliation_reconfile_download", args=[obj.pk])
        return format_html('<a href="{}">Download</a>', url)

    def get_urls(self) -> list[Any]:
        download = self.admin_site.admin_view(self.download_view)
        return [
            path("<int:pk>/download/", download, name="reconciliation_reconfile_download"),
            *super().get_urls(),
        ]

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        record = get_object_or_404(ReconFile, pk=pk)
        files = storage()
        if not files.exists(record.path):
            raise Http404("the file is no longer in the reconciliation storage")
        return FileResponse(
            files.open(record.path, "rb"),
            as_attachment=True,
            filename=record.name,
            content_type="text/plain; charset=us-ascii",
        )

    @admin.action(
        description="Produce again (the same bytes unless the day's records changed)",
        permissions=["manage"],
    )
    def produce_again(self, request: HttpRequest, queryset: QuerySet[ReconFile]) -> None:
        def again(record: ReconFile) -> None:
            recon_file_generate(entity=record.entity, day=record.day, production=record.production)

        each_through_service(
            request,
            queryset.select_related("entity"),
            again,
            name=lambda record: record.name,
            done=lambda names: f"Produced again: {', '.join(names)}.",
        )
