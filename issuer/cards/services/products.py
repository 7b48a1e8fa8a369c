"""Card products and their letters: which of the catalogue's operations a product runs.

The catalogue gives every operation a letter per product kind (M, O, C, NA); a product keeps
its own row per operation (`ProductOperation`): M always runs, O unless switched off, C only
when switched on, NA never. `require_letter` is asked before every operation on a card."""

from collections.abc import Mapping
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from django.db import transaction

from core.errors import ApplicationError

from ... import results
from ...catalogue import CATALOGUE, Entry
from ..models import BinRange, CardProduct, Letter, ProductOperation


def product_operations_create(
    *, product: CardProduct, enabled: Mapping[str, bool] | None = None
) -> None:
    """The product's applicability table from the catalogue's letters: O enabled, C as
    `enabled` says (default off), M and NA fixed. Operations without letters are not listed."""
    enabled = dict(enabled or {})
    rows = []
    for entry in CATALOGUE.values():
        letter = entry.applies(product.kind)
        if letter is None:
            continue
        on = {"M": True, "O": True, "C": False, "NA": False}[letter]
        rows.append(
            ProductOperation(
                product=product,
                operation=entry.path,
                letter=letter,
                enabled=enabled.get(entry.path, on) if letter in ("O", "C") else on,
            )
        )
    ProductOperation.objects.bulk_create(rows, ignore_conflicts=True)


def product_create(
    *,
    code: str,
    name: str,
    kind: str,
    currency: str,
    bins: list[str],
    brand: str = "VISA",
    enabled: Mapping[str, bool] | None = None,
    max_balance: Decimal | None = None,
) -> CardProduct:
    with transaction.atomic():
        product = CardProduct.objects.create(
            code=code, name=name, kind=kind, currency=currency, brand=brand, max_balance=max_balance
        )
        for bin_ in bins:
            BinRange.objects.create(bin=bin_, product=product)
        product_operations_create(product=product, enabled=enabled)
    return product


def require_letter(*, product: CardProduct, entry: Entry, card: object = None) -> None:
    """Refuse an operation the product does not run: NA (never), or O/C not enabled. A card
    read with its product's row for the entry (selectors.card_of's `operation`) saves the
    query for it."""
    letter = entry.applies(product.kind)
    if letter is None:
        return
    row: Any
    if card is not None and hasattr(card, "operation_letter"):
        known: Any = getattr(card, "operation_letter")  # noqa: B009 - an annotation of card_of
        row = (
            None
            if known is None
            else SimpleNamespace(letter=known, enabled=getattr(card, "operation_enabled"))  # noqa: B009
        )
    else:
        row = ProductOperation.objects.filter(product=product, operation=entry.path).first()
    letter = row.letter if row is not None else letter
    if letter == Letter.NA:
        raise ApplicationError(
            results.NOT_APPLICABLE,
            f"{entry.path} is not applicable to {product.get_kind_display().lower()} product "
            f"{product.code} (NA)",
        )
    if letter == Letter.M:
        return
    if row is None or not row.enabled:
        raise ApplicationError(
            results.NOT_ENABLED,
            f"{entry.path} is not enabled for product {product.code} ({letter}"
            + (": its configuration does not allow it)" if letter == Letter.C else ")"),
        )
