"""The data groups a payment request carries (spec: "Merchant override in a payment request",
"Customer and shipping customer", "Risk screening", "Billing address", "Shipping address",
"Order", "Airline", "Cart", "Custom parameters").

Every row here is Optional or Conditional: the spec's "Mandatory" inside a group means mandatory
when the group is sent, which the rows cannot say, so the rules below (`GROUP_RULES`) say it over
the flat values once every field is valid. The payment table (serializers.py) adds these rows,
rules and limits to its own. The 3-D Secure browser data (customer.browser.*) is not here: it
belongs to the 3-D Secure tables.
"""

from collections.abc import Iterable
from typing import Any

from core.fields import (
    AN,
    Amount,
    Choice,
    Country,
    Currency,
    Date,
    Decimal_,
    Email,
    IPAddress,
    Percent,
    Truncated,
    Url,
)
from core.spec import CONDITIONAL, OPTIONAL, F, Rule, require_together
from merchants.api.serializers import MERCHANT_FIELDS

OPT, C = OPTIONAL, CONDITIONAL

# --- Shared formats ------------------------------------------------------------------------------

TEXT255 = AN(255, example="text")
# "N13, two decimals": 13 digits in all, two of them decimals (a dot between).
N13 = Decimal_(int_digits=11, places=2, exact=True, code="N13 (11 integer digits, 2 decimals)")
# "N10.N2 (decimal part optional)" (order.totalAmount).
N10_N2_LOOSE = Decimal_(int_digits=10, places=2, exact=False, code="N10.N2 (decimals optional)")
BOOLEAN = Choice(("true", "false"))
# "alphanumeric" postcodes, with the inner space or hyphen real ones carry (SW1A 1AA, 00-950).
POSTCODE = AN(
    10,
    pattern=r"[A-Za-z0-9](?:[A-Za-z0-9 \-]*[A-Za-z0-9])?",
    what="letters and digits (an inner space or hyphen allowed)",
    example="10115",
)
STATE = AN(10, pattern=r"[A-Za-z0-9.]+", what="letters, digits and dot", example="BE")
# "letters" (shipping.city): any script, with the spaces, dots, hyphens, apostrophes of names.
LETTER_PLACE = AN(
    50,
    pattern=r"[^\W\d_]+(?:[ .'\-]+[^\W\d_]+)*\.?",
    what="letters (with space . ' -)",
    example="Saint-Denis",
)
# "first char + or digit, then 7 to 25 of digits, space . ( ) / -": 8 to 26 characters in all.
PHONE = AN(
    26,
    min=8,
    pattern=r"[+0-9][0-9 .()/\-]{7,25}",
    what="+ or a digit, then 7 to 25 of digits, space . ( ) / -",
    example="+49 30 1234567",
)
MOBILE = AN(
    26,
    min=6,
    pattern=r"[+0-9][0-9 .()/\-]{5,25}",
    what="+ or a digit, then 5 to 25 of digits, space . ( ) / -",
    example="+491701234567",
)

# --- Merchant override ---------------------------------------------------------------------------

# Same formats as the merchant table; merchant.id stays with the payment table.
_MERCHANT = {spec.name: spec for spec in MERCHANT_FIELDS}
OVERRIDE_REQUIRED = (
    "merchant.name",
    "merchant.business",
    "merchant.street",
    "merchant.postcode",
    "merchant.city",
    "merchant.state",
    "merchant.country",
    "merchant.mmcc",
    "merchant.vmcc",
)
OVERRIDE_OPTIONAL = (
    "merchant.website",
    "merchant.phone",
    "merchant.pfId",
    "merchant.isoId",
    "merchant.submerchantId",
)
MERCHANT_OVERRIDE = [
    F(
        name,
        _MERCHANT[name].type,
        C if name in OVERRIDE_REQUIRED else OPT,
        meaning=(_MERCHANT[name].meaning or "statement data") + "; overrides the stored merchant",
    )
    for name in (
        "merchant.name",
        "merchant.business",
        "merchant.website",
        "merchant.street",
        "merchant.postcode",
        "merchant.city",
        "merchant.state",
        "merchant.country",
        "merchant.phone",
        "merchant.mmcc",
        "merchant.vmcc",
        "merchant.pfId",
        "merchant.isoId",
        "merchant.submerchantId",
    )
]

