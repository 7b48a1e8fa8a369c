"""The request tables of the registrations paths (card on file), from the payment table's rows.

- POST /pay/v3/registrations: a card to store (no paymentType, no amount): verified as a
  zero-amount CV would be.
- POST /pay/v3/registrations/{id}/payments: a PA or DB with the registration's card: amount,
  currency, the standing instruction (its source is required: a stored card is used by the
  cardholder, CIT, or by the merchant, MIT), card.cvv only from a present cardholder, and the
  payment's data groups; never card data.
"""

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from stdnum import luhn

from core.fields import Choice
from core.tables import Table, given

from ...registrations.tables import STANDING_INSTRUCTION
from ...threeds.tables import THREEDS_GROUP
from .addresses import BILLING_GROUP
from .cart import CUSTOM_PARAMETERS_GROUP
from .parties import CUSTOMER_GROUP
from .payment import GROUPS, PAYMENT, amount_rules, brand_rule, payment_rows

CARD_TO_STORE = ("card.number", "card.expiryMonth", "card.expiryYear")


def luhn_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    if given(flat, "card.number") and not luhn.is_valid(flat["card.number"]):
        yield "card.number", "is not a valid card number (Luhn check failed)"


REGISTRATION_CREATE = (
    Table(
        payment_rows(
            "entityId",
            "entityType",
            "merchantTransactionId",
            "merchant.id",
            "paymentBrand",
            "card.number",
            "card.holder",
            "card.expiryMonth",
            "card.expiryYear",
            "card.cvv",
            mandatory=CARD_TO_STORE,
        ),
        rules=[luhn_rule, brand_rule],
    )
    + CUSTOMER_GROUP
    + BILLING_GROUP
    + CUSTOM_PARAMETERS_GROUP
)


def stored_card_rules(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    if not given(flat, "standingInstruction.source"):
        yield (
            "standingInstruction.source",
            "is required with a stored card: CIT (the cardholder pays) or MIT (the merchant)",
        )
    if given(flat, "validityPeriod") and flat.get("paymentType") != "PA":
        yield "validityPeriod", "applies to paymentType PA only"


REGISTRATION_PAYMENT = (
    Table(
        [
            *payment_rows(
                "entityId",
                "entityType",
                "merchantTransactionId",
                "merchant.id",
                "amount",
                "currency",
                "taxAmount",
                "card.cvv",
                "descriptor",
                "merchantInvoiceId",
                "merchantMemo",
                "transactionCategory",
                "pos.terminalId",
                "validityPeriod",
                mandatory=("amount", "currency"),
            ),
            replace(PAYMENT.by_name["paymentType"], type=Choice(("PA", "DB"))),
        ],
        rules=[
            stored_card_rules,
            *amount_rules,
        ],
    )
    + GROUPS
    + THREEDS_GROUP
    + STANDING_INSTRUCTION
)

__all__ = ["REGISTRATION_CREATE", "REGISTRATION_PAYMENT"]
