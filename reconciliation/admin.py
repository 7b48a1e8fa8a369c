"""Staff admin for exchange rates: every rate with the history of its values (rates are set
through the API's services; a future rate may be replaced, a current one never)."""

from django.contrib import admin

from core.admin import HistoryInline, ReadOnlyMixin

from .models import ExchangeRate, ExchangeRateChange


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
