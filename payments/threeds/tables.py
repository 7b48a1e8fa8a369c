"""The 3-D Secure 2 rows of a payment request (spec: "3DS2 browser data (customer.browser.*)",
"3DS authentication preferences", the Payment request rows threeDSecure.indicator and
shopperResultUrl, and "Limits").

Every row is Optional or Conditional, so a payment without 3-D Secure is unaffected by them.
What 3-D Secure needs is said in two places:

- `THREEDS_RULES` hold for every payment: threeDSecure.amount and threeDSecure.currency go
  together (and the amount fits the currency's minor units), and the pre-authenticated group
  (indicator=third) is complete, successful, and not sent without indicator=third. With
  indicator=third the browser data, shopperResultUrl, threeDSecure.challengeIndicator, amount
  and currency are accepted and ignored: no authentication of ours runs, and refusing them
  would break shops that send the same browser block on every payment.
- `threeds_v2_problems` (payments/threeds/v2.py) holds for a payment that goes through our
  3-D Secure 2 flow (the caller decides when, and knows the card's protocol version): the
  browser data, the shopper's addresses and contact data with the tighter 3-D Secure lengths
  of "Other 3DS2 data".

The cardholder history travels as literal custom parameters (`customParameters[ReqAuthMethod]`);
those rows take precedence over the open `customParameters[*]` row of
payments/api/tables/cart.py, so the known names are checked and every other custom parameter
stays free.
"""

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
from core.tables import CONDITIONAL, OPTIONAL, F, Rule, Table, fits_currency, given, together

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
        AN(5, pattern=r"-?[0-9]+", what="minutes, an optional minus then digits", example="-60"),
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

# threeDSecure.amount and threeDSecure.currency go together: an amount to authenticate needs its
# currency, and a currency alone would pair with the payment amount.
threeds_amount_rule = together("threeDSecure.amount", "threeDSecure.currency")


def pre_authenticated_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """indicator=third: the four pre-authentication fields, of a successful authentication.
    Without indicator=third none of them may be sent (they would be silently unused)."""
    if flat.get(INDICATOR) == "third":
        for name in PRE_AUTHENTICATED:
            if not given(flat, name):
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
            if given(flat, name):
                yield name, "requires threeDSecure.indicator=third"


THREEDS_RULES: list[Rule] = [
    threeds_amount_rule,
    fits_currency("threeDSecure.amount", "threeDSecure.currency"),
    pre_authenticated_rule,
]

THREEDS_GROUP = Table(THREEDS_FIELDS, rules=THREEDS_RULES)
