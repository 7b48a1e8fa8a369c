"""Cards: masked, never the number; status actions through the services (who, when and why in
the history); limits edited under the card's row lock, in the account's currency."""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import DecimalField, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse
from django.utils.text import capfirst

from core.admin import (
    HistoryInline,
    amount_column,
    each_through_service,
    form_action,
    staff_actor,
)

from .. import services
from ..lookups import STATUS_REASONS, reason_text
from ..models import Card, CardLimit, CardStatus, CardStatusChange
from .common import CurrencyAmountField


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
