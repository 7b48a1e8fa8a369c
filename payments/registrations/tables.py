"""Card on file in the request tables: `createRegistration`, the standing instruction group
(spec "Standing instruction (card on file)") with the rules a scheme enforces that need no
stored data, and the tables of the registrations paths.

Rules over stored data (the chain an MIT names, its expiry, installments, frequency, a
resubmission) are the services' (registrations/instructions.py): they answer a result code.
"""

from collections.abc import Iterable
from typing import Any

from core.fields import AN, Amount, Choice, Currency, Date, Month, N, Ranged, Timestamp, Year
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given
from core.tables.common import ENTITY_ID, ENTITY_TYPE

from .models import InstructionType, RegistrationStatus

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

SI = "standingInstruction."
SOURCES = ("CIT", "MIT")
MODES = ("INITIAL", "REPEATED")
PRACTICES = ("INCREMENTAL_AUTH", "RESUBMISSION", "REAUTHORIZATION", "DELAYED_CHARGES", "NO_SHOW")
INITIAL_TRANSACTION_ID = AN(
    64,
    pattern=r"[A-Za-z0-9]+",
    what="letters and digits (the network's transaction id of the initial payment)",
    example="SIM123456789012345",
)
REGISTRATION_ID = AN(
    32,
    min=32,
    pattern=r"[A-Za-z0-9]{32}",
    what="a registration id (32 alphanumerics)",
    example="5f0e4c2a9b8d4e6f8a1b2c3d4e5f6a7b",
)
# N4 and N3 (leading zeros accepted), at least 1.
FREQUENCY = Ranged(1, 9999, what="days")
INSTALLMENTS = Ranged(1, 999, what="authorizations")
# Types that may carry a standing instruction or store the card; an MIT is a PA or DB.
CARD_ON_FILE_TYPES = ("PA", "DB", "CV")
MIT_TYPES = ("PA", "DB")
# transactionCategory that names an instruction type.
CATEGORY_TYPE = {"RC": InstructionType.RECURRING, "IN": InstructionType.INSTALLMENT}

STANDING_INSTRUCTION_FIELDS = [
    F(SI + "type", Choice(tuple(InstructionType.values)), OPT),
    F(SI + "mode", Choice(MODES), OPT, meaning="INITIAL by default for a CIT, REPEATED for an MIT"),
    F(SI + "source", Choice(SOURCES), C, meaning="required with any standingInstruction field"),
    F(
        SI + "initialTransactionId",
        INITIAL_TRANSACTION_ID,
        C,
        meaning="from the CIT's answer; required on every MIT",
    ),
    F(SI + "industryPractice", Choice(PRACTICES), OPT, meaning="MIT only"),
    F(SI + "expiry", Date("yyyy-MM-dd"), C, meaning="no authorization after this date"),
    F(
        SI + "frequency",
        FREQUENCY,
        C,
        meaning="minimum days between authorizations (28 = monthly); required for RECURRING",
    ),
    F(SI + "numberOfInstallments", INSTALLMENTS, C, meaning="required for INSTALLMENT"),
]
CREATE_REGISTRATION = F(
    "createRegistration",
    Choice(("true", "false")),
    OPT,
    meaning="store the card when approved; the answer carries registrationId",
)


def effective_mode(flat: dict[str, Any]) -> str:
    """The mode a payment's standing instruction has: as sent, else REPEATED for an MIT and
    INITIAL for a CIT; "" without a standing instruction."""
    mode = flat.get(SI + "mode") or ""
    if mode:
        return str(mode)
    return {"MIT": "REPEATED", "CIT": "INITIAL"}.get(flat.get(SI + "source") or "", "")


