"""The 3-D Secure 2 fields of a payment request (spec: "3DS2 browser data (customer.browser.*)",
"3DS authentication preferences", the Payment request rows threeDSecure.indicator and
shopperResultUrl, and "Limits").

Every row is Optional or Conditional, so a payment without 3-D Secure is unaffected by them.
What 3-D Secure needs is said in two places:

- `THREEDS_RULES` hold for every payment: threeDSecure.amount and threeDSecure.currency go
  together, and the pre-authenticated group (indicator=third) is complete, successful, and not
  sent without indicator=third. With indicator=third the browser data, shopperResultUrl,
  threeDSecure.challengeIndicator, amount and currency are accepted and ignored: no
  authentication of ours runs, and refusing them would break shops that send the same browser
  block on every payment.
- `threeds_v2_problems` holds for a payment that goes through our 3-D Secure 2 flow (the caller
  decides when, and knows the card's protocol version): the browser data, the shopper's
  addresses and contact data with the tighter 3-D Secure lengths of "Other 3DS2 data".

The cardholder history travels as literal custom parameters (`customParameters[ReqAuthMethod]`);
those rows take precedence over the open `customParameters[*]` row of groups.py, so the known
names are checked and every other custom parameter stays free.
"""

import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from core.fields import (
    AN,
    Base64,
    Choice,
    Currency,
    CurrencyNumeric,
    Date,
    Decimal_,
    Email,
    FieldType,
    LocalUrl,
    N,
    Truncated,
    UtcTimestamp,
)
from core.spec import CONDITIONAL, OPTIONAL, F, Rule

OPT, C = OPTIONAL, CONDITIONAL

BOOLEAN = Choice(("true", "false"))


def _codes(last: int) -> Choice:
    """01 .. `last` as two-digit codes."""
    return Choice(tuple(f"{code:02d}" for code in range(1, last + 1)))


# --- Browser data --------------------------------------------------------------------------------

BROWSER = "customer.browser"
# A BCP 47 tag as browsers send it: a language of 2 to 8 letters, then subtags (region, script),
# within the spec's 8 characters (`en`, `en-US`, `de-CH`, `es-419`).
LANGUAGE = AN(
    8,
    pattern=r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*",
    what="an IETF BCP 47 language tag",
    example="en-US",
)
CHALLENGE_WINDOW = Choice(
    ("01", "02", "03", "04", "05"), aliases={str(size): f"0{size}" for size in range(1, 6)}
)

BROWSER_FIELDS = [
    F(
        f"{BROWSER}.acceptHeader",
        Truncated(2048, example="text/html,application/xhtml+xml"),
        C,
        meaning="the exact HTTP Accept header; mandatory for 3DS v2; truncated after 2048",
    ),
    F(
        f"{BROWSER}.language",
        LANGUAGE,
        C,
        meaning="browser language (e.g. en-US); mandatory for 3DS v2",
    ),
    F(
        f"{BROWSER}.screenHeight",
        N(6),
        C,
        meaning="pixels; mandatory for 3DS v2 when javascriptEnabled is true",
    ),
    F(
        f"{BROWSER}.screenWidth",
        N(6),
        C,
        meaning="pixels; mandatory for 3DS v2 when javascriptEnabled is true",
    ),
    F(
        f"{BROWSER}.timezone",
        AN(5, pattern=r"-?\d+", what="minutes, an optional minus then digits", example="-60"),
        C,
        meaning="minutes between UTC and browser local time, positive if local time is behind "
        "UTC; mandatory for 3DS v2 when javascriptEnabled is true",
    ),
    F(
        f"{BROWSER}.userAgent",
        Truncated(2048, example="Mozilla/5.0 (X11; Linux x86_64)"),
        C,
        meaning="the exact User-Agent header; mandatory for 3DS v2; truncated after 2048",
    ),
    F(
        f"{BROWSER}.javaEnabled",
        BOOLEAN,
        C,
        meaning="mandatory for 3DS 2.1; for 3DS 2.2 when javascriptEnabled is true",
    ),
    F(f"{BROWSER}.javascriptEnabled", BOOLEAN, C, meaning="mandatory for 3DS v2"),
    F(
        f"{BROWSER}.screenColorDepth",
        Choice(("1", "4", "8", "15", "16", "24", "32", "48")),
        C,
        meaning="bits per pixel; mandatory for 3DS 2.1; for 3DS 2.2 when javascriptEnabled is true",
    ),
    F(
        f"{BROWSER}.challengeWindow",
        CHALLENGE_WINDOW,
        OPT,
        meaning="01 250x400, 02 390x400, 03 500x600, 04 600x400, 05 full screen (1 to 5 accepted)",
    ),
    F(f"{BROWSER}.deviceId", AN(32, example="device-42"), OPT, meaning="browser device id"),
]