# --- Customer and shipping customer --------------------------------------------------------------

NAME = Truncated(48, example="Jane")


def _customer_rows(prefix: str, *, fingerprint: bool) -> list[F]:
    rows = [
        F(f"{prefix}.merchantCustomerId", AN(100, example="cust-0042"), C, meaning="shopper id"),
        F(f"{prefix}.givenName", NAME, C, meaning="required if any other customer field is sent"),
        F(f"{prefix}.middleName", NAME, OPT),
        F(f"{prefix}.surname", NAME, C, meaning="required if any other customer field is sent"),
        F(f"{prefix}.sex", Choice(("M", "F")), OPT),
        F(f"{prefix}.birthDate", Date("yyyy-MM-dd"), C),
        F(f"{prefix}.phone", PHONE, OPT),
        F(f"{prefix}.mobile", MOBILE, OPT),
        F(f"{prefix}.workPhone", AN(25, example="+49 30 7654321"), OPT),
        F(f"{prefix}.email", Email(128, min=6), OPT, meaning="needed for some risk checks"),
        F(f"{prefix}.companyName", AN(60, example="Acme GmbH"), OPT),
        F(
            f"{prefix}.identificationDocType",
            Choice(("IDCARD", "PASSPORT", "TAXSTATEMENT")),
            C,
            meaning="requires identificationDocId",
        ),
        F(
            f"{prefix}.identificationDocId",
            AN(64, min=8, example="L01X00T47"),
            C,
            meaning="requires identificationDocType",
        ),
        F(f"{prefix}.ip", IPAddress(255), OPT, meaning="shopper's IPv4 or IPv6 address"),
    ]
    if fingerprint:
        rows += [
            F(f"{prefix}.browserFingerprint.id", AN(255, example="fp-1"), OPT),
            F(f"{prefix}.browserFingerprint.value", AN(4096, example="0400bpNfiPCR"), OPT),
        ]
    rows.append(F(f"{prefix}.status", Choice(("NEW", "EXISTING")), OPT))
    return rows


CUSTOMER = [
    *_customer_rows("customer", fingerprint=True),
    *_customer_rows("shipping.customer", fingerprint=False),
]

# --- Risk screening ------------------------------------------------------------------------------

RISK_REQUEST = [
    F("risk.ind", AN(1, example="1"), OPT, meaning="risk indicator"),
    F(
        "risk.systemID",
        AN(32, min=2, pattern=r"[A-Za-z0-9_.\-]+", what="an identifier", example="INTERNAL"),
        C,
        meaning="INTERNAL (built-in screening) or an external risk-system id",
    ),
    F(
        "risk.parameters[*]",
        AN(255, min=0, example="value"),
        OPT,
        meaning="custom risk data",
        key=AN(32, min=3, pattern=r"[A-Za-z0-9._]+", what="letters, digits, . _", example="score"),
    ),
]

# --- Billing and shipping address ----------------------------------------------------------------

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

# --- Order ---------------------------------------------------------------------------------------

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
        AN(3, min=2, pattern=r"\d{2}", what="a count 00 to 99", example="01"),
        OPT,
    ),
]

# --- Airline -------------------------------------------------------------------------------------

