"""The Customer group: CardInfoInquiry, AccountInfoInquiry, InfoUpdate (docs/issuer.md)."""

from core import results
from core.fields import AN, Choice, Email
from core.tables import MANDATORY, OPTIONAL, F, Table

from ..cards import money, services
from ..cards.models import KycStatus
from ..cards.services import CUSTOMER_UPDATABLE
from .common import (
    CARD_BY_REFERENCE_OR_NUMBER,
    CARD_REFERENCE,
    address_rows,
    card_by_reference_or_number,
    card_fields,
    card_for,
    customer_fields,
)
from .registry import Answer, Call, group

customer = group("customer")

ACCOUNT_REFERENCE = F(
    "accountReference",
    AN(32, example="acc_0f1e2d3c4b5a69788796a5b4"),
    MANDATORY,
    meaning="the account (CardApplication's accountReference)",
)


@customer(
    "CardInfoInquiry",
    CARD_BY_REFERENCE_OR_NUMBER,
    "the card (by cardReference or its number) and its cardholder, with the card's status",
)
def card_info(call: Call) -> Answer:
    card = card_by_reference_or_number(call)
    fields = {**card_fields(card), "customer": customer_fields(card.customer)}
    return results.REQUEST_SUCCEEDED, fields, None


def account_fields(account):  # type: ignore[no-untyped-def]
    first = account.cards.order_by("pk").first()
    fields = {
        "accountReference": account.reference,
        "status": account.status,
        "productCode": account.product.code,
        "customerReference": account.customer.reference,
        "cards": [
            {"cardReference": c.reference, "maskedCardNumber": c.masked, "status": c.status}
            for c in account.cards.order_by("pk")
        ],
    }
    if account.iban:
        fields["iban"] = account.iban
    if first is not None:
        fields.update(money.balances(card=first))
    return fields


@customer(
    "AccountInfoInquiry",
    Table([ACCOUNT_REFERENCE]),
    "the account: status, balances, its cards",
)
def account_info(call: Call) -> Answer:
    account = services.account_of(
        client_id=call.client_id, reference=call.fields["accountReference"]
    )
    assert call.entry is not None
    services.require_letter(product=account.product, entry=call.entry)
    return results.REQUEST_SUCCEEDED, account_fields(account), None


INFO_UPDATE = Table(
    [
        CARD_REFERENCE,
        F("email", Email(), OPTIONAL, meaning="blank clears it"),
        F(
            "mobile",
            AN(20, pattern=r"\+?[0-9]{6,19}", what="digits, + first", example="+4915112345678"),
            OPTIONAL,
        ),
        *address_rows("address"),
        F(
            "kycStatus",
            Choice(tuple(KycStatus.values)),
            OPTIONAL,
            meaning="the requestor's KYC outcome (Activation needs VERIFIED)",
        ),
    ]
)
_COLUMNS = {
    "email": "email",
    "mobile": "mobile",
    "address.line1": "address_line1",
    "address.line2": "address_line2",
    "address.city": "city",
    "address.postcode": "postcode",
    "address.country": "country",
    "kycStatus": "kyc_status",
}
assert set(_COLUMNS.values()) == set(CUSTOMER_UPDATABLE)


@customer("InfoUpdate", INFO_UPDATE, "the cardholder's mobile, e-mail, address and KYC status")
def info_update(call: Call) -> Answer:
    card = card_for(call)
    changes = {
        column: call.fields[name] for name, column in _COLUMNS.items() if name in call.fields
    }
    updated = services.customer_update(customer=card.customer, changes=changes)
    return results.REQUEST_SUCCEEDED, customer_fields(updated), None