# --- Authentication preferences and the pre-authenticated group ----------------------------------

INDICATOR = "threeDSecure.indicator"
PRE_AUTHENTICATED = (
    "threeDSecure.authenticationStatus",
    "threeDSecure.eci",
    "threeDSecure.verificationId",
    "threeDSecure.dsTransactionId",
)
# transStatus of EMV 3-D Secure; only Y and A are a successful authentication.
TRANS_STATUS = {
    "Y": "authenticated",
    "A": "attempted",
    "N": "not authenticated",
    "U": "authentication could not be performed",
    "R": "authentication rejected",
    "C": "challenge required, not completed",
}
SUCCESSFUL_STATUS = ("Y", "A")
# "max 12, two decimals": 12 characters with the dot, so up to 9 integer digits.
THREEDS_AMOUNT = Decimal_(int_digits=9, places=2, exact=True, code="max 12 characters")
MAX_THREEDS_AMOUNT = Decimal("999999999.99")

THREEDS_SECURE_FIELDS = [
    F(
        INDICATOR,
        Choice(("force", "true", "third")),
        C,
        meaning="force: risk system then 3DS; true: 3DS; third: pre-authenticated data "
        "supplied. Ignored if merchant 3DS authentication is not optional",
    ),
    F(
        "threeDSecure.amount",
        THREEDS_AMOUNT,
        OPT,
        meaning="amount to authenticate when different from the payment amount; "
        "requires threeDSecure.currency",
    ),
    F(
        "threeDSecure.currency",
        Currency(),
        OPT,
        meaning="currency to authenticate; requires threeDSecure.amount",
    ),
    F(
        "threeDSecure.challengeIndicator",
        _codes(4),
        OPT,
        meaning="01 no preference (default); 02 no challenge requested; 03 challenge requested; "
        "04 challenge mandated. A preference only: the issuer decides",
    ),
    F(
        "threeDSecure.authenticationStatus",
        Choice(tuple(TRANS_STATUS)),
        C,
        meaning="AN1, transStatus of the external authentication (Y or A); "
        "mandatory with indicator third",
    ),
    F(
        "threeDSecure.eci",
        N(2, min=2),
        C,
        meaning="electronic commerce indicator of the authentication; mandatory with indicator "
        "third",
    ),
    F(
        "threeDSecure.verificationId",
        Base64(255),
        C,
        meaning="authentication value from the issuer (CAVV/AAV); mandatory with indicator third",
    ),
    F(
        "threeDSecure.dsTransactionId",
        AN(
            64,
            pattern=r"[A-Za-z0-9-]+",
            what="letters, digits and hyphen",
            example="f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
        ),
        C,
        meaning="id assigned by the directory server; mandatory with indicator third",
    ),
    F(
        "shopperResultUrl",
        LocalUrl(),
        C,
        meaning="receives the final 3DS response (the shopper's browser posts to it); "
        "mandatory for 3DS v2",
    ),
]

# --- Cardholder history (customParameters[<name>]) -----------------------------------------------