_DAY = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_CLOCK = r"(?:(?:[01]\d|2[0-3]):[0-5]\d|(?:0[1-9]|1[0-2]):[0-5]\d ?(?:AM|PM|am|pm))"
_ZONE = r"[A-Za-z][A-Za-z_/]*(?:[+-]\d{1,2}(?::?\d{2})?)?"
DEPARTURE_TIME = AN(
    30,
    pattern=rf"{_DAY} {_CLOCK} {_ZONE}",
    what="yyyy-MM-dd HH:mm z, yyyy-MM-dd hh:mm a z or yyyy-MM-dd hh:mma z",
    example="2024-05-01 14:30 GMT",
)
ROUTE = AN(
    255,
    pattern=r"[A-Za-z0-9]{3,4}-[A-Za-z0-9]{3,4}(?::[A-Za-z0-9]{3,4}-[A-Za-z0-9]{3,4})*",
    what="ORIG1-DEST1[:ORIG2-DEST2...]",
    example="FRA-JFK:JFK-LAX",
)

AIRLINE = [
    # The spec's spellings (Desitination, depature) are the parameter names clients send.
    F(
        "airline.actualFinalDesitination",
        AN(10, example="LAX"),
        OPT,
        meaning="IATA code of the final destination",
    ),
    F(
        "airline.completeRoute",
        ROUTE,
        OPT,
        meaning="takes precedence over the legs' origin/destination",
    ),
    F("airline.depatureTime", DEPARTURE_TIME, OPT, meaning="time zone GMT or local"),
    F("airline.journeyType", AN(30, example="ONE_WAY"), OPT),
    F("airline.totalTaxAmount", Amount(), C),
    F("airline.totalFeesAmount", Amount(), C),
    F("airline.totalFareAmount", Amount(), C),
    F("airline.ticketIssueDate", Date("yyyy-MM-dd"), C),
    *[
        F(f"airline.{name}", TEXT255, C)
        for name in (
            "ticketIssueAddress",
            "thirdPartyBooking",
            "bookingType",
            "ticketDeliveryMethod",
            "bookingRefNum",
            "agentName",
            "agentCode",
        )
    ],
    F(
        "airline.passengers[n].type",
        Choice(("ADT", "CNN", "INF", "YTH", "STU", "SCR", "MIL")),
        C,
        meaning="ADT adult, CNN child, INF infant, YTH youth, STU student, SCR senior, "
        "MIL military",
    ),
    F("airline.passengers[n].givenName", AN(48, example="Jane"), C),
    F("airline.passengers[n].surname", AN(48, example="Doe"), C),
    F("airline.passengers[n].nationality", Country(), C),
    F(
        "airline.passengers[n].status",
        AN(25, example="Gold"),
        C,
        meaning="e.g. Standard, Gold, Platinum",
    ),
    *[
        F(f"airline.passengers[n].{name}", TEXT255, C)
        for name in (
            "ticketRestricted",
            "ticketNumber",
            "phone",
            "frequentFlyerNumber",
            "email",
            "dob",
            "checkDigit",
        )
    ],
    *[
        F(f"airline.passengers[n].legs[n].{name}", TEXT255, C)
        for name in (
            "ticketNumber",
            "stopOverAllowed",
            "restrictions",
            "flightNumber",
            "fareBasis",
            "exchangeTicketNum",
            "departureCountry",
            "departureAirport",
            "airlineName",
            "airlineCode",
            "departureTime",
            "arrivalCountry",
            "arrivalAirport",
            "arrivalTime",
            "couponNumber",
            "classOfService",
            "carrierCode",
        )
    ],
    *[
        F(f"airline.passengers[n].legs[n].{name}", Amount(), C)
        for name in ("taxAmount", "feesAmount", "fareAmount", "departureTaxAmount")
    ],
    F("airline.passengers[n].legs[n].departureDate", Date("yyyy-MM-dd"), C),
    F("airline.passengers[n].legs[n].arrivalDate", Date("yyyy-MM-dd"), C),
    F("airline.passengers[n].legs[n].timeToDeparture", AN(10, example="3"), C, meaning="days"),
]

# --- Cart ----------------------------------------------------------------------------------------

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

