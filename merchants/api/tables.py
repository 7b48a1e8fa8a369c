"""The merchant management tables (spec: "Merchant", "3DS enrolment fields").

One row per field: dotted name, spec type, requirement word. Every request of the merchant
endpoints is validated by a table built from these rows, the inquiry's answer is rendered from
them (`MERCHANT_VIEW`), and tests/merchants/test_formats.py generates its format cases from the
same rows.
"""

from collections.abc import Iterable

from stdnum import bic, iban

from core.fields import AN, LETTER, UN, Choice, Country, Currency, Date, Hex, LocalUrl, N, Timestamp
from core.outbound import url_problem
from core.status import OperatingStatus
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given, only_with, requires
from core.tables.common import COMMON, COMMON_INQUIRY, ENTITY_ID

from ..models import SecurityStatus, ThreeDSDeleteReason, ThreeDSStatus

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

# Place names: letters (any script), digits, and the space, hyphen, apostrophe and dot they carry.
PLACE = rf"(?:{LETTER}|[0-9 .,'\-/])+"

MERCHANT_ID = F(
    "merchant.id", N(15), M, attr="merchant_id", meaning="acquirer-assigned merchant id"
)

MERCHANT_FIELDS = [
    F(
        "merchant.name",
        AN(100, example="Acme Trading Ltd"),
        M,
        meaning="registered legal business name (AN75; the pattern allows 100)",
    ),
    F("merchant.business", AN(22, example="ACME SHOP"), M, meaning="statement line 1"),
    F("merchant.website", AN(100, example="www.acme.example"), OPT, meaning="statement line 2"),
    F("merchant.street", AN(100, example="1 Main Street"), M, meaning="outlet location, no PO box"),
    F(
        "merchant.postcode",
        AN(10, pattern=r"[A-Za-z0-9\-]+", what="letters, digits and hyphen", example="10115"),
        M,
    ),
    F("merchant.city", AN(50, pattern=PLACE, what="letters and digits", example="Berlin"), M),
    F("merchant.state", AN(50, pattern=PLACE, what="letters and digits", example="Berlin"), M),
    F("merchant.country", Country(), M),
    F(
        "merchant.phone",
        AN(
            25, pattern=r"[A-Za-z0-9+\-.]+", what="letters, digits, + - .", example="+49-30-1234567"
        ),
        M,
    ),
    F(
        "merchant.mmcc",
        AN(4, min=4, pattern=r"[0-9]{4}", what="4 digits", example="5411"),
        M,
        meaning="MCC for the first card network",
    ),
    F(
        "merchant.vmcc",
        AN(4, min=4, pattern=r"[0-9]{4}", what="4 digits", example="5411"),
        M,
        meaning="MCC for the second card network",
    ),
    F("merchant.pfId", AN(11, example="PF000000001"), M, meaning="payment-facilitator id"),
    F("merchant.isoId", AN(8, example="ISO00001"), OPT),
    F("merchant.submerchantId", AN(15, example="SUB000000000001"), OPT),
    F("merchant.pfAbbv", AN(7, example="PFABBV"), OPT),
    F("merchant.nationalTaxIdentificationNumber", AN(14, example="DE123456789"), OPT),
    F("merchant.locationStreetAddress1", AN(60, example="1 Main Street"), OPT),
    *[F(f"merchant.mcc{i}", UN(4, min=4), OPT, meaning="extra MCC") for i in range(2, 11)],
    F(
        "merchant.aggregatorID",
        AN(8, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="AGG00001"),
        C,
    ),
    F(
        "merchant.aggregatorName",
        AN(
            25, pattern=r"[A-Za-z0-9 ]+", what="letters, digits, spaces", example="Acme Marketplace"
        ),
        C,
    ),
    F("merchant.aggregatorType", Choice(("P", "M")), C, meaning="P facilitator, M marketplace"),
    F(
        "merchant.aggregatorAbbv",
        AN(7, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="ACMEMP"),
        C,
    ),
    F(
        "merchant.corporateStatus",
        Choice(("0", "1")),
        M,
        meaning="0 not a sole proprietor, 1 individual/sole proprietor",
    ),
    F("merchant.corporateName", AN(100, example="Acme Holdings"), OPT),
    F("merchant.dateDesigned", Date("ccyymmdd"), M, meaning="relationship start date"),
    F("merchant.mvvID", Hex(10, min=10), C, meaning="Merchant Verification Value"),
    F(
        "merchant.bankAccount.holder",
        AN(128, min=4, example="Acme Trading Ltd"),
        C,
        meaning="settlement account holder; with number and country",
        attr="bank_account_holder",
    ),
    F(
        "merchant.bankAccount.number",
        AN(
            64,
            min=3,
            pattern=r"[A-Za-z0-9]+",
            what="letters and digits",
            example="DE89370400440532013000",
        ),
        C,
        meaning="IBAN for IBAN countries (checked), else the account number",
        attr="bank_account_number",
    ),
    F(
        "merchant.bankAccount.bic",
        AN(11, min=8, pattern=r"[A-Z0-9]+", what="a BIC", example="COBADEFFXXX"),
        OPT,
        meaning="checked; its country is the account's",
        attr="bank_account_bic",
    ),
    F("merchant.bankAccount.country", Country(), C, attr="bank_account_country"),
    F(
        "merchant.settlementCurrency",
        Currency(),
        OPT,
        meaning="the currency the merchant is paid in",
    ),
    F(
        "merchant.notificationUrl",
        LocalUrl(),
        OPT,
        meaning="where token status notifications are posted: HTTPS, a public host",
    ),
]

