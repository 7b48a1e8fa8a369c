"""Staff admin for hosted checkouts: read-only, with the payment each one made."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin, amount_column
from core.display import code_with_name

from ..models import payment_type_name
from .models import Checkout


@admin.register(Checkout)
class CheckoutAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "created_at",
        "merchant",
        "type_shown",
        "amount_shown",
        "status",
        "expires_at",
        "payment",
    )
    list_filter = ("status", "payment_type", ("merchant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=id", "merchant_transaction_id", "=merchant__merchant_id", "=payment__id")
    list_select_related = ("merchant", "payment")
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50

    amount_shown = amount_column("amount", "amount", with_currency=True)

    @admin.display(description="type", ordering="payment_type")
    def type_shown(self, obj: Checkout) -> SafeString:
        return code_with_name(obj.payment_type, payment_type_name(obj.payment_type))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]
