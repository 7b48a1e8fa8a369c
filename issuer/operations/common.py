"""What the catalogue groups share: the rows naming a card, an amount, a requestor's
reference; finding the requestor's card and checking its product's letter; rendering a card."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils import timezone

from core.fields import AN, Amount, Choice, Country, Currency, Month, N, Year
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, fits_currency, given, together

from ..cards import money, services
from ..cards.models import Card, CardTransaction
from .fields import TRANSACTION_ID, CardReference
from .registry import Call

CARD_REFERENCE = F(
    "cardReference",
    CardReference(),
    MANDATORY,
    meaning="the card (CardApplication's answer)",
    secret=True,  # a card number sent by mistake is never echoed
)
REQUESTOR_REFERENCE = F(
    "requestorReference",
    TRANSACTION_ID,
    MANDATORY,
    meaning="unique per requestor: the same reference and body answer the stored answer",
)
AMOUNT = F("amount", Amount(), MANDATORY, meaning="e.g. 10.00")
CURRENCY = F("currency", Currency(), MANDATORY, meaning="ISO 4217, the account's")
ORIGINAL = F(
    "originalTransactionId",
    AN(
        32,
        pattern=r"txn_[0-9a-f]{24}",
        what="a transactionId",
        example="txn_0f1e2d3c4b5a69788796a5b4",
    ),
    MANDATORY,
    meaning="the transactionId of the operation it refers to",
)
PIN = N(12, min=4)
SECURITY_CODE = F(
    "cvv2", N(3, min=3), OPTIONAL, secret=True, meaning="CVV2 or a current dynamic CVV"
)
EXPIRY_MONTH = F(
    "expiryMonth",
    Month(),
    OPTIONAL,
    meaning="MM, with expiryYear: checked against the card's",
)
EXPIRY_YEAR = F("expiryYear", Year(), OPTIONAL, meaning="YYYY, with expiryMonth")
EXPIRY_RULES = [together("expiryMonth", "expiryYear")]


def positive_amount(flat: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    if given(flat, "amount") and flat["amount"] <= 0:
        yield "amount", "must be more than 0"


# The amount holds no fraction its currency does not have (250.50 is no JPY amount), as the
# acquirer's payments are checked.
amount_fits = fits_currency("amount", "currency")
AMOUNT_RULES = [positive_amount, amount_fits]


MERCHANT = [
    F("merchantName", AN(100), OPTIONAL),
    F("merchantCountry", Country(), OPTIONAL, meaning="ISO 3166 alpha-2: domestic or overseas"),
    F("mcc", N(4, min=4), OPTIONAL, meaning="merchant category code"),
]
CHANNEL = Choice(("ECOMMERCE", "POS"))
ADDRESS = [
    F("line1", AN(100)),
    F("line2", AN(100)),
    F("city", AN(50)),
    F("postcode", AN(16)),
    F("country", Country()),
]


ADDRESS_NEEDED = ("line1", "city", "country")  # a delivery address has at least these


def address_rows(prefix: str, needed_for: str = "") -> list[F]:
    """The address rows; `needed_for` names when line1, city and country are required."""
    return [
        F(
            f"{prefix}.{row.name}",
            row.type,
            OPTIONAL,
            meaning=f"required {needed_for}" if needed_for and row.name in ADDRESS_NEEDED else "",
        )
        for row in ADDRESS
    ]


def address_of(fields: dict[str, Any], prefix: str) -> services.Address:
    return services.Address(*(str(fields.get(f"{prefix}.{row.name}") or "") for row in ADDRESS))


def card_for(call: Call, name: str = "cardReference") -> Card:
    """The requestor's card named by `name`, once its product runs the operation."""
    operation = call.entry.path if call.entry is not None else ""
    card = services.card_of(
        client_id=call.client_id, reference=call.fields[name], operation=operation
    )
    if call.entry is not None:
        services.require_letter(product=card.product, entry=call.entry, card=card)
    return card


def card_by_reference_or_number(call: Call) -> Card:
    """The requestor's card of a CARD_BY_REFERENCE_OR_NUMBER request: named by cardReference, or
    its own card with that cardNumber; once its product runs the operation."""
    if not call.fields.get("cardNumber"):
        return card_for(call)
    card = services.card_of_number(client_id=call.client_id, number=call.fields["cardNumber"])
    if call.entry is not None:
        services.require_letter(product=card.product, entry=call.entry)
    return card


