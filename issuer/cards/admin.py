"""Staff admin of the issuer's cards (imported by issuer.admin).

- Card products: the applicability table (each catalogue operation's letter, and whether the
  product offers it: O and C can be switched, M and NA cannot), and the BIN ranges.
- Customers; accounts with their ledger balance, available balance and journal (read only).
- Cards: masked, never the number; status actions through the services (who, when and why in
  the history); limits edited under the card's row lock.
- The ledger's accounts and journals, and the issuer's transactions: read only.

Staff read words, not codes: a status or a kind by its label, a reason with its code beside it
(the API speaks it). An amount has its currency's ISO 4217 exponent (EUR 250.00, JPY 250, BHD
250.000), though the model keeps three decimals for every currency (docs/portal.md).
"""

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import DecimalField, QuerySet, TextChoices
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import capfirst

from core.admin import (
    HistoryInline,
    ReadOnlyMixin,
    amount_column,
    each_through_service,
    form_action,
    staff_actor,
)
from core.display import amount_text, decimals_problem, exponent_of, money, result_html

from ..ledger import services as ledger
from ..ledger.models import Entry, Journal, LedgerAccount
from . import services
from .lookups import STATUS_REASONS, reason_text
from .models import (
    BinRange,
    Card,
    CardAccount,
    CardLimit,
    CardProduct,
    CardStatus,
    CardStatusChange,
    CardTransaction,
    Channel,
    Customer,
    Letter,
    ProductOperation,
    Region,
    TokenEvent,
    TransactionType,
)


def amount_for_editing(value: Any, currency: str) -> Any:
    """A stored amount as an input shows it: with the currency's exponent (250.00 EUR, not
    250.000); one that does not fit the currency as it is, so the form names the problem."""
    if isinstance(value, Decimal) and not decimals_problem(value, currency):
        return amount_text(value, currency)
    return value


class CurrencyAmountField(forms.DecimalField):
    """An amount in `currency` typed with its ISO 4217 exponent (the step of the input): more
    decimals than the currency has are refused with the reason. The model field keeps
    `stored_places` decimals for every currency, hence as many whole digits as it allows."""

    def __init__(
        self, *, currency: str, max_digits: int, stored_places: int, **kwargs: Any
    ) -> None:
        self.currency = currency
        exponent = exponent_of(currency)
        kwargs.setdefault("min_value", Decimal(0))  # a limit, a balance: never below nothing
        super().__init__(
            max_digits=max_digits - stored_places + exponent, decimal_places=exponent, **kwargs
        )

    def to_python(self, value: Any) -> Any:  # a Decimal (the stubs say int, as IntegerField)
        amount = super().to_python(value)
        if amount is None or not amount.is_finite():
            return amount
        problem = decimals_problem(amount, self.currency)
        if problem:
            raise ValidationError(problem, code="currency_decimals")
        try:  # 250.00 JPY is 250: the validators count the decimals written
            return amount.quantize(Decimal(1).scaleb(-exponent_of(self.currency)))
        except InvalidOperation:
            return amount

    def prepare_value(self, value: Any) -> Any:
        return amount_for_editing(value, self.currency)


def label_of(choices: type[TextChoices], code: str) -> str:
    """A code as staff read it: its label among `choices`, or the code itself when it is none."""
    return str(choices(code).label) if code in choices.values else code


def journal_kind(kind: str) -> str:
    """A journal's kind: the label of the transaction type that posted it ("Load")."""
    return label_of(TransactionType, kind)


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


