"""The merchant management tables (spec: "Merchant", "3DS enrolment fields").

One row per field: dotted name, spec type, requirement word; the merchant's own rows
(merchant.id and the registered data) are merchants.fields', which other apps' tables use too.
Every request of the merchant endpoints is validated by a table built from these rows, the
inquiry's answer is rendered from them (`MERCHANT_VIEW`), and tests/merchants/test_formats.py
generates its format cases from the same rows. Merchants' own: no other app imports this module.
"""

from collections.abc import Iterable

from stdnum import bic, iban

from core.fields import AN, Choice, Timestamp
from core.outbound import url_problem
from core.status import OperatingStatus
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given, only_with, requires
from core.tables.common import COMMON, COMMON_INQUIRY, ENTITY_ID

from ..fields import MERCHANT_FIELDS, MERCHANT_ID
from ..models import SecurityStatus, ThreeDSDeleteReason, ThreeDSStatus

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

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
