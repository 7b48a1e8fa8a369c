"""Staff admin for entities: creating a participator (its token is shown once), renaming,
deactivating, rotating its token (confirmed, with an optional overlap) and its token history.
Every write goes through `merchants.services`; neither the token's hash nor its vault copy is in
any form or list."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from core.admin import ServiceAddMixin, adopt, show_secret_once

from .. import services
from ..forms import EntityChangeForm, EntityCreateForm
from ..models import Entity, Merchant
from .tokens import EntityTokenChangeInline, previous_token_text, rotate_tokens_action

TOKEN_FIELDS = ("token_hash", "token_ciphertext")


@admin.register(Entity)
class EntityAdmin(ServiceAddMixin, admin.ModelAdmin):
    list_display = (
        "entity_id",
        "entity_type",
        "name",
        "owner",
        "token_display",
        "is_active",
        "created_at",
    )
    list_filter = ("entity_type", "is_active", "test_mode")
    search_fields = ("entity_id", "name")
    list_select_related = ("owner",)
    ordering = ("entity_id",)
    date_hierarchy = "created_at"
    list_per_page = 50
    exclude = TOKEN_FIELDS
    actions = ("rotate_token",)

    add_fieldsets = ((None, {"fields": ("entity_id", "entity_type", "name")}),)
    change_fieldsets = (
        (
            None,
            {
                "fields": (
                    "entity_id",
                    "entity_type",
                    "name",
                    "owner",
                    "merchant_link",
                    "is_active",
                    "test_mode",
                )
            },
        ),
        (
            "Token",
            {
                "fields": ("token_display", "token_rotated_at", "previous_token"),
                "description": "Only the last four characters are kept in clear. Use the "
                "“Rotate token…” action to issue a new one.",
            },
        ),
        ("Record", {"fields": ("created_at",)}),
    )
    change_readonly_fields = (
        "entity_id",
        "entity_type",
        "owner",
        "merchant_link",
        "token_display",
        "token_rotated_at",
        "previous_token",
        "created_at",
    )

    @admin.display(description="token", ordering="token_last4")
    def token_display(self, obj: Entity) -> str:
        return f"…{obj.token_last4}"

    @admin.display(description="previous token")
    def previous_token(self, obj: Entity) -> str:
        return previous_token_text(obj)

    def get_inlines(self, request: HttpRequest, obj: Entity | None) -> Any:
        return () if obj is None else (EntityTokenChangeInline,)

    @admin.display(description="merchant")
    def merchant_link(self, obj: Entity) -> str:
        merchant = Merchant.objects.filter(entity=obj).first()
        if merchant is None:
            return "-"
        url = reverse("admin:merchants_merchant_change", args=[merchant.pk])
        return format_html('<a href="{}">{}</a>', url, merchant)

    def get_form(
        self, request: HttpRequest, obj: Entity | None = None, change: bool = False, **kwargs: Any
    ) -> type[ModelForm]:
        kwargs["form"] = EntityCreateForm if obj is None else EntityChangeForm
        return super().get_form(request, obj, change, **kwargs)

    def save_model(self, request: HttpRequest, obj: Entity, form: ModelForm, change: bool) -> None:
        if not change:
            entity, token = services.entity_create(
                entity_type=form.cleaned_data["entity_type"],
                entity_id=form.cleaned_data["entity_id"],
                name=form.cleaned_data["name"],
            )
            adopt(obj, entity)
            show_secret_once(request, entity.entity_id, token)
            return
        editable = ("name", "is_active", "test_mode")
        changed = {f: form.cleaned_data[f] for f in editable if f in form.changed_data}
        if changed:
            services.entity_update(entity=obj, **changed)

    def has_delete_permission(self, request: HttpRequest, obj: Entity | None = None) -> bool:
        return False  # deactivate instead: merchants and history refer to entities

    @admin.action(description="Rotate token…", permissions=["change"])
    def rotate_token(self, request: HttpRequest, queryset: QuerySet[Entity]) -> HttpResponse | None:
        return rotate_tokens_action(
            self,
            request,
            queryset,
            entity_of=lambda entity: entity,
            label_of=lambda entity: entity.entity_id,
        )
