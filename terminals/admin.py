"""Staff admin for POS terminals.

Created and edited through `terminals.services`; status is read-only in the form and changes only
through the "Set status…" action, which writes the history row with `changed_by="staff:<username>"`.
"""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from core.admin import (
    HistoryInline,
    ServiceAddMixin,
    adopt,
    each_through_service,
    form_action,
    staff_actor,
)
from merchants.extensions import merchant_inline_add

from . import services
from .forms import TerminalCreateForm, TerminalDataForm, TerminalStatusForm
from .models import Terminal, TerminalStatusChange


class TerminalInline(HistoryInline):
    """The terminals of a merchant, on the merchant's page (added from here through
    merchants.extensions: merchants does not import terminals)."""

    model = Terminal
    verbose_name_plural = "terminals"
    fields = (
        "terminal_link",
        "name",
        "terminal_type",
        "pin_entry_capability",
        "status",
        "created_at",
    )

    @admin.display(description="terminal ID")
    def terminal_link(self, obj: Terminal) -> str:
        url = reverse("admin:terminals_terminal_change", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.terminal_id)


merchant_inline_add(inline=TerminalInline)


class TerminalStatusChangeInline(HistoryInline):
    model = TerminalStatusChange
    verbose_name = "status change"
    verbose_name_plural = "status history"
    fields = ("changed_at", "changed_by", "from_status", "to_status", "ndc")


_DATA_FIELDS = (
    "name",
    "terminal_type",
    "pin_entry_capability",
    "device_id",
    "device_info",
    "postcode",
    "digital_id",
    "acct_id",
)


@admin.register(Terminal)
class TerminalAdmin(ServiceAddMixin, admin.ModelAdmin):
    list_display = (
        "terminal_id",
        "name",
        "merchant_id_display",
        "terminal_type",
        "pin_entry_capability",
        "status",
        "created_at",
    )
    list_filter = ("status", "terminal_type", "pin_entry_capability")
    search_fields = ("terminal_id", "name", "merchant__merchant_id", "device_id")
    list_select_related = ("merchant",)
    ordering = ("terminal_id",)
    date_hierarchy = "created_at"
    list_per_page = 50
    autocomplete_fields = ("merchant",)
    actions = ("set_status",)

    add_fieldsets = ((None, {"fields": ("terminal_id", "merchant", *_DATA_FIELDS)}),)
    change_fieldsets = (
        (None, {"fields": ("terminal_id", "merchant_link", "status", *_DATA_FIELDS)}),
        ("Record", {"fields": ("created_at", "updated_at")}),
    )
    change_readonly_fields = ("terminal_id", "merchant_link", "status", "created_at", "updated_at")

    @admin.display(description="merchant", ordering="merchant__merchant_id")
    def merchant_id_display(self, obj: Terminal) -> str:
        return obj.merchant.merchant_id

    @admin.display(description="merchant")
    def merchant_link(self, obj: Terminal) -> str:
        url = reverse("admin:merchants_merchant_change", args=[obj.merchant_id])
        return format_html(
            '<a href="{}">{}</a> ({})', url, obj.merchant, obj.merchant.get_status_display()
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Terminal]:
        return super().get_queryset(request).select_related("merchant")

    def get_form(
        self, request: HttpRequest, obj: Terminal | None = None, change: bool = False, **kwargs: Any
    ) -> type[ModelForm]:
        if obj is None:
            # terminal_id is declared on the create form (not an editable model field) and would
            # be refused in `fields`; the form's Meta lists the model fields.
            kwargs.update(form=TerminalCreateForm, fields=None)
        else:
            kwargs["form"] = TerminalDataForm
        return super().get_form(request, obj, change, **kwargs)

    def get_inlines(self, request: HttpRequest, obj: Terminal | None) -> Any:
        return () if obj is None else (TerminalStatusChangeInline,)

    def save_model(
        self, request: HttpRequest, obj: Terminal, form: ModelForm, change: bool
    ) -> None:
        if not change:
            assert isinstance(form, TerminalCreateForm)
            terminal = services.terminal_create(
                merchant=form.cleaned_data["merchant"],
                terminal_id=form.cleaned_data["terminal_id"],
                values=form.terminal_values(),
                changed_by=staff_actor(request),
            )
            adopt(obj, terminal)
            return
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        if changes:
            services.terminal_update(terminal=obj, values=changes)

    def has_delete_permission(self, request: HttpRequest, obj: Terminal | None = None) -> bool:
        return False  # terminals are CLOSED or TERMINATED, never deleted

    @admin.action(description="Set status…", permissions=["change"])
    def set_status(self, request: HttpRequest, queryset: QuerySet[Terminal]) -> HttpResponse | None:
        def apply(form: Any) -> None:
            status = form.cleaned_data["status"]
            each_through_service(
                request,
                queryset,
                lambda terminal: services.terminal_set_status(
                    terminal=terminal, status=status, changed_by=staff_actor(request)
                ),
                name=lambda terminal: terminal.terminal_id,
                done=lambda ids: (
                    f"Status set to {status} for {len(ids)} terminal(s): {', '.join(ids)}."
                ),
            )

        return form_action(
            self,
            request,
            queryset,
            form_class=TerminalStatusForm,
            title="Set terminal status",
            submit_label="Set status",
            intro="Each terminal is changed on its own; one that may not take the new status "
            "is left as it is and named in an error message.",
            apply=apply,
        )
