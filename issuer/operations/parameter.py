"""The Parameter group: DropDownListInquiry, the lookup tables the other operations use."""

from collections.abc import Callable

import pycountry

from core import results
from core.fields import Choice
from core.tables import MANDATORY, F, Table

from ..cards.lookups import REPLACEMENT_REASONS, STATUS_REASONS
from ..cards.models import CardProduct
from .registry import Answer, Call, group

parameter = group("parameter")


def _products() -> list[tuple[str, str]]:
    return [
        (p.code, f"{p.name} ({p.get_kind_display().lower()}, {p.currency})")
        for p in CardProduct.objects.filter(active=True).order_by("code")
    ]


LISTS: dict[str, Callable[[], list[tuple[str, str]]]] = {
    "REPLACEMENT_REASONS": lambda: list(REPLACEMENT_REASONS.items()),
    "STATUS_REASONS": lambda: list(STATUS_REASONS.items()),
    "CARD_PRODUCTS": _products,
    "COUNTRIES": lambda: sorted((c.alpha_2, c.name) for c in pycountry.countries),
    "CURRENCIES": lambda: sorted((c.alpha_3, c.name) for c in pycountry.currencies),
}


@parameter(
    "DropDownListInquiry",
    Table([F("listName", Choice(tuple(LISTS)), MANDATORY)]),
    "a lookup table: codes with descriptions",
)
def drop_down_list(call: Call) -> Answer:
    name = call.fields["listName"]
    items = [{"code": code, "description": text} for code, text in LISTS[name]()]
    return results.REQUEST_SUCCEEDED, {"listName": name, "items": items}, None