TIMESTAMP = UtcTimestamp("YYYYMMDDHHMM")
DAY = Date("YYYYMMDD")
AGE_INDICATOR = _codes(5)
AGE_MEANING = "01 no account; 02 this transaction; 03 under 30 days; 04 30 to 60 days; 05 over 60"

_HISTORY: list[tuple[str, FieldType, str]] = [
    (
        "ReqAuthMethod",
        _codes(6),
        "01 guest; 02 own credentials; 03 federated id; 04 issuer credentials; "
        "05 third-party authentication; 06 authenticator (FIDO)",
    ),
    ("ReqAuthTimestamp", TIMESTAMP, "UTC time of that authentication"),
    (
        "PriorAuthMethod",
        _codes(4),
        "01 frictionless by ACS; 02 challenge by ACS; 03 ACS verified; 04 other issuer methods",
    ),
    ("PriorAuthTimestamp", TIMESTAMP, "UTC time of the prior authentication"),
    (
        "PriorReference",
        AN(64, example="8a880f3a-7c1e-4b6f-9a55-3b2e1f0d9c11"),
        "ACS transaction id of a prior authenticated transaction",
    ),
    ("AccountId", AN(255, example="acct-0042"), "extra account information"),
    (
        "AccountAgeIndicator",
        AGE_INDICATOR,
        "01 no account (guest); 02 created this transaction; 03 under 30 days; "
        "04 30 to 60 days; 05 over 60 days",
    ),
    ("AccountChangeDate", DAY, "last change of the account"),
    (
        "AccountChangeIndicator",
        _codes(4),
        "01 this transaction; 02 under 30 days; 03 30 to 60 days; 04 over 60 days",
    ),
    ("AccountDate", DAY, "account opening date"),
    ("AccountPasswordChangeDate", DAY, "last password change"),
    ("AccountPasswordChangeIndicator", AGE_INDICATOR, AGE_MEANING),
    ("AccountPurchaseCount", N(4), "purchases in the previous six months"),
    ("AccountProvisioningAttempts", N(4), "add-card attempts in the last 24 hours"),
    ("AccountDayTransactions", N(4), "transactions (successful and abandoned), last 24 hours"),
    ("AccountYearTransactions", N(4), "transactions in the previous year"),
    ("PaymentAccountAge", DAY, "date the payment account was enrolled"),
    ("PaymentAccountAgeIndicator", AGE_INDICATOR, AGE_MEANING),
    ("ShipAddressUsageDate", DAY, "first use of the shipping address"),
    ("ShipAddressUsageIndicator", AGE_INDICATOR, AGE_MEANING),
    (
        "ShipIndicator",
        _codes(7),
        "01 billing address; 02 other verified address; 03 different address; "
        "04 ship to store; 05 digital goods; 06 travel and event tickets; 07 other",
    ),
    ("ShipNameIndicator", _codes(2), "01 account name identical to shipping name; 02 different"),
    ("SuspiciousAccountActivity", _codes(2), "01 none observed; 02 observed"),
    (
        "TransactionType",
        Choice(("01", "03", "10", "11", "28")),
        "01 goods/service purchase; 03 check acceptance; 10 account funding; 11 quasi-cash; "
        "28 prepaid activation and load",
    ),
    (
        "DeliveryTimeframe",
        _codes(4),
        "01 electronic; 02 same day; 03 overnight; 04 two days or more",
    ),
    ("DeliveryEmailAddress", Email(254), "e-mail address for electronic delivery"),
    ("ReorderItemsIndicator", _codes(2), "01 first time; 02 reordered"),
    ("PreOrderPurchaseIndicator", _codes(2), "01 available; 02 future availability"),
    ("PreOrderDate", DAY, "expected availability of a pre-ordered item"),
    ("GiftCardAmount", N(15), "total gift/prepaid card amount in major units"),
    ("GiftCardCurrency", CurrencyNumeric(), "currency of the gift cards (ISO 4217 numeric)"),
    ("GiftCardCount", N(2), "number of cards or codes purchased"),
]