def _one_card(flat: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    sent = [name for name in ("cardReference", "cardNumber") if given(flat, name)]
    if not sent:
        yield "cardReference", "is required (or the card's cardNumber)"
    elif len(sent) == 2:
        yield "cardNumber", "is sent instead of cardReference, not with it"


# The card by its reference or, for a requestor that knows only the number (a card it has just
# been handed), by its number: one of the two. The number is looked up by its keyed fingerprint
# among the requestor's own cards only, never echoed (a secret row) and never answered: the
# answer names the card by cardReference and maskedCardNumber. It is one of the two fields a
# card number may be sent in (registry.CARD_NUMBER_FIELDS).
CARD_BY_REFERENCE_OR_NUMBER = Table(
    [
        F(
            "cardReference",
            CardReference(),
            CONDITIONAL,
            meaning="the card (CardApplication's answer); or cardNumber",
            secret=True,
        ),
        F(
            "cardNumber",
            N(19, min=12),
            CONDITIONAL,
            meaning="instead of cardReference: the number of one of the requestor's own cards "
            "(another requestor's answers like an unknown one); the answer names the card by "
            "cardReference",
            secret=True,
        ),
    ],
    rules=[_one_card],
)


def original_for(call: Call) -> CardTransaction:
    original = money.original_of(
        client_id=call.client_id, transaction_id=call.fields["originalTransactionId"]
    )
    if call.entry is not None:
        services.require_letter(product=original.card.product, entry=call.entry)
    return original


def money_request(call: Call) -> money.Request:
    return money.Request(
        client_id=call.client_id,
        requestor_reference=call.fields["requestorReference"],
        digest=money.request_hash(fields=call.fields),
        description=str(call.fields.get("description") or ""),
    )


def where(call: Call, channel: str = "") -> money.Where:
    f = call.fields
    return money.Where(
        channel=channel or str(f.get("channel") or ""),
        country=str(f.get("merchantCountry") or ""),
        merchant_name=str(f.get("merchantName") or ""),
        mcc=str(f.get("mcc") or ""),
    )


def expiry_of(fields: dict[str, Any]) -> tuple[int, int] | None:
    if fields.get("expiryMonth") and fields.get("expiryYear"):
        return int(fields["expiryMonth"]), int(fields["expiryYear"])
    return None


def items(fields: dict[str, Any], group: str) -> list[dict[str, Any]]:
    """The items of a repeated group (`limits[0].region` ...), in index order, by member."""
    found: dict[int, dict[str, Any]] = {}
    pattern = re.compile(rf"{re.escape(group)}\[(\d+)\]\.(\w+)")
    for name, value in fields.items():
        match = pattern.fullmatch(name)
        if match:
            found.setdefault(int(match[1]), {})[match[2]] = value
    return [found[i] for i in sorted(found)]


def stamp(moment: Any) -> str:
    return timezone.localtime(moment).isoformat() if moment else ""


def card_fields(card: Card) -> dict[str, Any]:
    return {
        "cardReference": card.reference,
        "maskedCardNumber": card.masked,
        "expiryDate": card.expiry,
        "cardForm": card.form,
        "status": card.status,
        "statusReason": card.status_reason,
        "productCode": card.product.code,
        "productType": card.product.kind,
        "brand": card.product.brand,
        "embossedName": card.embossed_name,
        "customerReference": card.customer.reference,
        "accountReference": card.account.reference,
        "secureChannel": card.secure_channel or "NONE",
        "pinSet": bool(card.pin_hash),
        "pinBlocked": card.pin_blocked,
        **({"replacedBy": card.replaced_by.reference} if card.replaced_by is not None else {}),
    }


def customer_fields(customer: Any) -> dict[str, Any]:
    return {
        "customerReference": customer.reference,
        "firstName": customer.first_name,
        "lastName": customer.last_name,
        "email": customer.email,
        "mobile": customer.mobile,
        "address": {
            "line1": customer.address_line1,
            "line2": customer.address_line2,
            "city": customer.city,
            "postcode": customer.postcode,
            "country": customer.country,
        },
        "kycStatus": customer.kyc_status,
    }
