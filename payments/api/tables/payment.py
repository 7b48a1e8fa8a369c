"""The payment request table (spec "Payment request"), with the data groups and the 3-D Secure
rows, each group with its own rules.

Which fields a payment type needs is a rule over the flat values (`type_rules`): card data for
PA, DB, CD and CV; amount and currency for money movements; originalTransactionId for the
referenced types, which must not carry card data; transactionSource (one of five) on RV.
`amount_rules`: an amount that moves money is more than 0.00 (a CV may carry 0.00, a zero-amount
account verification, or no amount), and amount and taxAmount fit the currency's minor units.
"""

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from stdnum import luhn

from core.cards import BRANDS, detect_brand
from core.fields import AN, Amount, Choice, Currency, N
from core.tables import (
    CONDITIONAL,
    MANDATORY,
    OPTIONAL,
    F,
    Table,
    fits_currency,
    given,
    not_above,
)
from core.tables.cards import CARD_NAMES, CARD_ROWS, CARD_TOKEN
from core.tables.common import ENTITY_ID, ENTITY_TYPE

from ...models import PaymentType, TransactionSource
from ...registrations.tables import STANDING_INSTRUCTION_GROUP
from ...threeds.tables import THREEDS_GROUP
from .addresses import BILLING_GROUP, ORDER_GROUP, SHIPPING_GROUP
from .airline import AIRLINE_GROUP
from .cart import CART_GROUP, CUSTOM_PARAMETERS_GROUP
from .parties import CUSTOMER_GROUP, MERCHANT_OVERRIDE_GROUP, RISK_GROUP

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

MTID = AN(
    32,
    min=32,
    pattern=r"[A-Za-z0-9]{32}",
    what="exactly 32 letters and digits",
    example="a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
)
TRANSACTION_ID = AN(
    32,
    min=32,
    pattern=r"[A-Za-z0-9]{32}",
    what="a payment id (32 alphanumerics)",
    example="8ac7a4a0817e8d2d01817f2a33a21c44",
)

PAYMENT_FIELDS = [
    ENTITY_ID,
    ENTITY_TYPE,
    F("merchantTransactionId", MTID, M, meaning="unique reference per merchant"),
    F("paymentType", Choice(tuple(PaymentType.values)), M),
    F("amount", Amount(), C, meaning="includes tax and shipping; optional for CV"),
    F("currency", Currency(), C),
    F("taxAmount", Amount(), OPT),
    F("paymentBrand", Choice(BRANDS), C, meaning="detected from the BIN when absent"),
    *CARD_ROWS,
    CARD_TOKEN,
    F("descriptor", AN(127, example="ACME*ORDER 42"), OPT),
    F("transactionSource", AN(32, example="CARDHOLDER"), C, meaning="mandatory on reversals"),
    F("merchantInvoiceId", AN(255, min=8, example="INV-00042"), OPT),
    F("merchantMemo", AN(255, min=8, example="memo for reporting"), OPT),
    F("transactionCategory", Choice(("EC", "MO", "TO", "RC", "IN", "PO", "PM")), OPT),
    F("merchant.id", N(15), M),
    F("pos.terminalId", AN(8, pattern=r"[A-Za-z0-9_]+", example="T0000001"), OPT),
    F("validityPeriod", N(8), OPT, meaning="milliseconds until an uncaptured PA is closed"),
    F("checkoutType", Choice(("AUTHORIZE", "PURCHASE")), OPT),
    F("originalTransactionId", TRANSACTION_ID, C, meaning="required on CP, RV, RF, PR"),
]

CARD_TYPES = {PaymentType.PA, PaymentType.DB, PaymentType.CD, PaymentType.CV}
TOKEN_TYPES = {PaymentType.PA, PaymentType.DB, PaymentType.CV}
MONEY_TYPES = {
    PaymentType.PA,
    PaymentType.DB,
    PaymentType.CD,
    PaymentType.CP,
    PaymentType.RF,
    PaymentType.PR,
}


