"""The cart (spec "Cart", at most 1000 items) and custom parameters ("Custom parameters")."""

from collections.abc import Iterable
from typing import Any

from core.fields import AN, Amount, Choice, Currency, Decimal_, Percent, Url
from core.tables import CONDITIONAL, OPTIONAL, F, Table, given

from .formats import N13, TEXT255

OPT, C = OPTIONAL, CONDITIONAL

ITEM = "cart.items[n]"
CART = [
    F(f"{ITEM}.name", AN(255, example="Fountain pen"), C, meaning="required in every item sent"),
    F(f"{ITEM}.merchantItemId", AN(255, example="SKU-42"), C, meaning="unique item id"),
    F(
        f"{ITEM}.quantity",
        Decimal_(int_digits=12, places=3, exact=False, code="N12.N3"),
        C,
    ),
    F(
        f"{ITEM}.type",
        Choice(
            (
                "PHYSICAL",
                "DIGITAL",
                "MIXED",
                "ANONYMOUS_DONATION",
                "AUTHORITIES_PAYMENT",
                "GIFT_CARD",
                "HANDLING",
                "SERVICE",
                "SHIPPING",
                "DEFAULT",
            )
        ),
        C,
    ),
    F(f"{ITEM}.sku", AN(255, example="PEN-BLUE-M"), OPT),
    F(f"{ITEM}.currency", Currency(), C),
    F(f"{ITEM}.description", AN(2048, example="A blue fountain pen"), C),
    F(f"{ITEM}.price", N13, C, meaning="including tax and discount, independent of quantity"),
    F(f"{ITEM}.totalAmount", N13, C, meaning="including quantity"),
    F(f"{ITEM}.taxAmount", N13, C, meaning="independent of quantity"),
    F(f"{ITEM}.totalTaxAmount", N13, C),
    F(f"{ITEM}.tax", Percent(2), C, meaning="tax percentage"),
    F(f"{ITEM}.shipping", Amount(), C),
    F(f"{ITEM}.discount", N13, C, meaning="described as a discount percentage"),
    F(f"{ITEM}.giftMessage", TEXT255, OPT),
    F(f"{ITEM}.shippingMethod", TEXT255, OPT),
    F(f"{ITEM}.shippingInstructions", TEXT255, OPT),
    F(f"{ITEM}.shippingTrackingNumber", TEXT255, OPT),
    F(f"{ITEM}.originalPrice", AN(255, example="12.00"), OPT, meaning="price before discounts"),
    F(
        f"{ITEM}.quantityUnit",
        Choice(("M", "CM", "KG", "G", "COUNT")),
        OPT,
        meaning="COUNT by default",
    ),
    F(f"{ITEM}.productUrl", Url(), OPT),
    F(f"{ITEM}.imageUrl", Url(), OPT),
    F(f"{ITEM}.totalDiscountAmount", Amount(), OPT),
]

# --- Custom parameters ---------------------------------------------------------------------------

CUSTOM_PARAMETERS = [
    F(
        "customParameters[*]",
        AN(2048, min=0, example="value"),
        C,
        meaning="echoed back; SHOPPER_ prefix from client-side integrations",
        key=AN(64, min=3, pattern=r"[A-Za-z0-9._]+", what="letters, digits, . _", example="ref"),
    ),
]


def cart_item_name_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """Every cart item sent needs a name.

    The spec marks every item field Conditional; an item without a name describes nothing a
    statement, a risk check or a dispute could use, so a name is the one field an item needs.
    (A rule, not a Mandatory row: the payment table's required list and generated bodies name
    top-level fields only.)
    """
    items = {name.split("]", 1)[0] + "]" for name in flat if name.startswith("cart.items[")}
    for item in sorted(items, key=lambda prefix: int(prefix[len("cart.items[") : -1])):
        if not given(flat, f"{item}.name"):
            yield f"{item}.name", "required in every cart item sent"


CART_GROUP = Table(CART, rules=[cart_item_name_rule], limits={"cart.items": 1000})
CUSTOM_PARAMETERS_GROUP = Table(CUSTOM_PARAMETERS)