CARDHOLDER_HISTORY_NAMES: list[str] = [name for name, _, _ in _HISTORY]

CARDHOLDER_HISTORY = [
    F(
        f"customParameters[{name}]",
        ftype,
        OPT,
        meaning=f"3DS cardholder history: {meaning}",
    )
    for name, ftype, meaning in _HISTORY
]

THREEDS_FIELDS: list[F] = [*BROWSER_FIELDS, *THREEDS_SECURE_FIELDS, *CARDHOLDER_HISTORY]


def cardholder_history(flat: Mapping[str, Any]) -> dict[str, str]:
    """The cardholder history sent with a payment, {name: value as sent} (dates and timestamps
    formatted back to YYYYMMDD and YYYYMMDDHHMM), for keeping with the authentication."""
    history = {}
    for name in CARDHOLDER_HISTORY_NAMES:
        value = flat.get(f"customParameters[{name}]")
        if value in (None, ""):
            continue
        if isinstance(value, datetime):
            history[name] = TIMESTAMP.format(value)
        elif isinstance(value, date):
            history[name] = value.strftime("%Y%m%d")
        else:
            history[name] = str(value)
    return history


# --- Rules for every payment ---------------------------------------------------------------------


def _given(flat: Mapping[str, Any], name: str) -> bool:
    return flat.get(name) not in (None, "")


def threeds_amount_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """threeDSecure.amount and threeDSecure.currency go together: an amount to authenticate
    needs its currency, and a currency alone would pair with the payment amount."""
    amount, currency = "threeDSecure.amount", "threeDSecure.currency"
    if _given(flat, amount) and not _given(flat, currency):
        yield currency, f"is required when {amount} is given (they go together)"
    if _given(flat, currency) and not _given(flat, amount):
        yield amount, f"is required when {currency} is given (they go together)"


def pre_authenticated_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """indicator=third: the four pre-authentication fields, of a successful authentication.
    Without indicator=third none of them may be sent (they would be silently unused)."""
    if flat.get(INDICATOR) == "third":
        for name in PRE_AUTHENTICATED:
            if not _given(flat, name):
                yield name, "is required when threeDSecure.indicator is third (pre-authenticated)"
        status = flat.get("threeDSecure.authenticationStatus") or ""
        if status and status not in SUCCESSFUL_STATUS:
            meaning = TRANS_STATUS.get(status, "unknown")
            yield (
                "threeDSecure.authenticationStatus",
                f"is a failed authentication ({status}: {meaning}): do not send the "
                "pre-authenticated group when authentication failed",
            )
    else:
        for name in PRE_AUTHENTICATED:
            if _given(flat, name):
                yield name, "requires threeDSecure.indicator=third"


THREEDS_RULES: list[Rule] = [threeds_amount_rule, pre_authenticated_rule]

# --- Conditional rules of a 3-D Secure 2 authentication ------------------------------------------

V2 = "3-D Secure 2"
V2_REQUIRED = (
    "shopperResultUrl",
    f"{BROWSER}.acceptHeader",
    f"{BROWSER}.language",
    f"{BROWSER}.userAgent",
    f"{BROWSER}.javascriptEnabled",
    # "required unless a market or regional mandate restricts sending them": no such mandate is
    # modelled, so they are required.
    "billing.street1",
    "billing.city",
    "billing.postcode",
    "billing.country",
    "customer.email",
    "card.holder",
    "amount",
    "currency",
)
WITH_JAVASCRIPT = (f"{BROWSER}.screenHeight", f"{BROWSER}.screenWidth", f"{BROWSER}.timezone")
JAVA_AND_DEPTH = (f"{BROWSER}.javaEnabled", f"{BROWSER}.screenColorDepth")
# "Other 3DS2 data" (and customer.ip of the customer table): (min, max) characters.
V2_LENGTHS: dict[str, tuple[int, int]] = {
    "billing.city": (2, 45),
    "billing.street1": (1, 50),
    "billing.street2": (1, 50),
    "billing.postcode": (1, 50),
    "shipping.street1": (1, 50),
    "shipping.street2": (1, 50),
    "shipping.city": (1, 50),
    "shipping.postcode": (1, 16),
    "customer.email": (1, 128),
    "card.holder": (1, 128),
    "customer.ip": (1, 45),
}
SUBDIVISION = re.compile(r"[A-Za-z0-9]{1,3}")
V2_STATES = ("billing.state", "shipping.state")
# +ccc-nnnnnnnnn: + optional, a country code of up to 3 digits, a hyphen, up to 15 digits.
V2_PHONE = re.compile(r"\+?\d{1,3}-\d{1,15}")
V2_PHONES = ("customer.phone", "customer.workPhone", "customer.mobile")


