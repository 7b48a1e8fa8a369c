"""The staff admin's shared pieces, and the read-only view of stored idempotent answers.

Admin actions that need a choice from staff (a status, a reason) first render
`admin/action_form.html`, which posts back to the changelist with `apply` and the selected ids;
the action then calls its service once per object (`each_through_service`). Every write goes
through a service: the admin never saves a status field itself. Adding an object runs its
create service (`ServiceAddMixin`), whose one-time secret is shown once in a message.
"""

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.widgets import RelatedFieldWidgetWrapper
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from . import outbox
from .display import money_html
from .errors import ApplicationError
from .models import DeliveryAttempt, IdempotentRequest, OutboxMessage

admin.site.site_header = "Card platform: bank staff"
# The changelists get the whole width of a 1280-pixel screen (the app list is on the index).
admin.site.enable_nav_sidebar = False
admin.site.site_title = "Card platform admin"
admin.site.index_title = "Merchants, terminals and platform data"


def amount_column(
    field: str,
    description: str,
    *,
    currency: str = "currency",
    with_currency: bool = False,
    count: str = "",
) -> Callable[[Any, Any], SafeString]:
    """A list column or read-only field showing `field` with its currency's ISO 4217 exponent
    (a settlement run keeps three decimals; its EUR is shown with two), right-aligned; the
    currency is the object's `currency` attribute (dotted for a related one: "run.currency"),
    and `count` adds a count beside it: "219.90 (4)"."""

    @admin.display(description=description, ordering=field)
    def column(modeladmin: Any, obj: Any) -> SafeString:
        code = obj
        for part in currency.split("."):
            code = getattr(code, part, "") if code is not None else ""
        shown = money_html(getattr(obj, field), str(code), with_currency=with_currency)
        if count:
            return format_html('{} <span class="quiet">({})</span>', shown, getattr(obj, count))
        return shown

    return column


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


def form_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    form_class: type[forms.Form],
    title: str,
    submit_label: str,
    intro: str = "",
    apply: Callable[[forms.Form], None],
) -> HttpResponse | None:
    """An action that asks staff for a choice first: the form page until it is valid, then
    `apply(form)`."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if not form.is_valid():
        return action_form_response(
            modeladmin,
            request,
            queryset,
            form=form,
            title=title,
            submit_label=submit_label,
            intro=intro,
        )
    apply(form)
    return None


def each_through_service(
    request: HttpRequest,
    objects: Iterable[Model],
    call: Callable[[Any], Any],
    *,
    name: Callable[[Any], str],
    done: Callable[[list[str]], str],
) -> list[str]:
    """Run a service once per object: a refusal is named in an error message and leaves that
    object as it was; the others are listed in one success message. Returns their names."""
    changed = []
    for obj in objects:
        try:
            call(obj)
        except ApplicationError as exc:
            refusal_message(request, obj, exc)
        else:
            changed.append(name(obj))
    if changed:
        messages.success(request, done(changed))
    return changed


def refusal_message(request: HttpRequest, obj: Model, exc: ApplicationError) -> None:
    messages.error(request, f"{obj}: not changed — {exc.description} ({exc.result.code}).")


def show_secret_once(request: HttpRequest, label: str, token: str, *, what: str = "token") -> None:
    """A secret just issued (a token, a one-time password), in a message shown once."""
    messages.success(
        request, f"New {what} for {label}: {token} — copy it now, it is not shown again."
    )


def adopt(obj: Model, created: Model) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's own
    logging and redirect after "add" point at it."""
    for field in created._meta.concrete_fields:
        setattr(obj, field.attname, getattr(created, field.attname))
    obj._state.adding = False
    obj._state.db = created._state.db


def no_related_popups(formfield: Any) -> Any:
    """No add/change popups beside a foreign key: a popup's response does not show messages, so
    the one-time token of an object added there would surface later on an unrelated page."""
    if isinstance(getattr(formfield, "widget", None), RelatedFieldWidgetWrapper):
        widget = formfield.widget
        widget.can_add_related = widget.can_change_related = widget.can_delete_related = False
    return formfield