# aggregatorName is required with aggregatorID; the aggregator details need an aggregatorID.
AGGREGATOR_RULES = [
    requires("merchant.aggregatorID", "merchant.aggregatorName"),
    only_with(
        "merchant.aggregatorID",
        ("merchant.aggregatorName", "merchant.aggregatorType", "merchant.aggregatorAbbv"),
    ),
]


def notification_url_rule(flat: dict[str, object]) -> Iterable[tuple[str, str]]:
    """HTTPS to a public host, unless NOTIFICATION_ALLOW_INSECURE_URLS (local testing); never
    with a user name or password (core.outbound.url_problem)."""
    url = flat.get("merchant.notificationUrl")
    if not url:
        return
    problem = url_problem(str(url))
    if problem:
        yield "merchant.notificationUrl", problem


def bank_account_rule(flat: dict[str, object]) -> Iterable[tuple[str, str]]:
    """The account's holder, number and country go together; an IBAN (and a BIC) is checked
    with python-stdnum, and names the account's country."""
    names = (
        "merchant.bankAccount.holder",
        "merchant.bankAccount.number",
        "merchant.bankAccount.country",
    )
    sent = [name for name in names if given(flat, name)]
    if sent or given(flat, "merchant.bankAccount.bic"):
        for name in names:
            if not given(flat, name):
                yield name, "is required with a settlement bank account (holder, number, country)"
    number = str(flat.get("merchant.bankAccount.number") or "").upper()
    country = str(flat.get("merchant.bankAccount.country") or "")
    if number[:2].isalpha() and number[2:4].isdigit():
        if not iban.is_valid(number):
            yield "merchant.bankAccount.number", "is not a valid IBAN (its check digits fail)"
        elif country and number[:2] != country:
            yield "merchant.bankAccount.number", f"is an IBAN of {number[:2]}, not of {country}"
    bic_code = str(flat.get("merchant.bankAccount.bic") or "")
    if bic_code:
        if not bic.is_valid(bic_code):
            yield "merchant.bankAccount.bic", "is not a valid BIC"
        elif country and bic_code[4:6] != country:
            yield "merchant.bankAccount.bic", f"is a BIC of {bic_code[4:6]}, not of {country}"


# The registered data, with the rules of its aggregator group, the bank account and the
# notification URL.
MERCHANT_DATA = Table(
    MERCHANT_FIELDS, rules=[*AGGREGATOR_RULES, bank_account_rule, notification_url_rule]
)

MERCHANT_CREATE = Table([*COMMON, MERCHANT_ID]) + MERCHANT_DATA
MERCHANT_UPDATE = Table([*COMMON, MERCHANT_ID]) + MERCHANT_DATA


