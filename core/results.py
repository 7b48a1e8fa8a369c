"""The result-code catalogue: every code the platform emits, with its description and family.

Codes follow the anchor API's convention (digits and dots, `XXX.XXX.XXX`), and its regular
expressions sort them into families: a client can test `result.code` against
`SUCCESS` or `PENDING` without knowing every code. `result.code` is the truth of an answer; the
HTTP status only says whether the request was understood and allowed (docs/api.md).
"""

import re
from dataclasses import dataclass

# The anchor's families, most specific first (order matters: the first match names the family).
FAMILIES: list[tuple[str, re.Pattern[str]]] = [
    ("success", re.compile(r"^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0)")),
    ("success_review", re.compile(r"^(000\.400\.0[^3]|000\.400\.100)")),
    ("pending", re.compile(r"^(000\.200)")),
    ("pending_long", re.compile(r"^(800\.400\.5|100\.400\.500)")),
    ("rejected_3ds", re.compile(r"^(000\.400\.[1][0-9][1-9]|000\.400\.2)")),
    ("rejected_external_bank", re.compile(r"^(800\.[17]00|800\.800\.[123])")),
    ("rejected_communication", re.compile(r"^(900\.[1234]00|000\.400\.030)")),
    ("rejected_system", re.compile(r"^(800\.[56]|999\.|600\.1|800\.800\.[84])")),
    ("rejected_async_workflow", re.compile(r"^(100\.39[765])")),
    ("soft_decline", re.compile(r"^(300\.100\.100)")),
    ("rejected_risk", re.compile(r"^(100\.400\.[0-3]|100\.38|100\.370\.100|100\.370\.11)")),
    ("rejected_blacklist", re.compile(r"^(800\.[32])")),
    ("rejected_risk_validation", re.compile(r"^(800\.1[123456]0)")),
    ("rejected_config_validation", re.compile(r"^(600\.[23]|500\.[12]|800\.121)")),
    ("rejected_registration_validation", re.compile(r"^(100\.[13]50)")),
    ("rejected_job_validation", re.compile(r"^(100\.250|100\.360)")),
    ("rejected_reference_validation", re.compile(r"^(700\.[1345][05]0)")),
    (
        "rejected_format_validation",
        re.compile(r"^(200\.[123]|100\.[53][07]|800\.900|100\.[69]00\.500)"),
    ),
    ("rejected_address_validation", re.compile(r"^(100\.800)")),
    ("rejected_contact_validation", re.compile(r"^(100\.700|100\.900\.[123467890][00-99])")),
    ("rejected_account_validation", re.compile(r"^(100\.100|100\.2[01])")),
    ("rejected_amount_validation", re.compile(r"^(100\.55)")),
    ("chargeback", re.compile(r"^(000\.100\.2)")),
]

SUCCESS = FAMILIES[0][1]
PENDING = FAMILIES[2][1]


@dataclass(frozen=True)
class Result:
    code: str
    description: str

    @property
    def family(self) -> str:
        return family_of(self.code)

    @property
    def is_success(self) -> bool:
        return bool(SUCCESS.match(self.code))


def family_of(code: str) -> str:
    for name, pattern in FAMILIES:
        if pattern.match(code):
            return name
    return "unclassified"


_CATALOGUE: dict[str, Result] = {}


def _r(code: str, description: str) -> Result:
    assert code not in _CATALOGUE, code
    result = Result(code, description)
    _CATALOGUE[code] = result
    return result


# --- success ---------------------------------------------------------------------------------
TRANSACTION_SUCCEEDED = _r("000.000.000", "Transaction succeeded")
REQUEST_SUCCEEDED = _r("000.000.100", "successful request")

# --- request and parameter format --------------------------------------------------------------
INVALID_REQUEST = _r(
    "200.100.101", "invalid request message: the body, method or media type is not accepted"
)
INVALID_PARAMETER = _r("200.300.404", "invalid or missing parameter")
DUPLICATE_ENTRY = _r(
    "200.300.405", "duplicate entry: an object with this identifier already exists"
)

# --- authentication and authorization ----------------------------------------------------------
INVALID_AUTHENTICATION = _r("800.900.300", "invalid authentication information")
NOT_AUTHORIZED = _r(
    "800.900.301",
    "user authorization failed, user has no sufficient rights to process transaction",
)

# --- references ----------------------------------------------------------------------------------
REFERENCE_NOT_FOUND = _r("700.100.100", "reference id not existing")
MERCHANT_NOT_FOUND = _r("700.100.101", "merchant not existing or not reachable by this entity")
TERMINAL_NOT_FOUND = _r("700.100.102", "terminal not existing or not reachable by this entity")
RESOURCE_NOT_FOUND = _r("700.100.199", "no such resource")

