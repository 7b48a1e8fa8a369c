"""The ledger's journals and accounts, read only."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin import HistoryInline, ReadOnlyMixin, amount_column
from core.display import amount_text

from ...ledger import services as ledger
from ...ledger.models import Entry, Journal, LedgerAccount
from .common import journal_kind


class EntryInline(HistoryInline):
    model = Entry
    fields = ("account", "amount_shown")

    amount_shown = amount_column("amount", "amount", with_currency=True)


class JournalKindFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        kinds = Journal.objects.order_by("kind").values_list("kind", flat=True).distinct()
        return [(kind, journal_kind(kind)) for kind in kinds]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Journal]) -> QuerySet[Journal]:
        return queryset.filter(kind=self.value()) if self.value() else queryset


@admin.register(Journal)
class JournalAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("number", "kind_shown", "description", "created_at")
    list_filter = (JournalKindFilter,)
    date_hierarchy = "created_at"
    inlines = (EntryInline,)
    fields = ("number", "kind_shown", "description", "created_at")
    readonly_fields = fields

    @admin.display(description="journal", ordering="pk")
    def number(self, obj: Journal) -> int:
        return obj.pk

    @admin.display(description="kind", ordering="kind")
    def kind_shown(self, obj: Journal) -> str:
        return journal_kind(obj.kind)


@admin.register(LedgerAccount)
class LedgerAccountAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("name", "code", "kind", "currency", "balance_shown", "available")
    list_filter = ("kind", "currency")
    search_fields = ("name", "code")

    balance_shown = amount_column("balance", "balance")

    @admin.display(description="available")
    def available(self, obj: LedgerAccount) -> str:
        return amount_text(ledger.available(account=obj), obj.currency)