def standing_rules(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    kind = flat.get("paymentType")
    sent = [name for name in flat if name.startswith(SI) and given(flat, name)]
    if given(flat, "createRegistration") and kind not in CARD_ON_FILE_TYPES:
        yield "createRegistration", f"is not taken by paymentType {kind} (PA, DB or CV only)"
    if not sent:
        category = flat.get("transactionCategory")
        if category in CATEGORY_TYPE:
            yield (
                SI + "type",
                f"is required with transactionCategory {category} "
                f"({CATEGORY_TYPE[category]}), with standingInstruction.source",
            )
        return
    if kind not in CARD_ON_FILE_TYPES:
        yield sent[0], f"is not taken by paymentType {kind} (PA, DB or CV only)"
        return
    source, mode = flat.get(SI + "source"), effective_mode(flat)
    if not source:
        yield SI + "source", "is required with a standing instruction (CIT or MIT)"
        return
    instruction_type = flat.get(SI + "type") or ""
    if mode == "INITIAL" and source != "CIT":
        yield SI + "mode", "INITIAL goes with standingInstruction.source CIT"
    if source == "MIT":
        if kind not in MIT_TYPES:
            yield SI + "source", f"MIT is not taken by paymentType {kind} (PA or DB only)"
        if not given(flat, SI + "initialTransactionId"):
            yield SI + "initialTransactionId", "is required on a merchant-initiated payment (MIT)"
    else:
        if given(flat, SI + "initialTransactionId"):
            yield (
                SI + "initialTransactionId",
                "names the initial transaction of a merchant-initiated payment (MIT); a CIT "
                "has none",
            )
        if given(flat, SI + "industryPractice"):
            yield SI + "industryPractice", "is for merchant-initiated payments (MIT) only"
    if mode == "REPEATED":
        for name in flat:
            if (name == "card.cvv" or name.startswith("threeDSecure.")) and given(flat, name):
                yield name, "is not taken by a REPEATED standing instruction (shopper absent)"
    if mode == "INITIAL":
        if instruction_type == InstructionType.RECURRING and not given(flat, SI + "frequency"):
            yield SI + "frequency", "is required for standingInstruction.type RECURRING"
        if instruction_type == InstructionType.INSTALLMENT and not given(
            flat, SI + "numberOfInstallments"
        ):
            yield (
                SI + "numberOfInstallments",
                "is required for standingInstruction.type INSTALLMENT",
            )
    category = flat.get("transactionCategory")
    if category in CATEGORY_TYPE and instruction_type != CATEGORY_TYPE[category]:
        yield (
            "transactionCategory",
            f"{category} goes with standingInstruction.type {CATEGORY_TYPE[category]}",
        )


STANDING_INSTRUCTION = Table(STANDING_INSTRUCTION_FIELDS, rules=[standing_rules])
STANDING_INSTRUCTION_GROUP = STANDING_INSTRUCTION + Table([CREATE_REGISTRATION])

# One payment of a chain, as the payment inquiry lists them (the CIT and every MIT).
CHAIN_PAYMENT = Table(
    [
        F("id", AN(32, min=32, pattern=r"[A-Za-z0-9]{32}", what="a payment id"), attr="pk"),
        F("source", Choice(SOURCES)),
        F("paymentType", Choice(MIT_TYPES + ("CV",))),
        F("amount", Amount()),
        F("currency", Currency()),
        F("resultCode", AN(11, pattern=r"[0-9]{3}\.[0-9]{3}\.[0-9]{3}", what="a result code")),
        F("createdAt", Timestamp()),
    ]
)

# What a payment answers of its standing instruction: the fields sent, for a successful CIT the
# network's id of it (every later MIT names it), and in the inquiry the chain's payments.
STANDING_INSTRUCTION_ANSWER = [
    F("registrationId", REGISTRATION_ID, attr="registration_id"),
    F(SI + "initialTransactionId", INITIAL_TRANSACTION_ID),
    *[row for row in STANDING_INSTRUCTION_FIELDS if row.name != SI + "initialTransactionId"],
    *[F(f"{SI}payments[n].{row.name}", row.type, meaning=row.meaning) for row in CHAIN_PAYMENT],
]

# --- the registrations paths ---------------------------------------------------------------

REGISTRATION_INQUIRY = Table([ENTITY_ID, ENTITY_TYPE])

# One standing instruction set up with a registration (a chain of CIT and MITs).
INSTRUCTION_ANSWER = Table(
    [
        F("initialTransactionId", INITIAL_TRANSACTION_ID),
        F("type", Choice(tuple(InstructionType.values))),
        F("frequency", FREQUENCY, attr="frequency_days"),
        F("numberOfInstallments", INSTALLMENTS),
        F("expiry", Date("yyyy-MM-dd")),
        F("authorizations", N(6), meaning="approved authorizations, the CIT's included"),
        F("lastAuthorizedAt", Timestamp()),
    ]
)
INSTRUCTION_ROWS = [
    F(f"standingInstructions[n].{row.name}", row.type, meaning=row.meaning)
    for row in INSTRUCTION_ANSWER
]
REGISTRATION_ANSWER = Table(
    [
        F("registrationId", REGISTRATION_ID, attr="pk"),
        F("status", Choice(tuple(RegistrationStatus.values))),
        F("paymentBrand", AN(32)),
        F("card.bin", N(6), attr="card_bin"),
        F("card.last4Digits", N(4), attr="card_last4"),
        F("card.holder", AN(128), attr="card_holder"),
        F("card.expiryMonth", Month(), attr="card_expiry_month"),
        F("card.expiryYear", Year(), attr="card_expiry_year"),
        F("customer.merchantCustomerId", AN(100), attr="merchant_customer_id"),
        F("merchant.id", N(15), attr="merchant.merchant_id"),
        F("createdAt", Timestamp()),
        F("deregisteredAt", Timestamp()),
        *INSTRUCTION_ROWS,
    ]
)


def authentication_problems(flat: dict[str, Any], *, three_ds: bool) -> list[tuple[str, str]]:
    """Rules of an INITIAL standing instruction that depend on whether the payment goes through
    3-D Secure (the merchant's mode decides that too): it carries card.cvv or 3-D Secure data,
    and with 3-D Secure a RECURRING or INSTALLMENT one carries expiry and frequency (they reach
    the authentication as recurringExpiry and recurringFrequency)."""
    if not flat.get(SI + "source") or effective_mode(flat) != "INITIAL":
        return []
    authenticated = three_ds or flat.get("threeDSecure.indicator") == "third"
    problems = []
    if not authenticated and not given(flat, "card.cvv"):
        problems.append(
            ("card.cvv", "is required by an INITIAL standing instruction without 3-D Secure")
        )
    if three_ds and flat.get(SI + "type") in (
        InstructionType.RECURRING,
        InstructionType.INSTALLMENT,
    ):
        for name in (SI + "expiry", SI + "frequency"):
            if not given(flat, name):
                problems.append(
                    (name, "is required for a RECURRING or INSTALLMENT INITIAL with 3-D Secure")
                )
    return problems
