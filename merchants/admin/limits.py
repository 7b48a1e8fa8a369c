"""Maximum amounts per payment (issue 32): a merchant's on its change page (an inline, one row
per currency), the platform's under Merchants > Platform amount limits. Every write goes through
`merchants.services.amount_limit_set` / `amount_limit_remove` with the staff actor; the lower of
the two levels applies to a payment in that currency (payments.services.initial)."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from core.admin import staff_actor

from .. import services
from ..forms import AmountLimitForm
from ..models import AmountLimit, Merchant, PlatformAmountLimit


class AmountLimitInline(admin.TabularInline):
    model = AmountLimit
    form = AmountLimitForm
    verbose_name = "maximum amount per payment"
    verbose_name_plural = (
        "maximum amounts per payment (the platform's apply too: the lower one counts)"
    )
    fields = ("currency", "max_amount", "changed_by", "changed_at")
    readonly_fields = ("changed_by", "changed_at")
    extra = 0


def save_amount_limits(request: HttpRequest, formset: Any, merchant: Merchant) -> None:
    """The inline's rows through the services: new and changed rows set, ticked rows removed."""
    actor = staff_actor(request)
    # What the admin's change message reads, which the formset's own saving would have set.
    formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
    for form in formset.forms:
        if not form.has_changed() and form.instance.pk is None:
            continue
        if form in formset.deleted_forms:
            if form.instance.pk is not None:
                services.amount_limit_remove(limit=form.instance, changed_by=actor)
                formset.deleted_objects.append(form.instance)
            continue
        if form.has_changed():
            if form.instance.pk is not None and "currency" in form.changed_data:
                old = AmountLimit.objects.get(pk=form.instance.pk)
                services.amount_limit_remove(limit=old, changed_by=actor)
            created = form.instance.pk is None
            limit = services.amount_limit_set(
                merchant=merchant,
                currency=form.cleaned_data["currency"],
                max_amount=form.cleaned_data["max_amount"],
                changed_by=actor,
            )
            if created:
                formset.new_objects.append(limit)
            else:
                formset.changed_objects.append((limit, form.changed_data))


@admin.register(PlatformAmountLimit)
class PlatformAmountLimitAdmin(admin.ModelAdmin):
    form = AmountLimitForm
    list_display = ("currency", "max_amount", "changed_by", "changed_at")
    fields = ("currency", "max_amount", "changed_by", "changed_at")
    readonly_fields = ("changed_by", "changed_at")
    search_fields = ("currency",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlatformAmountLimit]:
        return super().get_queryset(request).filter(merchant__isnull=True)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A row's currency is what it is about: another currency is another row.
        return (*self.readonly_fields, "currency") if obj is not None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        saved = services.amount_limit_set(
            merchant=None,
            currency=obj.currency,
            max_amount=form.cleaned_data["max_amount"],
            changed_by=staff_actor(request),
        )
        obj.pk = saved.pk

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.amount_limit_remove(limit=obj, changed_by=staff_actor(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for limit in queryset:
            self.delete_model(request, limit)
