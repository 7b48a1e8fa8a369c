"""The result-code registry: the anchor API's families, and every code the platform emits.

Codes follow the anchor API's convention (digits and dots, `XXX.XXX.XXX`), and its regular
expressions sort them into families: a client can test `result.code` against `SUCCESS` or
`PENDING` without knowing every code. `result.code` is the truth of an answer; the HTTP status
only says whether the request was understood and allowed (docs/api.md).

Core declares the codes of the API machinery (success, format, authentication, not found,
duplicates, unexpected errors), and the anchor's card declines that two apps answer, each for
itself: the issuer on its own API, the acquirer when a card's issuer declined a payment for that
reason (the acquirer and the issuer may run apart, so neither can own them). Each app declares
its own codes in its `results.py` with `declare`, which refuses a code declared twice and a code
outside every family; the apps import their `results` module when they are ready, so the
registry is complete once Django is set up.
docs/api.md's code table is generated from the registry (`python manage.py result_codes`).
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

# What the families are called where a person reads them: docs/api.md's family table (generated
# from this), the portal's and the dashboard's declines.
FAMILY_NAMES: dict[str, str] = {
    "success": "success",
    "success_review": "success, to review",
    "pending": "pending",
    "pending_long": "pending (long)",
    "rejected_3ds": "3-D Secure rejections",
    "rejected_external_bank": "external bank declines",
    "rejected_communication": "communication errors",
    "rejected_system": "system errors",
    "rejected_async_workflow": "3DS and async workflow (cancelled, expired)",
    "soft_decline": "soft declines",
    "rejected_risk": "risk",
    "rejected_blacklist": "blacklist",
    "rejected_risk_validation": "risk validation (includes duplicates)",
    "rejected_config_validation": "configuration",
    "rejected_registration_validation": "registration validation",
    "rejected_job_validation": "job validation",
    "rejected_reference_validation": "reference validation",
    "rejected_format_validation": "format validation",
    "rejected_address_validation": "address validation",
    "rejected_contact_validation": "contact validation",
    "rejected_account_validation": "account validation",
    "rejected_amount_validation": "amount validation",
    "chargeback": "chargeback",
    "unclassified": "unclassified",
}

# A decline is a refusal of a payment by its card's issuer (through the network or the issuer's
# 3-D Secure) or by a risk system. Everything else that is neither a success nor pending is a
# refusal of another kind (a workflow that does not allow it, a validation, the platform's
# configuration, an error): no one decided on the payment. The approval rate is approvals over
# approvals and declines (docs/portal.md).
DECLINE_FAMILIES = (
    "rejected_external_bank",
    "soft_decline",
    "rejected_3ds",
    "rejected_risk",
    "rejected_blacklist",
)


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

    @property
    def is_pending(self) -> bool:
        return bool(PENDING.match(self.code))

    @property
    def is_decline(self) -> bool:
        return is_decline(self.code)


@dataclass(frozen=True)
class Entry:
    """A declared code with what the documentation says of it."""

    result: Result
    owner: str  # the app that declares it
    http: str  # the HTTP status it is answered with ("200", "404", "400/405/415")
    returned_by: str  # which operations answer it


def family_of(code: str) -> str:
    for name, pattern in FAMILIES:
        if pattern.match(code):
            return name
    return "unclassified"


def family_name(code: str) -> str:
    """The family of `code` as a person reads it ("external bank declines")."""
    return FAMILY_NAMES[family_of(code)]


def is_decline(code: str) -> bool:
    """Whether `code` is an issuer's or a risk system's refusal (DECLINE_FAMILIES)."""
    return family_of(code) in DECLINE_FAMILIES


def family_patterns(family: str) -> tuple[str, list[str]]:
    """The pattern of `family` and the patterns of the families before it: a code is of the
    family when it matches the first and none of the others (the first match names the family,
    and some patterns overlap), as a database query tests it."""
    names = [name for name, _ in FAMILIES]
    index = names.index(family)
    return FAMILIES[index][1].pattern, [pattern.pattern for _, pattern in FAMILIES[:index]]


_REGISTRY: dict[str, Entry] = {}


class DuplicateCode(ValueError):
    pass


def declare(
    code: str, description: str, *, owner: str, http: str = "200", returned_by: str = ""
) -> Result:
    """Register a code. A code declared twice, or one no family classifies, is a programming
    error and stops the import."""
    if code in _REGISTRY:
        raise DuplicateCode(f"result code {code} declared twice ({_REGISTRY[code].owner}, {owner})")
    if not re.fullmatch(r"\d{3}\.\d{3}\.\d{3}", code) or family_of(code) == "unclassified":
        raise ValueError(f"result code {code} is not in any of the anchor's families")
    result = Result(code, description)
    _REGISTRY[code] = Entry(result, owner, http, returned_by)
    return result


def catalogue() -> dict[str, Result]:
    """Every code the platform emits, by code."""
    return {code: entry.result for code, entry in _REGISTRY.items()}


def entries() -> list[Entry]:
    """Every declared code with its documentation, in declaration order."""
    return list(_REGISTRY.values())


def lookup(code: str) -> Result:
    return _REGISTRY[code].result


def _core(code: str, description: str, http: str = "200", returned_by: str = "") -> Result:
    return declare(code, description, owner="core", http=http, returned_by=returned_by)


# --- success ---------------------------------------------------------------------------------
TRANSACTION_SUCCEEDED = _core(
    "000.000.000", "Transaction succeeded", returned_by="every payment type"
)
REQUEST_SUCCEEDED = _core(
    "000.000.100", "successful request", returned_by="every management operation and inquiry"
)

# --- request and parameter format --------------------------------------------------------------
INVALID_REQUEST = _core(
    "200.100.101",
    "invalid request message: the body, method, media type or size is not accepted",
    http="400/405/413/414/415/431",
    returned_by="any endpoint",
)
INVALID_PARAMETER = _core(
    "200.300.404",
    "invalid or missing parameter",
    http="400",
    returned_by="any endpoint (`parameterErrors` lists them)",
)
DUPLICATE_ENTRY = _core(
    "200.300.405",
    "duplicate entry: an object with this identifier already exists",
    returned_by="merchant/create (merchant.id), terminal/create (pos.terminalId)",
)

# --- authentication and authorization ----------------------------------------------------------
INVALID_AUTHENTICATION = _core(
    "800.900.300", "invalid authentication information", http="401", returned_by="every endpoint"
)
NOT_AUTHORIZED = _core(
    "800.900.301",
    "user authorization failed, user has no sufficient rights to process transaction",
    http="403",
    returned_by="every endpoint",
)

# --- rate limiting -----------------------------------------------------------------------------
# The anchor's "rejected by throttling" (its risk-validation family): docs/operations.md, Rate
# limiting; core/ratelimit.py.
RATE_LIMITED = _core(
    "800.120.100",
    "rejected by throttling: too many requests of this entity; retry after Retry-After seconds",
    http="429",
    returned_by="every API endpoint, while the calling entity is over API_RATE_LIMIT",
)

# --- references ----------------------------------------------------------------------------------
REFERENCE_NOT_FOUND = _core(
    "700.100.100",
    "reference id not existing",
    http="404",
    returned_by="payment inquiry; CP, RV, RF, PR against an id the caller cannot see",
)
RESOURCE_NOT_FOUND = _core(
    "700.100.199", "no such resource", http="404", returned_by="unknown paths"
)

# --- idempotency -------------------------------------------------------------------------------
DUPLICATE_TRANSACTION = _core(
    "800.110.100",
    "duplicate transaction: merchantTransactionId already used with other parameters",
    returned_by="every write, every payment",
)

# --- a card's declines: the issuer's reason, and what the acquirer answers for it ---------------
# The acquirer reads them from the ISO 8583 response code of the card's issuer
# (payments/connectors/responses.py); the platform's own issuer answers them on its API.
_ISSUER_API = "the issuer's transaction/*"
_ACQUIRER = "PA, DB, CD, CV when the card's issuer answers ISO 8583"
DECLINED_CARD_STOLEN = _core(
    "800.100.159",
    "declined: the card is reported stolen",
    returned_by=f"{_ISSUER_API}; {_ACQUIRER} 43",
)
DECLINED_CARD_LOST = _core(
    "800.100.165",
    "declined: the card is reported lost",
    returned_by=f"{_ISSUER_API}; {_ACQUIRER} 41",
)
DECLINED_CARD_NOT_ACTIVE = _core(
    "800.100.168",
    "declined: the card is not ACTIVE (inactive, suspended, cancelled or replaced)",
    returned_by=f"{_ISSUER_API}; {_ACQUIRER} 62",
)
DECLINED_ACCOUNT_NOT_ACTIVE = _core(
    "800.100.172",
    "declined: the card's account is not ACTIVE",
    returned_by=f"{_ISSUER_API}; {_ACQUIRER} 78",
)
DECLINED_LIMIT_EXCEEDED = _core(
    "800.100.162",
    "declined: a limit of the card is exceeded (per transaction, daily or monthly amount)",
    returned_by=f"the issuer's transaction/Purchase, Withdraw; {_ACQUIRER} 61",
)
DECLINED_COUNT_LIMIT_EXCEEDED = _core(
    "800.100.163",
    "declined: the card's daily or monthly number of transactions is reached",
    returned_by=f"the issuer's transaction/Purchase, Withdraw; {_ACQUIRER} 65",
)

# --- system ------------------------------------------------------------------------------------
# The anchor's "payment system currently unavailable": the platform's own database cannot be
# reached (or dropped the connection). Nothing was done that the client cannot see again: a retry
# with the same merchantTransactionId replays the answer, or answers "in progress" for a payment
# the network was asked about (the janitor resolves it). docs/operations.md, "Faults".
DATABASE_UNAVAILABLE = _core(
    "800.800.800",
    "the payment system is unavailable now (its database cannot be reached); retry later with "
    "the same merchantTransactionId",
    http="503",
    returned_by="any endpoint, while the database is unreachable",
)
UNEXPECTED_ERROR = _core(
    "999.999.999",
    "unexpected error; quote the ndc to support",
    http="500",
    returned_by="any endpoint",
)
