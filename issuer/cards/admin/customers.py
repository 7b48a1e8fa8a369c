"""Customers with their cards, and card accounts with their ledger balance, available balance
and journal (read only)."""

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin
from core.display import money

from ...ledger import services as ledger
from ...ledger.models import Entry
from ..models import Card, CardAccount, Customer
from .common import journal_kind


class CardInline(ReadOnlyMixin, admin.TabularInline):
    model = Card
    fields = ("reference", "masked", "product", "status", "form", "expiry")
    readonly_fields = fields
    extra = 0
    show_change_link = True
    fk_name = "customer"

    @admin.display(description="card")
    def masked(self, obj: Card) -> str:
        return obj.masked

    @admin.display(description="expiry")
    def expiry(self, obj: Card) -> str:
        return obj.expiry


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = ("reference", "first_name", "last_name", "client_id", "kyc_status", "email")
    list_filter = ("kyc_status", "client_id")
    search_fields = ("=reference", "last_name", "email", "mobile")
    readonly_fields = ("reference", "client_id", "created_at", "updated_at")
    inlines = (CardInline,)


@admin.register(CardAccount)
class CardAccountAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("reference", "customer", "product", "status", "ledger_balance", "available")
    list_filter = ("status", "product")
    search_fields = ("=reference", "iban", "customer__last_name")
    list_select_related = ("customer", "product", "ledger")
    fields = (
        "reference",
        "customer",
        "product",
        "iban",
        "status",
        "ledger_balance",
        "available",
        "journal",
    )
    readonly_fields = fields

    @admin.display(description="ledger balance")
    def ledger_balance(self, obj: CardAccount) -> str:
        return money(obj.ledger.balance, obj.ledger.currency)

    @admin.display(description="available")
    def available(self, obj: CardAccount) -> str:
        return money(ledger.available(account=obj.ledger), obj.ledger.currency)

    @admin.display(description="journal (latest 50 entries)")
    def journal(self, obj: CardAccount) -> SafeString:
        entries = (
            Entry.objects.filter(account=obj.ledger)
            .select_related("journal")
            .order_by("-journal__created_at", "-pk")[:50]
        )
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class='num'>{}</td></tr>",
            (
                (
                    e.journal.created_at.strftime("%Y-%m-%d %H:%M"),
                    e.journal_id,
                    journal_kind(e.journal.kind),
                    money(e.amount, e.currency),
                )
                for e in entries
            ),
        )
        # Capitalised like the admin's own column headers.
        head = (
            "<thead><tr><th>When (UTC)</th><th>Journal</th><th>Kind</th>"
            "<th class='num'>Amount</th></tr></thead>"
        )
        return format_html("<table>{}<tbody>{}</tbody></table>", SafeString(head), rows)
