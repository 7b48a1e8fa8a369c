"""The Application group: CardApplication (docs/issuer.md)."""

from core import results
from core.fields import AN, Choice, Email
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given, requires

from ..cards import services
from ..cards.models import CardForm, KycStatus
from .common import address_of, address_rows, card_fields, customer_fields
from .fields import Iban
from .registry import Answer, Call, group

CUSTOMER = "customer"
NAME = AN(50, example="Erika")


def _customer_rule(flat):  # type: ignore[no-untyped-def]
    if given(flat, "customerReference"):
        for name in flat:
            if name.startswith(f"{CUSTOMER}."):
                yield name, "is not sent with customerReference (the customer exists)"
        return
    for name in ("customer.firstName", "customer.lastName"):
        if not given(flat, name):
            yield name, "is required for a new customer (or send customerReference)"


def _delivery_rule(flat):  # type: ignore[no-untyped-def]
    if flat.get("cardForm") == CardForm.PHYSICAL:
        for name in ("deliveryAddress.line1", "deliveryAddress.city", "deliveryAddress.country"):
            if not given(flat, name):
                yield name, "is required for a physical card (the delivery address)"


CARD_APPLICATION_TABLE = Table(
    [
        F("productCode", AN(32, example="DEMO-PREPAID-EUR"), MANDATORY, meaning="the card product"),
        F("cardForm", Choice(tuple(CardForm.values)), MANDATORY),
        F(
            "customerReference",
            AN(32, example="cus_0f1e2d3c4b5a69788796a5b4"),
            OPTIONAL,
            meaning="an existing customer of this requestor; otherwise customer.*",
        ),
        F("customer.firstName", NAME, CONDITIONAL, meaning="a new customer"),
        F("customer.lastName", AN(50, example="Mustermann"), CONDITIONAL),
        F("customer.email", Email(), OPTIONAL),
        F(
            "customer.mobile",
            AN(20, pattern=r"\+?[0-9]{6,19}", what="digits, + first", example="+4915112345678"),
            OPTIONAL,
        ),
        *address_rows("customer.address"),
        F(
            "customer.kycStatus",
            Choice(tuple(KycStatus.values)),
            OPTIONAL,
            meaning="the requestor's KYC outcome (default PENDING; Activation needs VERIFIED)",
        ),
        F("embossedName", AN(26), OPTIONAL, meaning="default: the customer's name"),
        F("iban", Iban(), CONDITIONAL, meaning="debit products: the linked bank account"),
        *address_rows("deliveryAddress", "for a physical card"),
    ],
    rules=[
        _customer_rule,
        _delivery_rule,
        requires("customer.address.line1", "customer.address.city"),
    ],
)
application = group("application")

_CUSTOMER_COLUMNS = {
    "customer.firstName": "first_name",
    "customer.lastName": "last_name",
    "customer.email": "email",
    "customer.mobile": "mobile",
    "customer.address.line1": "address_line1",
    "customer.address.line2": "address_line2",
    "customer.address.city": "city",
    "customer.address.postcode": "postcode",
    "customer.address.country": "country",
    "customer.kycStatus": "kyc_status",
}


@application("CardApplication", CARD_APPLICATION_TABLE, "issue a card (INACTIVE until Activation)")
def card_application(call: Call) -> Answer:
    f = call.fields
    customer = None
    if f.get("customerReference"):
        customer = services.customer_of(client_id=call.client_id, reference=f["customerReference"])
    product = services.product_named(code=f["productCode"])
    assert call.entry is not None
    services.require_letter(product=product, entry=call.entry)
    card = services.card_apply(
        client_id=call.client_id,
        product_code=f["productCode"],
        customer=customer,
        customer_fields={
            column: f[name] for name, column in _CUSTOMER_COLUMNS.items() if f.get(name)
        },
        form=f["cardForm"],
        delivery=address_of(f, "deliveryAddress"),
        embossed_name=f.get("embossedName") or "",
        iban=f.get("iban") or "",
        actor=call.actor,
    )
    fields = {**card_fields(card), "customer": customer_fields(card.customer)}
    return results.REQUEST_SUCCEEDED, fields, card.reference
