"""The issuer's transactions and token events, read only: amounts, channels and regions as
staff read them."""

from django.contrib import admin
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin, amount_column
from core.display import result_html

from ..models import CardTransaction, Channel, Region, TokenEvent
from .common import label_of


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
