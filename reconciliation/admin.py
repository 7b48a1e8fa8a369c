"""Staff admin for exchange rates: every rate with the history of its values (rates are set
through the API's services; a future rate may be replaced, a current one never)."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin import HistoryInline, ReadOnlyMixin, each_through_service

from .models import (
    ExchangeRate,
    ExchangeRateChange,
    FeePlan,
    FeeRule,
    SettlementItem,
    SettlementRun,
)
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
    fields = ("payment", "kind", "amount", "fee")
    max_num = None  # type: ignore[assignment]


@admin.register(SettlementRun)
class SettlementRunAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Settlement runs (read-only); "Settle again" recomputes a day through the service."""

    list_display = (
        "day",
        "merchant",
        "currency",
        "sales_amount",
        "refunds_amount",
        "credits_amount",
        "fees_amount",
        "reserve_held",
        "reserve_released",
        "net_amount",
    )
    list_filter = ("currency", ("merchant", admin.RelatedOnlyFieldListFilter))
    date_hierarchy = "day"
    ordering = ("-day",)
    inlines = (SettlementItemInline,)
    actions = ("settle_again",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

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
