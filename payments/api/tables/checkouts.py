"""The request table of POST /pay/v3/checkouts: the payment a shopper will make on the
checkout page, without its card.

amount, currency, paymentType (PA or DB), merchantTransactionId (the payment's), shopperResultUrl
(where the shopper returns), createRegistration, the standing instruction of a cardholder-
initiated payment (the shopper is there: source CIT), and the payment's optional fields and
groups, from the payment table's rows.
"""

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from core.fields import Choice
from core.tables import Table, given

from ...registrations.tables import STANDING_INSTRUCTION_GROUP
from .addresses import BILLING_GROUP, SHIPPING_GROUP
from .cart import CART_GROUP, CUSTOM_PARAMETERS_GROUP
from .parties import CUSTOMER_GROUP
from .payment import PAYMENT, amount_rules, payment_rows

NAMES = (
    "entityId",
    "entityType",
    "merchantTransactionId",
    "merchant.id",
    "amount",
    "currency",
    "taxAmount",
    "descriptor",
    "merchantInvoiceId",
    "merchantMemo",
    "transactionCategory",
    "shopperResultUrl",
)


def checkout_rules(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    if given(flat, "standingInstruction.source") and flat["standingInstruction.source"] != "CIT":
        yield (
            "standingInstruction.source",
            "a checkout is paid by the shopper: CIT (merchant-initiated payments use the "
            "registrations path)",
        )


CHECKOUT_CREATE = (
    Table(
        [
            *payment_rows(*NAMES, mandatory=("amount", "currency", "shopperResultUrl")),
            replace(PAYMENT.by_name["paymentType"], type=Choice(("PA", "DB"))),
        ],
        rules=[
            checkout_rules,
            *amount_rules,
        ],
    )
    + CUSTOMER_GROUP
    + BILLING_GROUP
    + SHIPPING_GROUP
    + CART_GROUP
    + CUSTOM_PARAMETERS_GROUP
    + STANDING_INSTRUCTION_GROUP
)
