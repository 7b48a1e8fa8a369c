"""Staff admin of the issuer's cards (imported by issuer.admin).

- Card products: the applicability table (each catalogue operation's letter, and whether the
  product offers it: O and C can be switched, M and NA cannot), and the BIN ranges.
- Customers; accounts with their ledger balance, available balance and journal (read only).
- Cards: masked, never the number; status actions through the services (who, when and why in
  the history); limits edited under the card's row lock.
- The ledger's accounts and journals, and the issuer's transactions: read only.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.admin import (
    HistoryInline,
    ReadOnlyMixin,
    amount_column,
    each_through_service,
    form_action,
    staff_actor,
)
from core.display import amount_text, money, result_html

from ..ledger import services as ledger
from ..ledger.models import Entry, Journal, LedgerAccount
from . import services
from .lookups import STATUS_REASONS
from .models import (
    BinRange,
    Card,
    CardAccount,
    CardLimit,
    CardProduct,
    CardStatus,
    CardStatusChange,
    CardTransaction,
    Customer,
    Letter,
    ProductOperation,
    TokenEvent,
)


class ProductOperationFormSet(BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        for form in self.forms:
            row = form.instance
            enabled = form.cleaned_data.get("enabled", row.enabled)
            if row.letter == Letter.M and not enabled:
                form.add_error("enabled", "an M operation always runs")
            if row.letter == Letter.NA and enabled:
                form.add_error("enabled", "an NA operation never runs")


class ProductOperationInline(admin.TabularInline):
    model = ProductOperation
    formset = ProductOperationFormSet
    fields = ("operation", "letter", "enabled")
    readonly_fields = ("operation", "letter")
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name_plural = "applicability (the catalogue's letters)"


class BinRangeInline(admin.TabularInline):
    model = BinRange
    extra = 0
    fields = ("bin", "pan_length", "active")


@admin.register(CardProduct)
class CardProductAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "kind", "brand", "currency", "max_balance", "active")
    list_filter = ("kind", "active")
    search_fields = ("code", "name")
    inlines = (BinRangeInline, ProductOperationInline)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("kind",) if obj is not None else ()

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change:  # a new product: its table from the catalogue's letters
            services.product_operations_create(product=form.instance)


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


def _money(value: Any, currency: str) -> str:
    return money(value, currency)


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
        return _money(obj.ledger.balance, obj.ledger.currency)

    @admin.display(description="available")
    def available(self, obj: CardAccount) -> str:
        return _money(ledger.available(account=obj.ledger), obj.ledger.currency)

    @admin.display(description="journal (latest 50 entries)")
    def journal(self, obj: CardAccount) -> SafeString:
        entries = (
            Entry.objects.filter(account=obj.ledger)
            .select_related("journal")
            .order_by("-journal__created_at", "-pk")[:50]
        )
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td style='text-align:right'>{}</td></tr>",
            (
                (
                    e.journal.created_at.strftime("%Y-%m-%d %H:%M"),
                    e.journal_id,
                    e.journal.kind,
                    _money(e.amount, e.currency),
                )
                for e in entries
            ),
        )
        head = "<tr><th>when</th><th>journal</th><th>kind</th><th>amount</th></tr>"
        return format_html("<table>{}{}</table>", SafeString(head), rows)


class CardStatusChangeInline(HistoryInline):
    model = CardStatusChange
    fields = ("changed_at", "changed_by", "from_status", "to_status", "reason")


class LimitFormSet(BaseInlineFormSet):
    def save(self, commit: bool = True) -> Any:
        # The limits change under the card's row lock, like the money they count.
        parent = super().save
        return services.under_card_lock(card=self.instance, change=lambda: parent(commit))


class CardLimitInline(admin.TabularInline):
    model = CardLimit
    formset = LimitFormSet
    extra = 0
    fields = (
        "region",
        "channel",
        "per_transaction",
        "daily_amount",
        "daily_count",
        "monthly_amount",
        "monthly_count",
    )


class StatusReasonForm(forms.Form):
    reason = forms.ChoiceField(choices=list(STATUS_REASONS.items()))


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = (
        "masked",
        "reference",
        "client_id",
        "product",
        "status",
        "form",
        "expiry",
        "customer",
    )
    list_filter = ("status", "form", "product", "client_id")
    search_fields = ("=reference", "=last4", "customer__last_name")
    list_select_related = ("product", "customer")
    inlines = (CardLimitInline, CardStatusChangeInline)
    actions = ("activate", "suspend", "resume", "report_lost", "report_stolen", "cancel")
    fields = (
        "reference",
        "masked",
        "client_id",
        "product",
        "customer",
        "account",
        "expiry",
        "embossed_name",
        "form",
        "status",
        "status_reason",
        "secure_channel",
        "pin_state",
        "replaced_by",
        "delivery_line1",
        "delivery_line2",
        "delivery_city",
        "delivery_postcode",
        "delivery_country",
        "created_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # cards are issued by CardApplication (services.card_apply)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a card ends CANCELLED or REPLACED, with its history

    @admin.display(description="card")
    def masked(self, obj: Card) -> str:
        return obj.masked

    @admin.display(description="expiry")
    def expiry(self, obj: Card) -> str:
        return obj.expiry

    @admin.display(description="PIN")
    def pin_state(self, obj: Card) -> str:
        if not obj.pin_hash:
            return "not set"
        return (
            "blocked (three wrong tries)" if obj.pin_blocked else f"set, {obj.pin_failures} wrong"
        )

    def _each(self, request: HttpRequest, queryset: QuerySet[Card], target: str, reason: str):  # type: ignore[no-untyped-def]
        actor = staff_actor(request)

        def change(card: Card) -> Card:
            if target == CardStatus.ACTIVE and card.status == CardStatus.INACTIVE:
                return services.card_activate(card=card, actor=actor)
            return services.card_change_status(
                client_id=card.client_id,
                reference=card.reference,
                target=target,
                reason=reason,
                actor=actor,
            )

        each_through_service(
            request,
            queryset,
            change,
            name=lambda card: card.masked,
            done=lambda names: f"{target}: {len(names)} card(s): {', '.join(names)}.",
        )

    def _with_reason(
        self, request: HttpRequest, queryset: QuerySet[Card], target: str, title: str
    ) -> HttpResponse | None:
        return form_action(
            self,
            request,
            queryset,
            form_class=StatusReasonForm,
            title=title,
            submit_label=title,
            intro="Recorded in each card's history with your name and the reason.",
            apply=lambda form: self._each(request, queryset, target, form.cleaned_data["reason"]),
        )

    @admin.action(description="Activate (INACTIVE cards)", permissions=["change"])
    def activate(self, request: HttpRequest, queryset: QuerySet[Card]) -> None:
        self._each(request, queryset, CardStatus.ACTIVE, "ACTIVATED")

    @admin.action(description="Suspend…", permissions=["change"])
    def suspend(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.SUSPENDED, "Suspend cards")

    @admin.action(description="Resume (SUSPENDED cards)…", permissions=["change"])
    def resume(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.ACTIVE, "Resume cards")

    @admin.action(description="Report lost…", permissions=["change"])
    def report_lost(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.LOST, "Report lost")

    @admin.action(description="Report stolen…", permissions=["change"])
    def report_stolen(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.STOLEN, "Report stolen")

    @admin.action(description="Cancel for good…", permissions=["change"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.CANCELLED, "Cancel cards")


class EntryInline(HistoryInline):
    model = Entry
    fields = ("account", "amount_shown")

    amount_shown = amount_column("amount", "amount", with_currency=True)


@admin.register(Journal)
class JournalAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("pk", "kind", "description", "created_at")
    list_filter = ("kind",)
    date_hierarchy = "created_at"
    inlines = (EntryInline,)


@admin.register(LedgerAccount)
class LedgerAccountAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("name", "code", "kind", "currency", "balance_shown", "available")
    list_filter = ("kind", "currency")
    search_fields = ("name", "code")

    balance_shown = amount_column("balance", "balance")

    @admin.display(description="available")
    def available(self, obj: LedgerAccount) -> str:
        return amount_text(ledger.available(account=obj), obj.currency)


@admin.register(CardTransaction)
class CardTransactionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "reference",
        "created",
        "type",
        "status",
        "result",
        "amount_shown",
        "merchant_name",
        "client_id",
        "requestor_reference",
    )
    list_filter = ("type", "status", "client_id")
    search_fields = ("=reference", "=requestor_reference", "=card__reference")
    date_hierarchy = "created_at"
    list_select_related = ("card",)
    exclude = ("request_hash", "answer")

    amount_shown = amount_column("amount", "amount", with_currency=True)

    @admin.display(description="created (UTC)", ordering="created_at")
    def created(self, obj: CardTransaction) -> str:
        return f"{obj.created_at:%Y-%m-%d %H:%M:%S}"

    @admin.display(description="result", ordering="result_code")
    def result(self, obj: CardTransaction) -> SafeString:
        return result_html(obj.result_code)


@admin.register(TokenEvent)
class TokenEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "event", "tur", "status", "reason", "client_id")
    list_filter = ("event",)