def type_rules(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    kind = flat.get("paymentType")
    if given(flat, "card.token"):
        if kind not in TOKEN_TYPES:
            yield "card.token", f"is not taken by paymentType {kind} (PA, DB or CV only)"
        for name in CARD_NAMES:
            if given(flat, name):
                yield name, "is not taken with card.token: the token stands for the card"
        if given(flat, "originalTransactionId"):
            yield "originalTransactionId", f"is not taken by paymentType {kind}"
    elif kind in CARD_TYPES:
        for name in ("card.number", "card.expiryMonth", "card.expiryYear"):
            if not given(flat, name):
                yield name, f"is required for paymentType {kind}"
        if given(flat, "card.number") and not luhn.is_valid(flat["card.number"]):
            yield "card.number", "is not a valid card number (Luhn check failed)"
        if given(flat, "originalTransactionId"):
            yield "originalTransactionId", f"is not taken by paymentType {kind}"
    else:
        for name in CARD_NAMES:
            if given(flat, name):
                yield name, f"is not taken by paymentType {kind}: the original's card is used"
    if kind in MONEY_TYPES:
        for name in ("amount", "currency"):
            if not given(flat, name):
                yield name, f"is required for paymentType {kind}"
    if given(flat, "amount") != given(flat, "currency") and kind not in MONEY_TYPES:
        yield (
            ("currency" if given(flat, "amount") else "amount"),
            "amount and currency go together",
        )
    if kind == PaymentType.RV:
        source = flat.get("transactionSource")
        if source not in TransactionSource.values:
            yield (
                "transactionSource",
                ("is required for paymentType RV: one of " + ", ".join(TransactionSource.values)),
            )
        if source == TransactionSource.PARTIAL and not given(flat, "amount"):
            yield "amount", "is required for a PARTIAL reversal"
    if kind == PaymentType.PR and not given(flat, "pos.terminalId"):
        yield "pos.terminalId", "is required for paymentType PR (a POS refund)"
    checkout = flat.get("checkoutType")
    if checkout and {"AUTHORIZE": "PA", "PURCHASE": "DB"}[checkout] != kind:
        yield "checkoutType", f"{checkout} does not match paymentType {kind}"
    if given(flat, "validityPeriod") and kind != PaymentType.PA:
        yield "validityPeriod", "applies to paymentType PA only"


def positive_amount_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """DB, PA, CD, CP, RF, PR and a reversal with an amount move money: 0.00 moves none."""
    kind = flat.get("paymentType")
    if kind == PaymentType.CV or not given(flat, "amount"):
        return
    if flat["amount"] == 0:
        yield "amount", f"must be greater than 0.00 for paymentType {kind}"


# What every table that takes an amount checks of it (payments, stored-card payments, checkouts).
amount_rules = [
    positive_amount_rule,
    fits_currency("amount", "currency"),
    fits_currency("taxAmount", "currency"),
    not_above("taxAmount", "amount"),
]


def brand_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    number, brand = flat.get("card.number"), flat.get("paymentBrand")
    if number and not brand and not detect_brand(number):
        yield "paymentBrand", "is required: the card number's brand cannot be detected"
    if number and brand and detect_brand(number) and detect_brand(number) != brand:
        yield "paymentBrand", f"does not match the card number ({detect_brand(number)})"


# The data groups a payment may carry, each with its rules and limits.
GROUPS = (
    MERCHANT_OVERRIDE_GROUP
    + CUSTOMER_GROUP
    + RISK_GROUP
    + BILLING_GROUP
    + SHIPPING_GROUP
    + ORDER_GROUP
    + AIRLINE_GROUP
    + CART_GROUP
    + CUSTOM_PARAMETERS_GROUP
)

PAYMENT = (
    Table(PAYMENT_FIELDS, rules=[type_rules, *amount_rules, brand_rule])
    + GROUPS
    + THREEDS_GROUP
    + STANDING_INSTRUCTION_GROUP
)

PAYMENT_INQUIRY = Table(
    [
        ENTITY_ID,
        ENTITY_TYPE,
        F("merchantTransactionId", MTID, OPT),
        F("pos.terminalId", AN(8, pattern=r"[A-Za-z0-9_]+"), OPT),
    ]
)


def payment_rows(*names: str, mandatory: Iterable[str] = ()) -> list[F]:
    """Rows of the payment table (data groups and 3-D Secure rows included) by name, for the
    tables of other paths that take part of a payment; those in `mandatory` made Mandatory."""
    required = set(mandatory)
    rows = [PAYMENT.by_name[name] for name in names]
    return [replace(row, req=MANDATORY) if row.name in required else row for row in rows]
