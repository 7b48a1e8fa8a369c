"""Token rotation in the admin (issue 25): the action asks first, with the overlap to grant, and
the token history shows on the entity's and the merchant's pages."""

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.admin import ModelAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.admin import HistoryInline, form_action, show_secret_once, staff_actor

from .. import services
from ..forms import TokenOverlapForm
from ..models import Entity, EntityTokenChange

TOKEN_HISTORY_FIELDS = (
    "changed_at",
    "changed_by",
    "kind",
    "old_last4",
    "new_last4",
    "old_token_ends_at",
    "cut_short_last4",
)


class EntityTokenChangeInline(HistoryInline):
    model = EntityTokenChange
    fk_name = "entity"
    verbose_name = "token change"
    verbose_name_plural = "token history"
    fields = TOKEN_HISTORY_FIELDS


class MerchantTokenChangeInline(EntityTokenChangeInline):
    fk_name = "merchant"


def rotate_tokens_action(
    modeladmin: ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    entity_of: Callable[[Any], Entity],
    label_of: Callable[[Any], str],
) -> HttpResponse | None:
    """The confirmation page (the selected objects, the overlap to choose), then one rotation
    per object with its new token shown once."""

    def apply(form: Any) -> None:
        overlap = form.chosen_overlap()
        for obj in queryset:
            entity = entity_of(obj)
            token = services.entity_rotate_token(
                entity=entity, overlap=overlap, changed_by=staff_actor(request)
            )
            show_secret_once(request, label_of(obj), token)
            if entity.previous_token_ends_at is not None:
                until = entity.previous_token_ends_at.strftime("%Y-%m-%d %H:%M")
                messages.info(
                    request,
                    f"{label_of(obj)}: the old token …{entity.previous_token_last4} keeps "
                    f"working until {until} UTC.",
                )

    return form_action(
        modeladmin,
        request,
        queryset,
        form_class=TokenOverlapForm,
        title="Rotate API tokens",
        submit_label="Rotate the tokens",
        intro="Each selected one gets a new random token, shown once on the next page. Its "
        "systems must use the new token from then on (notifications carry it at once); the "
        "old token stops at once or keeps working for the overlap chosen here, at most 24 "
        "hours. A token still in an earlier overlap stops now.",
        apply=apply,
    )


def previous_token_text(entity: Entity) -> str:
    """The token a rotation replaced, while it still works."""
    if not entity.previous_token_live(timezone.now()):
        return "-"
    assert entity.previous_token_ends_at is not None
    until = entity.previous_token_ends_at.strftime("%Y-%m-%d %H:%M")
    return f"…{entity.previous_token_last4}, works until {until} UTC"