class ServiceAddMixin:
    """Adding runs a service inside the admin's transaction. A refusal the form could not foresee
    (a concurrent duplicate id) rolls it back and returns to the add page with the reason. The
    add and change pages get their own fieldsets, readonly fields and forms."""

    add_fieldsets: Any = ()
    change_fieldsets: Any = ()
    change_readonly_fields: Any = ()

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc]
        except ApplicationError as exc:
            messages.error(request, f"Not saved — {exc.description} ({exc.result.code}).")
            return HttpResponseRedirect(request.get_full_path())

    def get_fieldsets(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return self.add_fieldsets if obj is None else self.change_fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return () if obj is None else self.change_readonly_fields

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        return no_related_popups(super().formfield_for_dbfield(db_field, request, **kwargs))  # type: ignore[misc]


class ReadOnlyMixin:
    """An admin or inline that shows records and never adds, changes or deletes them: services
    write, staff look. An action that calls a service declares `permissions=["manage"]`: staff
    with the model's change permission may run it, staff who may only view may not."""

    def has_manage_permission(self, request: HttpRequest) -> bool:
        opts = self.model._meta  # type: ignore[attr-defined]
        return bool(request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}"))

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class HistoryInline(ReadOnlyMixin, admin.TabularInline):
    """An append-only history shown on its parent's page: nothing added, changed or deleted."""

    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return self.fields


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


class DeliveryAttemptInline(HistoryInline):
    model = DeliveryAttempt
    verbose_name_plural = "delivery attempts"
    fields = ("attempted_at", "http_status", "latency_ms", "excerpt", "error")


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Outbound notifications and every attempt to deliver them; staff may redeliver one."""

    list_display = (
        "event_id",
        "created_at",
        "topic",
        "subject",
        "sequence",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
    )
    list_filter = ("status", "topic")
    search_fields = ("=event_id", "=subject", "url")
    ordering = ("-created_at",)
    inlines = (DeliveryAttemptInline,)
    actions = ("redeliver",)

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    @admin.action(description="Deliver again now", permissions=["manage"])
    def redeliver(self, request: HttpRequest, queryset: QuerySet[OutboxMessage]) -> None:
        actor = staff_actor(request)
        each_through_service(
            request,
            queryset,
            lambda message: outbox.redeliver(event_id=message.pk, actor=actor),
            name=lambda message: message.pk,
            done=lambda ids: f"Delivering again: {', '.join(ids)}.",
        )


class RangeFilter(admin.ListFilter):
    """A changelist filter typed in, from and to (both ends included): a dropdown in the bar
    above the list (templates/admin/range_filter.html), like the others. A subclass names the
    lookup (`field`, e.g. `created_at__date` or `amount`), its `title`, and `parse` (a value it
    cannot read is ignored, and the dropdown says so)."""

    template = "admin/range_filter.html"
    field = ""
    input_type = "text"

    def __init__(self, request: HttpRequest, params: dict[str, Any], model: Any, model_admin: Any):
        super().__init__(request, params, model, model_admin)
        self.names = (f"{self.field}__gte", f"{self.field}__lte")
        self.given: dict[str, str] = {}
        for name in self.names:
            if name in params:
                value = params.pop(name)
                self.given[name] = (value[-1] if isinstance(value, list) else value).strip()
        self.others = [
            (name, value)
            for name, values in request.GET.lists()
            if name not in self.names and name != "p"
            for value in values
        ]

    def parse(self, text: str) -> Any:
        return text

    def _bounds(self) -> dict[str, Any]:
        bounds = {}
        for name, text in self.given.items():
            if not text:
                continue
            try:
                bounds[name] = self.parse(text)
            except (ValueError, ArithmeticError):
                continue
        return bounds

    def has_output(self) -> bool:
        return True

    def expected_parameters(self) -> list[str | None]:
        return list(self.names)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        bounds = self._bounds()
        return queryset.filter(**bounds) if bounds else queryset

    def choices(self, changelist: Any) -> Iterator[dict[str, Any]]:
        low, high = (self.given.get(name, "") for name in self.names)
        ignored = [text for name, text in self.given.items() if text and name not in self._bounds()]
        yield {
            "low_name": self.names[0],
            "high_name": self.names[1],
            "low": low,
            "high": high,
            "input_type": self.input_type,
            "others": self.others,
            "ignored": ignored,
            "summary": f"{low or '…'} to {high or '…'}" if low or high else "",
            "clear": changelist.get_query_string(remove=list(self.names)),
        }
