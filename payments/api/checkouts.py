"""Hosted checkout endpoints: POST /pay/v3/checkouts (the merchant's server creates one) and
GET /pay/v3/checkouts/{id}/payment (the merchant reads the payment the shopper made)."""

from decimal import Decimal
from typing import Any

from django.utils import timezone

from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.envelope import envelope
from core.errors import ParameterError
from core.fields import AN, Choice, Timestamp
from core.schema import answer, link
from core.tables import F, Table
from core.tables.common import ENTITY_ID, ENTITY_TYPE
from merchants.models import ThreeDSMode

from .. import results
from ..checkouts import selectors, services
from ..checkouts.models import Checkout, CheckoutStatus
from ..render import payment_body
from ..services.types import Money
from .examples import MERCHANT
from .tables.answer import PAYMENT_DOCUMENTED
from .tables.checkouts import CHECKOUT_CREATE
from .views import ANYONE, caller_for, checked_path_id

CHECKOUT_ID = AN(
    32,
    min=32,
    pattern=r"[0-9a-f]{32}",
    what="a checkout id",
    example="0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f",
)
# Kept by the checkout as its own columns; the other fields are the payment's, kept as text.
OWN = frozenset(
    {
        "entityId",
        "entityType",
        "merchantTransactionId",
        "merchant.id",
        "paymentType",
        "amount",
        "currency",
        "shopperResultUrl",
        "createRegistration",
    }
)
# What a payment going through 3-D Secure needs that the page does not ask the shopper.
THREEDS_NEEDS = (
    "billing.street1",
    "billing.city",
    "billing.postcode",
    "billing.country",
    "customer.email",
)

CHECKOUT_ANSWER = Table(
    [
        F("paymentType", Choice(("PA", "DB"))),
        F("amount", PAYMENT_DOCUMENTED.by_name["amount"].type),
        F("currency", PAYMENT_DOCUMENTED.by_name["currency"].type),
        F("merchantTransactionId", AN(32), attr="merchant_transaction_id"),
        F("status", Choice(tuple(CheckoutStatus.values))),
        F("expiresAt", Timestamp()),
        F("redirect.url", AN(2048), meaning="the payment page: send the shopper's browser there"),
        F("redirect.method", Choice(("GET",))),
    ]
)


SHOWN = ("paymentType", "amount", "currency", "merchantTransactionId", "status", "expiresAt")


def checkout_view(checkout: Checkout, base_url: str) -> dict[str, Any]:
    flat = CHECKOUT_ANSWER.render(checkout, names=SHOWN)
    flat["redirect.url"] = f"{base_url.rstrip('/')}/checkout/{checkout.pk}"
    flat["redirect.method"] = "GET"
    return flat


def _text(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, Decimal) else str(value)


class CheckoutsView(SpecView):
    """POST /pay/v3/checkouts."""

    table = CHECKOUT_CREATE
    operation = "checkouts.create"
    entity_types = ANYONE
    summary = "Create a hosted checkout: a payment page of this platform for the shopper"
    answer_table = CHECKOUT_ANSWER
    examples = {
        "a debit": {
            **MERCHANT,
            "merchantTransactionId": "chk1".ljust(32, "0"),
            "paymentType": "DB",
            "amount": "49.90",
            "currency": "EUR",
            "shopperResultUrl": "https://shop.example.com/checkout-result",
            "customer.merchantCustomerId": "cust-0042",
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
            "customer.email": "jane@example.com",
        }
    }
    links = {
        "Payment": link(
            "checkouts_payment_get_path",
            "Read the payment the shopper made",
            parameters={"checkout_id": answer("id")},
        )
    }

    def _perform(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        caller = caller_for(principal, flat, self.request.build_absolute_uri("/"))
        if caller.merchant.threeds_mode == ThreeDSMode.MANDATORY:
            missing = [name for name in THREEDS_NEEDS if not flat.get(name)]
            if missing:
                raise ParameterError(
                    [
                        (name, None, "is required: this merchant's payments go through 3-D Secure")
                        for name in missing
                    ]
                )
        checkout = services.checkout_create(
            caller=caller,
            reference=flat["merchantTransactionId"],
            payment_type=flat["paymentType"],
            money=Money(flat["amount"], flat["currency"]),
            shopper_result_url=flat["shopperResultUrl"],
            create_registration=flat.get("createRegistration") == "true",
            merchant_customer_id=flat.get("customer.merchantCustomerId", ""),
            fields={k: _text(v) for k, v in flat.items() if k not in OWN and v != ""},
        )
        return envelope(
            results.CHECKOUT_CREATED,
            id=checkout.pk,
            data=checkout_view(checkout, caller.base_url),
        )


class CheckoutPaymentView(SpecInquiryView):
    """GET /pay/v3/checkouts/{id}/payment: the payment of a checkout, with its own id; while
    there is none, 000.200.102 (open) or 100.396.104 (expired)."""

    http_method_names = ["get"]
    table = Table([ENTITY_ID, ENTITY_TYPE])
    operation = "checkouts.payment"
    inquiry_operation = "checkouts.payment"
    entity_types = ANYONE
    summary = "Read the payment of a checkout (the resourcePath the shopper brings back)"
    inquiry_summary = summary
    path_parameters = {"checkout_id": CHECKOUT_ID}
    answer_table = PAYMENT_DOCUMENTED + CHECKOUT_ANSWER

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], checkout_id: str = "", **kw: Any
    ) -> dict[str, Any]:
        self.checkout_id = checkout_id
        return flat

    def _perform(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        checkout_id = checked_path_id(self.checkout_id, CHECKOUT_ID, "checkout")
        checkout = selectors.checkout_get(entity=principal.entity, checkout_id=checkout_id)
        base_url = self.request.build_absolute_uri("/")
        if checkout.payment is not None:
            return payment_body(checkout.payment, inquiry=True, base_url=base_url)
        expired = checkout.status == CheckoutStatus.EXPIRED or (
            checkout.status == CheckoutStatus.OPEN and checkout.expires_at <= timezone.now()
        )
        result = results.CHECKOUT_EXPIRED if expired else results.CHECKOUT_OPEN
        return envelope(result, id=checkout.pk, data=checkout_view(checkout, base_url))
