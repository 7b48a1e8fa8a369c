"""The staff admin's shared pieces, and the read-only view of stored idempotent answers.

Admin actions that need a choice from staff (a status, a reason) first render
`admin/action_form.html`, which posts back to the changelist with `apply` and the selected ids;
the action then calls its service once per object. Every write goes through a service: the
admin never saves a status field itself.
"""

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.html import format_html

from .models import IdempotentRequest

admin.site.site_header = "Card platform: bank staff"
admin.site.site_title = "Card platform admin"
admin.site.index_title = "Merchants, terminals and platform data"


def staff_actor(request: HttpRequest) -> str:
    """The `changed_by` of history rows written from the admin."""
    return f"staff:{request.user.get_username()}"


def action_form_response(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    form: forms.Form,
    title: str,
    submit_label: str,
    intro: str = "",
) -> TemplateResponse:
    """The intermediate page of an action: its form, the selected objects, and a submit button
    that posts the same action back with `apply`."""
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "intro": intro,
        "submit_label": submit_label,
        "form": form,
        "media": modeladmin.media + form.media,
        "objects": list(queryset),
        "opts": opts,
        "app_label": opts.app_label,
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, "admin/action_form.html", context)


class HistoryInline(admin.TabularInline):
    """An append-only history shown on its parent's page: nothing added, changed or deleted."""

    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return self.fields

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(IdempotentRequest)
class IdempotentRequestAdmin(admin.ModelAdmin):
    """Stored answers for replay: evidence for support, never edited by hand."""

    list_display = ("entity_id", "operation", "merchant_transaction_id", "created_at")
    list_filter = ("operation",)
    search_fields = ("merchant_transaction_id", "entity_id")
    ordering = ("-created_at", "-id")
    date_hierarchy = "created_at"
    list_per_page = 50
    fields = (
        "entity_id",
        "operation",
        "merchant_transaction_id",
        "request_hash",
        "response",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="stored response")
    def response(self, obj: IdempotentRequest) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.response_body, indent=2, sort_keys=True))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