# --- Rules ---------------------------------------------------------------------------------------


def _given(flat: dict[str, Any], name: str) -> bool:
    return flat.get(name) not in (None, "")


def merchant_override_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """Any override field (merchant.id is not one) makes the statement data mandatory."""
    if any(_given(flat, spec.name) for spec in MERCHANT_OVERRIDE):
        for name in OVERRIDE_REQUIRED:
            if not _given(flat, name):
                yield name, "required when a merchant override is sent"


def _names_rule(prefix: str) -> Rule:
    """givenName and surname are required if any other field of the customer group is sent.

    Only this group's rows count: customer.browser.* (3-D Secure device data) does not make a
    customer's name required.
    """
    names = [spec.name for spec in CUSTOMER if spec.name.startswith(prefix + ".")]

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        for required in (f"{prefix}.givenName", f"{prefix}.surname"):
            others = [name for name in names if name != required and _given(flat, name)]
            if others and not _given(flat, required):
                yield required, "required when other customer parameters are sent"

    return rule


def _address_rule(prefix: str) -> Rule:
    """houseNumber2 requires houseNumber1; street1 and street2 together are not digits only."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        yield from require_together(f"{prefix}.houseNumber2", f"{prefix}.houseNumber1")(flat)
        street1, street2 = flat.get(f"{prefix}.street1") or "", flat.get(f"{prefix}.street2") or ""
        streets = "".join((street1 + street2).split())
        if streets.isdigit():
            name = f"{prefix}.street1" if street1 else f"{prefix}.street2"
            yield name, "street1 and street2 together cannot be digits only"

    return rule


def cart_item_name_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """Every cart item sent needs a name.

    The spec marks every item field Conditional; an item without a name describes nothing a
    statement, a risk check or a dispute could use, so a name is the one field an item needs.
    (A rule, not a Mandatory row: the payment table's required list and generated bodies name
    top-level fields only.)
    """
    items = {name.split("]", 1)[0] + "]" for name in flat if name.startswith("cart.items[")}
    for item in sorted(items, key=lambda prefix: int(prefix[len("cart.items[") : -1])):
        if not _given(flat, f"{item}.name"):
            yield f"{item}.name", "required in every cart item sent"


GROUP_FIELDS: list[F] = [
    *MERCHANT_OVERRIDE,
    *CUSTOMER,
    *RISK_REQUEST,
    *BILLING,
    *SHIPPING,
    *ORDER,
    *AIRLINE,
    *CART,
    *CUSTOM_PARAMETERS,
]

GROUP_RULES: list[Rule] = [
    merchant_override_rule,
    _names_rule("customer"),
    _names_rule("shipping.customer"),
    require_together("customer.identificationDocType", "customer.identificationDocId"),
    require_together("customer.identificationDocId", "customer.identificationDocType"),
    require_together(
        "shipping.customer.identificationDocType", "shipping.customer.identificationDocId"
    ),
    require_together(
        "shipping.customer.identificationDocId", "shipping.customer.identificationDocType"
    ),
    _address_rule("billing"),
    _address_rule("shipping"),
    cart_item_name_rule,
]

# Maximum items per repeated group. Cart: the spec's 1000. Airline: the spec gives no maximum;
# 99 passengers per booking and 99 legs per passenger are far beyond any real ticket and keep a
# request's size bounded.
GROUP_LIMITS: dict[str, int] = {
    "cart.items": 1000,
    "airline.passengers": 99,
    "airline.passengers[n].legs": 99,
}

__all__ = [
    "AIRLINE",
    "BILLING",
    "CART",
    "CUSTOMER",
    "CUSTOM_PARAMETERS",
    "GROUP_FIELDS",
    "GROUP_LIMITS",
    "GROUP_RULES",
    "MERCHANT_OVERRIDE",
    "ORDER",
    "RISK_REQUEST",
    "SHIPPING",
]