class CardProductForm(forms.ModelForm):
    """The maximum balance with the product's currency's decimals, checked against the currency
    entered with it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial["max_balance"] = amount_for_editing(
                self.initial.get("max_balance"), self.instance.currency
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        amount, currency = data.get("max_balance"), data.get("currency")
        if amount is not None and currency:
            problem = decimals_problem(amount, currency)
            if problem:
                self.add_error("max_balance", problem)
        return data


@admin.register(CardProduct)
class CardProductAdmin(admin.ModelAdmin):
    form = CardProductForm
    list_display = ("code", "name", "kind", "brand", "currency", "max_balance_shown", "active")
    list_filter = ("kind", "active")
    search_fields = ("code", "name")
    inlines = (BinRangeInline, ProductOperationInline)

    max_balance_shown = amount_column("max_balance", "max balance")

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
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class='num'>{}</td></tr>",
            (
                (
                    e.journal.created_at.strftime("%Y-%m-%d %H:%M"),
                    e.journal_id,
                    journal_kind(e.journal.kind),
                    _money(e.amount, e.currency),
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


class CardStatusChangeInline(HistoryInline):
    model = CardStatusChange
    fields = ("changed_at", "changed_by", "from_status", "to_status", "reason_shown")

    @admin.display(description="reason")
    def reason_shown(self, obj: CardStatusChange) -> str:
        return reason_text(obj.reason) or self.get_empty_value_display()


LIMIT_AMOUNTS = ("per_transaction", "daily_amount", "monthly_amount")


class CardLimitForm(forms.ModelForm):
    """A limit row: its amounts in the card's account's currency, with its decimals; the column
    names the currency."""

    def __init__(self, *args: Any, currency: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in LIMIT_AMOUNTS:
            if name not in self.fields:  # staff who may only look: read-only columns instead
                continue
            stored = CardLimit._meta.get_field(name)
            assert isinstance(stored, DecimalField)
            self.fields[name] = CurrencyAmountField(
                currency=currency,
                max_digits=stored.max_digits,
                stored_places=stored.decimal_places,
                required=False,
                label=f"{capfirst(stored.verbose_name)} ({currency})",
            )


class LimitFormSet(BaseInlineFormSet):
    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {**super().get_form_kwargs(index), "currency": self.instance.account.currency}

    def save(self, commit: bool = True) -> Any:
        # The limits change under the card's row lock, like the money they count.
        parent = super().save
        return services.under_card_lock(card=self.instance, change=lambda: parent(commit))


class CardLimitInline(admin.TabularInline):
    model = CardLimit
    form = CardLimitForm
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

    class Media:
        css = {"all": ("issuer/admin.css",)}  # the selects wide enough for their words

    # Staff who may only look see the amounts with the currency beside them.
    per_transaction_shown = amount_column(
        "per_transaction", "per transaction", currency="card.account.currency", with_currency=True
    )
    daily_amount_shown = amount_column(
        "daily_amount", "daily amount", currency="card.account.currency", with_currency=True
    )
    monthly_amount_shown = amount_column(
        "monthly_amount", "monthly amount", currency="card.account.currency", with_currency=True
    )

    def _editable(self, request: HttpRequest, card: Card | None) -> bool:
        return self.has_change_permission(request, card) and request.user.has_perm(
            "issuer.change_card"
        )

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if self._editable(request, obj):
            return self.fields
        return tuple(f"{name}_shown" if name in LIMIT_AMOUNTS else name for name in self.fields)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if self._editable(request, obj) else self.get_fields(request, obj)


class StatusReasonForm(forms.Form):
    reason = forms.ChoiceField(choices=[(code, reason_text(code)) for code in STATUS_REASONS])


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
        "status_reason_shown",
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

    @admin.display(description="status reason")
    def status_reason_shown(self, obj: Card) -> str:
        return reason_text(obj.status_reason) or self.get_empty_value_display()

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
            done=lambda names: (
                f"{CardStatus(target).label}: {len(names)} card(s): {', '.join(names)}."
            ),
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

    @admin.action(description="Activate (inactive cards)", permissions=["change"])
    def activate(self, request: HttpRequest, queryset: QuerySet[Card]) -> None:
        self._each(request, queryset, CardStatus.ACTIVE, "ACTIVATED")

    @admin.action(description="Suspend…", permissions=["change"])
    def suspend(self, request: HttpRequest, queryset: QuerySet[Card]) -> HttpResponse | None:
        return self._with_reason(request, queryset, CardStatus.SUSPENDED, "Suspend cards")

    @admin.action(description="Resume (suspended cards)…", permissions=["change"])
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
    # Not the request's hash nor the stored answer; amounts, channels and regions as staff read
    # them.
    fields = (
        "reference",
        "client_id",
        "requestor_reference",
        "type",
        "status",
        "result",
        "card",
        "account",
        "amount_shown",
        "channel_shown",
        "region_shown",
        "merchant_name",
        "mcc",
        "description",
        "journal",
        "hold",
        "original",
        "reversed",
        "counts_for_limits",
        "created",
    )
    readonly_fields = fields

    amount_shown = amount_column("amount", "amount", with_currency=True)

    @admin.display(description="channel")
    def channel_shown(self, obj: CardTransaction) -> str:
        return label_of(Channel, obj.channel) or self.get_empty_value_display()

    @admin.display(description="region")
    def region_shown(self, obj: CardTransaction) -> str:
        return label_of(Region, obj.region) or self.get_empty_value_display()

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
