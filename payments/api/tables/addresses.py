"""Addresses and the order (spec: "Billing address", "Shipping address", "Order")."""

from collections.abc import Iterable
from typing import Any

from core.fields import AN, Choice, Country, Date
from core.tables import CONDITIONAL, OPTIONAL, F, Rule, Table, requires

from .formats import BOOLEAN, LETTER_PLACE, N10_N2_LOOSE, N13, POSTCODE, STATE, TEXT255

OPT, C = OPTIONAL, CONDITIONAL

BILLING = [
    F("billing.street1", AN(100, example="Main Street"), C, meaning="mandatory for 3DS v2"),
    F("billing.street2", AN(100, example="Building B"), C),
    F(
        "billing.houseNumber1",
        AN(100, example="12"),
        OPT,
        meaning="then street1 is the street name",
    ),
    F("billing.houseNumber2", AN(100, example="a"), OPT, meaning="requires houseNumber1"),
    F("billing.city", AN(48, example="Berlin"), C, meaning="mandatory for 3DS v2"),
    F("billing.state", STATE, C),
    F("billing.postcode", POSTCODE, C, meaning="mandatory for 3DS v2"),
    F("billing.country", Country(), C, meaning="mandatory for 3DS v2"),
    F("billing.normalized", TEXT255, OPT),
    F(
        "billing.validationStatus",
        TEXT255,
        OPT,
        meaning="whether the address was validated and the normalized one confirmed",
    ),
]

SHIPPING = [
    F("shipping.street1", AN(100, example="Main Street"), C),
    F("shipping.street2", AN(100, example="Building B"), C),
    F("shipping.houseNumber1", AN(100, example="12"), OPT),
    F("shipping.houseNumber2", AN(100, example="a"), OPT, meaning="requires houseNumber1"),
    F("shipping.city", LETTER_PLACE, C),
    F("shipping.state", STATE, C),
    F("shipping.postcode", POSTCODE, C),
    F("shipping.country", Country(), C),
    F(
        "shipping.destinationType",
        AN(20, example="Residential"),
        OPT,
        meaning="e.g. Commercial, Residential, Store",
    ),
    F(
        "shipping.destinationCode",
        Choice(("01", "02", "03", "04", "05", "06", "07")),
        OPT,
        meaning="01 billing address, 02 other verified, 03 different from billing, 04 store, "
        "05 digital goods, 06 travel/event tickets, 07 other",
    ),
    F(
        "shipping.method",
        AN(30, min=4, pattern=r"[a-z_]+", what="lowercase letters and _", example="sameday"),
        C,
        meaning="e.g. lowcost, sameday",
    ),
    F("shipping.cost", N13, C),
    F("shipping.comment", AN(160, example="Leave at the door"), C),
    F("shipping.expectedDate", Date("yyyy-MM-dd"), OPT),
    F("shipping.logisticsProvider", TEXT255, OPT),
    F("shipping.trackingNumber", TEXT255, OPT),
    F("shipping.returnTrackingNumber", TEXT255, OPT),
    F("shipping.normalized", TEXT255, OPT),
    F("shipping.validationStatus", TEXT255, OPT),
    F("shipping.warehouse", AN(100, example="Berlin-1"), OPT),
    F(
        "shipping.preference",
        Choice(("GET_FROM_FILE", "NO_SHIPPING", "SET_PROVIDED_ADDRESS")),
        OPT,
        meaning="GET_FROM_FILE (default) address from the hosted pages; SET_PROVIDED_ADDRESS "
        "merchant's address, not changeable",
    ),
]


ORDER = [
    F("order.totalAmount", N10_N2_LOOSE, C),
    F("order.currency", AN(3, example="EUR"), C),
    F("order.preOrder", Choice(("MERCHANDISE_AVAILABLE", "FUTURE_AVAILABILITY")), OPT),
    F("order.preOrderDate", Date("YYYYMMDD"), OPT),
    F("order.reordered", BOOLEAN, OPT, meaning="true reordered, false first time"),
    F("order.giftWrap", BOOLEAN, OPT),
    F("order.returnAccepted", BOOLEAN, OPT),
    F(
        "order.totalOffersCount",
        AN(3, min=2, pattern=r"[0-9]{2}", what="a count 00 to 99", example="01"),
        OPT,
    ),
]


def _address_rule(prefix: str) -> Rule:
    """houseNumber2 requires houseNumber1; street1 and street2 together are not digits only."""
    house_numbers = requires(f"{prefix}.houseNumber2", f"{prefix}.houseNumber1")

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        yield from house_numbers(flat)
        street1, street2 = flat.get(f"{prefix}.street1") or "", flat.get(f"{prefix}.street2") or ""
        streets = "".join((street1 + street2).split())
        if streets.isdigit():
            name = f"{prefix}.street1" if street1 else f"{prefix}.street2"
            yield name, "street1 and street2 together cannot be digits only"

    return rule


BILLING_GROUP = Table(BILLING, rules=[_address_rule("billing")])
SHIPPING_GROUP = Table(SHIPPING, rules=[_address_rule("shipping")])
ORDER_GROUP = Table(ORDER)
