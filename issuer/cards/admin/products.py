"""Card products: the applicability table (each catalogue operation's letter, and whether the
product offers it: O and C can be switched, M and NA cannot) and the BIN ranges."""

from typing import Any

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest

from core.admin import amount_column
from core.display import decimals_problem

from .. import services
from ..models import BinRange, CardProduct, Letter, ProductOperation
from .common import amount_for_editing


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