# --- management workflows ----------------------------------------------------------------------
MERCHANT_STATUS_NOT_ALLOWED = _r(
    "700.500.100",
    "status change not allowed: a CLOSED or TERMINATED merchant cannot return to NORMAL",
)
TERMINAL_STATUS_NOT_ALLOWED = _r(
    "700.500.101",
    "status change not allowed: a CLOSED or TERMINATED terminal cannot return to NORMAL",
)
THREEDS_ALREADY_ENROLLED = _r("700.500.200", "merchant is already enrolled in 3-D Secure")
THREEDS_NOT_ENROLLED = _r("700.500.201", "merchant is not enrolled in 3-D Secure")

# --- payments: declines from the network (stored, HTTP 200) ----------------------------------
DECLINED_INVALID_CARD = _r("800.100.151", "transaction declined (invalid card)")
DECLINED_INVALID_CVV = _r("800.100.153", "transaction declined (invalid CVV)")
DECLINED_INSUFFICIENT_FUNDS = _r("800.100.203", "transaction declined (insufficient funds)")
CARD_EXPIRED = _r("100.100.303", "card expired")
TIMEOUT_UNCERTAIN = _r(
    "900.100.300", "timeout, uncertain result: reverse it with transactionSource TIMEOUT"
)

# --- payments: merchant, terminal and risk --------------------------------------------------
MERCHANT_CANNOT_TRANSACT = _r(
    "800.121.200", "merchant may not transact: its status is BLOCKED, CLOSED or TERMINATED"
)
TERMINAL_CANNOT_TRANSACT = _r(
    "800.121.201", "terminal may not transact: its status is BLOCKED, CLOSED or TERMINATED"
)
RISK_DECLINED = _r("100.400.311", "transaction declined by risk screening (risk.decision DECLINE)")

# --- payments: referenced operations (stored, HTTP 200) -------------------------------------
CAPTURE_EXCEEDS = _r("700.400.100", "cannot capture (PA value exceeded)")
CAPTURE_NOT_OPEN_PA = _r(
    "700.400.103",
    "cannot capture: the referenced transaction is not a successful, unreversed preauthorization",
)
CAPTURE_PA_CLOSED = _r(
    "700.400.104", "cannot capture: the preauthorization was closed when its validityPeriod elapsed"
)
REFUND_EXCEEDS = _r(
    "700.400.200", "cannot refund (refund volume exceeded or tx reversed or invalid workflow)"
)
REVERSAL_REFUSED = _r(
    "700.400.300",
    "cannot reverse (already refunded or reversed, invalid workflow, or amount exceeded)",
)
CURRENCY_MISMATCH = _r(
    "700.400.410", "the currency of a referenced operation must equal the original's"
)
REFUND_NEEDS_CAPTURE = _r(
    "700.400.520", "refund needs at least one successful transaction of type CP or DB"
)
POS_REFUND_NEEDS_POS_PURCHASE = _r(
    "700.400.530", "a POS refund (PR) needs a successful POS purchase (DB through a terminal)"
)

# --- 3-D Secure -----------------------------------------------------------------------------
THREEDS_PENDING = _r(
    "000.200.000", "transaction pending: send the shopper to redirect.url for 3-D Secure"
)
THREEDS_FAILED = _r("100.380.401", "User Authentication Failed (3-D Secure)")
THREEDS_CANCELLED = _r("100.396.101", "Cancelled by user (3-D Secure)")
THREEDS_EXPIRED = _r(
    "100.396.103", "3-D Secure authentication expired: the shopper did not complete it in time"
)
THREEDS_MERCHANT_NOT_ENROLLED = _r(
    "800.121.300", "3-D Secure requested but the merchant is not enrolled (merchant/3dsenroll)"
)

# --- issuer: one-time passwords --------------------------------------------------------------
OTP_WRONG_CODE = _r("100.380.410", "one-time password does not match")
OTP_BLOCKED = _r("100.380.411", "one-time password blocked: too many wrong codes, send a new one")
OTP_EXPIRED = _r("100.396.104", "one-time password expired, send a new one")
OTP_ALREADY_USED = _r("700.400.710", "one-time password already used")

# --- idempotency -------------------------------------------------------------------------------
DUPLICATE_TRANSACTION = _r(
    "800.110.100",
    "duplicate transaction: merchantTransactionId already used with other parameters",
)

# --- system ------------------------------------------------------------------------------------
UNEXPECTED_ERROR = _r("999.999.999", "unexpected error; quote the ndc to support")


def catalogue() -> dict[str, Result]:
    """Every code the platform emits, by code."""
    return dict(_CATALOGUE)


def lookup(code: str) -> Result:
    return _CATALOGUE[code]
