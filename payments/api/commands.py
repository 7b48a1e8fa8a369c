"""A validated payment request (the payment table's flat values) turned into the typed values
the use cases take (payments.services.types). Nothing below this module reads a request."""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..registrations.instructions import standing_from
from ..services.types import Card, Details, Money, SchemeToken, ThreeDSRequest
from ..threeds.tables import cardholder_history
from .tables import PAYMENT

CARD_PREFIX = "card."
BROWSER_PREFIX = "customer.browser."
CUSTOM_PREFIX = "customParameters["

# Names that are columns of the payment (or card data): everything else is kept as its data.
NOT_STORED = (
    CARD_PREFIX,
    "entityId",
    "entityType",
    "merchantTransactionId",
    "paymentType",
    "amount",
    "currency",
    "merchant.id",
    "pos.terminalId",
    "originalTransactionId",
)


def card_source_from(flat: Mapping[str, Any]) -> Card | SchemeToken:
    """The card a PA, DB or CV pays with: a scheme token (card.token), or the card sent."""
    if flat.get("card.token"):
        return SchemeToken(flat["card.token"])
    return card_from(flat)


def card_from(flat: Mapping[str, Any]) -> Card:
    return Card(
        number=flat["card.number"],
        expiry_month=flat["card.expiryMonth"],
        expiry_year=flat["card.expiryYear"],
        holder=flat.get("card.holder", ""),
        cvv=flat.get("card.cvv", ""),
    )


def money_from(flat: Mapping[str, Any]) -> Money | None:
    """amount and currency, when sent (optional for CV and RV)."""
    amount = flat.get("amount")
    return Money(amount, flat["currency"]) if amount not in (None, "") else None


def money_of(flat: Mapping[str, Any]) -> Money:
    """amount and currency of a type the table requires them for."""
    money = money_from(flat)
    assert money is not None, "the payment table requires amount and currency here"
    return money


def details_from(flat: Mapping[str, Any]) -> Details:
    period = flat.get("validityPeriod")
    return Details(
        payment_brand=flat.get("paymentBrand", ""),
        tax_amount=flat.get("taxAmount") or None,
        descriptor=flat.get("descriptor", ""),
        transaction_source=flat.get("transactionSource", ""),
        transaction_category=flat.get("transactionCategory", ""),
        merchant_invoice_id=flat.get("merchantInvoiceId", ""),
        merchant_memo=flat.get("merchantMemo", ""),
        checkout_type=flat.get("checkoutType", ""),
        validity_period_ms=int(period) if period else None,
        data=stored_groups(flat),
        create_registration=flat.get("createRegistration") == "true",
        standing=standing_from(flat),
    )


def threeds_from(flat: Mapping[str, Any]) -> ThreeDSRequest:
    amount = flat.get("threeDSecure.amount")
    return ThreeDSRequest(
        indicator=flat.get("threeDSecure.indicator", ""),
        amount=Money(amount, flat["threeDSecure.currency"]) if amount else None,
        challenge_indicator=flat.get("threeDSecure.challengeIndicator") or "01",
        challenge_window=flat.get("customer.browser.challengeWindow") or "05",
        shopper_result_url=flat.get("shopperResultUrl", ""),
        browser={
            k[len(BROWSER_PREFIX) :]: v for k, v in flat.items() if k.startswith(BROWSER_PREFIX)
        },
        cardholder_history=cardholder_history(flat),
        flags={
            k[len(CUSTOM_PREFIX) : -1]: v for k, v in flat.items() if k.startswith(CUSTOM_PREFIX)
        },
    )


def stored_groups(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The request's data groups as the payment keeps them: JSON-ready, no card data, each value
    as the API shows it (its row's type formats it back), since answers echo them: a cardholder
    history date sent as 20240131 is kept and echoed as 20240131, not 2024-01-31."""
    return {
        name: _shown(name, value) for name, value in flat.items() if not name.startswith(NOT_STORED)
    }


def _shown(name: str, value: Any) -> Any:
    if isinstance(value, str):
        return value
    row = PAYMENT.match(name)
    if row is not None:
        return row.type.format(value)
    return str(value) if isinstance(value, Decimal) else value
