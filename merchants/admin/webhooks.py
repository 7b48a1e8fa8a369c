"""Bank staff see a merchant's webhooks as the merchant does (read-only: the merchant's
administrators make them in the portal), and their deliveries in the outbox, where a delivery
can be sent again."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin

from .. import webhooks
from ..models import Webhook


@admin.register(Webhook)
class WebhookAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "merchant",
        "url",
        "events_shown",
        "active",
        "key_id",
        "deliveries",
        "created_at",
    )
    list_filter = ("active",)
    search_fields = ("=merchant__merchant_id", "url")
    list_select_related = ("merchant",)
    ordering = ("-created_at",)
    fields = (
        "merchant",
        "url",
        "events_shown",
        "active",
        "key_id",
        "previous_key_id",
        "rotated_at",
        "created_by",
        "created_at",
        "deliveries",
    )

    @admin.display(description="events")
    def events_shown(self, hook: Webhook) -> str:
        names = dict(Webhook.Event.choices)
        return ", ".join(names.get(event, event) for event in hook.events)

    @admin.display(description="deliveries")
    def deliveries(self, hook: Webhook) -> SafeString:
        url = reverse("admin:core_outboxmessage_changelist")
        return format_html(
            '<a href="{}?topic={}{}">{}</a>', url, webhooks.TOPIC, hook.pk, "the log"
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields
