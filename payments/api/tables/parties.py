"""Who takes part in a payment besides the card: the merchant override of the statement data
(spec "Merchant override in a payment request"), the customer and the shipping customer
("Customer and shipping customer") and risk screening ("Risk screening"). Each group is a table
with its own rules: "mandatory when the group is sent" cannot be said by a row.
"""

from collections.abc import Iterable
from typing import Any

from core.fields import AN, Choice, Date, Email, IPAddress, Truncated
from core.tables import CONDITIONAL, OPTIONAL, F, Rule, Table, given, required_with_group, requires
from merchants.fields import MERCHANT_FIELDS

from .formats import MOBILE, PHONE

OPT, C = OPTIONAL, CONDITIONAL

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


def _names_rule(prefix: str) -> Rule:
    """givenName and surname are required if any other field of the customer group is sent.

    Only this group's rows count: customer.browser.* (3-D Secure device data) does not make a
    customer's name required.
    """
    names = [spec.name for spec in CUSTOMER if spec.name.startswith(prefix + ".")]

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        for required in (f"{prefix}.givenName", f"{prefix}.surname"):
            others = [name for name in names if name != required and given(flat, name)]
            if others and not given(flat, required):
                yield required, "required when other customer parameters are sent"

    return rule


def _identification_rules(prefix: str) -> list[Rule]:
    kind, number = f"{prefix}.identificationDocType", f"{prefix}.identificationDocId"
    return [requires(kind, number), requires(number, kind)]


# Any override field (merchant.id is not one) makes the statement data mandatory.
MERCHANT_OVERRIDE_GROUP = Table(
    MERCHANT_OVERRIDE,
    rules=[
        required_with_group(
            [spec.name for spec in MERCHANT_OVERRIDE],
            OVERRIDE_REQUIRED,
            "a merchant override is sent",
        )
    ],
)
CUSTOMER_GROUP = Table(
    CUSTOMER,
    rules=[
        _names_rule("customer"),
        _names_rule("shipping.customer"),
        *_identification_rules("customer"),
        *_identification_rules("shipping.customer"),
    ],
)
RISK_GROUP = Table(RISK_REQUEST)