def status_given(flat: dict[str, object]) -> Iterable[tuple[str, str]]:
    if not given(flat, "merchant.status") and not given(flat, "merchant.securityStatus"):
        yield "merchant.status", "is required (one of NORMAL, CLOSED, BLOCKED, TERMINATED)"


MERCHANT_STATUS = Table(
    [
        *COMMON,
        MERCHANT_ID,
        F("merchant.status", Choice(tuple(OperatingStatus.values)), C),
        F("merchant.securityStatus", Choice(tuple(SecurityStatus.values)), OPT),
    ],
    rules=[status_given],
)

MERCHANT_3DS_ENROL = Table([*COMMON, MERCHANT_ID])
MERCHANT_3DS_DELETE = Table(
    [
        *COMMON,
        MERCHANT_ID,
        F("threeDSecure.deleteReason", Choice(tuple(ThreeDSDeleteReason.values)), M),
    ]
)

MERCHANT_INQUIRY = Table(
    [
        *COMMON_INQUIRY,
        MERCHANT_ID,
        F(
            "pos.terminalId",
            AN(8, pattern=r"[A-Za-z0-9_]+"),
            OPT,
            meaning="required for entityType POS",
        ),
    ]
)


# What the merchant inquiry answers: the registered data and the merchant's state.
MERCHANT_VIEW = Table(
    [
        MERCHANT_ID,
        *MERCHANT_FIELDS,
        F("merchant.entityId", AN(8), attr="entity.entity_id"),
        F("merchant.status", Choice(tuple(OperatingStatus.values))),
        F("merchant.securityStatus", Choice(tuple(SecurityStatus.values)), attr="security_status"),
        F(
            "merchant.threeDSecure.enrolmentStatus",
            Choice(tuple(ThreeDSStatus.values)),
            attr="threeds_status",
        ),
        F("merchant.threeDSecure.enrolledAt", Timestamp(), attr="threeds_enrolled_at"),
        F("merchant.threeDSecure.deletedAt", Timestamp(), attr="threeds_deleted_at"),
        F(
            "merchant.threeDSecure.deleteReason",
            Choice(tuple(ThreeDSDeleteReason.values)),
            attr="threeds_delete_reason",
        ),
        F(
            "merchant.testMode",
            Choice(("true", "false")),
            source=lambda merchant: "true" if merchant.in_test_mode else "false",
            meaning="connector test mode (the merchant's or its participator's)",
        ),
        F("merchant.createdAt", Timestamp(), attr="created_at"),
        F("merchant.updatedAt", Timestamp(), attr="updated_at"),
    ]
)
# The stored values a partial update's rules see, merged with the change.
MERCHANT_STORED = [MERCHANT_ID.name, *(row.name for row in MERCHANT_FIELDS)]


# --- What the other operations answer (the OpenAPI document) ------------------------------------

MERCHANT_STATUS_ROWS = [
    F("merchant.status", Choice(tuple(OperatingStatus.values))),
    F("merchant.securityStatus", Choice(tuple(SecurityStatus.values))),
]
MERCHANT_3DS_ROWS = [
    F("merchant.threeDSecure.enrolmentStatus", Choice(tuple(ThreeDSStatus.values))),
    F("merchant.threeDSecure.deleteReason", Choice(tuple(ThreeDSDeleteReason.values))),
]
MERCHANT_CREATE_ANSWER = Table(
    [
        MERCHANT_ID,
        F("merchant.entityId", ENTITY_ID.type, meaning="the merchant's own entityId"),
        F(
            "merchant.token",
            AN(43, min=43, pattern=r"[A-Za-z0-9_\-]+", what="URL-safe base64"),
            meaning="the merchant's bearer token: shown once, never in a replay",
        ),
    ]
)
MERCHANT_ID_ANSWER = Table([MERCHANT_ID])
MERCHANT_STATUS_ANSWER = Table([MERCHANT_ID, *MERCHANT_STATUS_ROWS])
MERCHANT_3DS_ANSWER = Table([MERCHANT_ID, *MERCHANT_3DS_ROWS])