def threeds_v2_problems(flat: Mapping[str, Any], *, version: str) -> list[tuple[str, str]]:
    """What a payment lacks, or sends too long, for a 3-D Secure 2 authentication of protocol
    `version` ("2.1.0", "2.2.0"; later 2.x versions follow 2.2's rules). `flat` holds the parsed
    values of Table.validate. Returns (dotted name, message) pairs, empty when all is well."""
    if not re.fullmatch(r"2\.\d+\.\d+", version):
        raise ValueError(f"not a 3-D Secure 2 protocol version: {version!r}")
    v21 = version.startswith("2.1.")
    problems: list[tuple[str, str]] = []

    def need(names: Iterable[str], why: str) -> None:
        problems.extend(
            (name, f"is required for {why}") for name in names if not _given(flat, name)
        )

    need(V2_REQUIRED, V2)
    javascript = flat.get(f"{BROWSER}.javascriptEnabled") == "true"
    if javascript:
        need(WITH_JAVASCRIPT, f"{V2} when {BROWSER}.javascriptEnabled is true")
    if v21:
        need(JAVA_AND_DEPTH, f"{V2}.1")
    elif javascript:
        need(JAVA_AND_DEPTH, f"{V2}.2 when {BROWSER}.javascriptEnabled is true")

    for name, (low, high) in V2_LENGTHS.items():
        value = flat.get(name)
        if value not in (None, "") and not low <= len(str(value)) <= high:
            size = f"{low} to {high}" if low > 1 else f"at most {high}"
            problems.append((name, f"must be {size} characters for {V2}"))
    for name in V2_STATES:
        if _given(flat, name) and not SUBDIVISION.fullmatch(flat[name]):
            problems.append(
                (name, f"must be at most 3 letters or digits for {V2} (ISO 3166-2 subdivision)")
            )
    for name in V2_PHONES:
        value = flat.get(name)
        if value not in (None, "") and not (len(value) <= 20 and V2_PHONE.fullmatch(value)):
            problems.append(
                (
                    name,
                    f"must be +ccc-nnnnnnnnn for {V2}: an optional +, a country code of up to 3 "
                    "digits, a hyphen and up to 15 digits (at most 20 characters)",
                )
            )
    # The amount authenticated is threeDSecure.amount when sent, else the payment amount, which
    # then has to fit the 3-D Secure "max 12" (N10.N2 allows 13 characters).
    amount = flat.get("amount") or Decimal(0)
    if not _given(flat, "threeDSecure.amount") and Decimal(amount) > MAX_THREEDS_AMOUNT:
        problems.append(
            (
                "amount",
                f"must be at most {MAX_THREEDS_AMOUNT} for {V2} (at most 12 characters with "
                "two decimals)",
            )
        )
    return problems


__all__ = [
    "CARDHOLDER_HISTORY",
    "CARDHOLDER_HISTORY_NAMES",
    "THREEDS_FIELDS",
    "THREEDS_RULES",
    "cardholder_history",
    "threeds_v2_problems",
]
