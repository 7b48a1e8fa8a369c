"""Registration endpoints (card on file): store a card, read or deregister it, pay with it.

POST /pay/v3/registrations (a stand-alone registration), GET and DELETE
/pay/v3/registrations/{id}, POST /pay/v3/registrations/{id}/payments (PA or DB with the stored
card). A registration is reached only through its merchant (or that merchant's channel): any
other entity gets 404 on every path.
"""

from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from core import cards, idempotency, results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.errors import ParameterError
from core.nesting import flatten
from core.parsers import nest_query
from core.schema import answer, link

from .. import services
from ..registrations import selectors
from ..registrations import services as registration_services
from ..registrations.models import Registration, RegistrationStatus
from ..registrations.tables import (
    INSTRUCTION_ANSWER,
    REGISTRATION_ANSWER,
    REGISTRATION_ID,
    REGISTRATION_INQUIRY,
)
from ..services.types import PaymentOutcome, StoredCard
from .commands import card_from, details_from, money_of, threeds_from
from .examples import CARD, MERCHANT
from .tables.answer import PAYMENT_DOCUMENTED
from .tables.registrations import REGISTRATION_CREATE, REGISTRATION_PAYMENT
from .views import ANYONE, PaymentsView, caller_for, check_authentication, checked_path_id

STORED = answer("registrationId")
REGISTRATION_LINKS = {
    "Inquiry": link(
        "registrations_inquiry_get_path", "Read it", parameters={"registration_id": STORED}
    ),
    "Pay": link(
        "registrations_pay_post_path",
        "Pay with it (PA or DB)",
        parameters={"registration_id": STORED},
    ),
    "Deregister": link(
        "registrations_deregister_delete_path",
        "Deregister it",
        parameters={"registration_id": STORED},
    ),
}


def registration_view(registration: Registration) -> dict[str, Any]:
    """A registration as the API shows it: the masked card, status, the standing instructions
    set up with it."""
    flat = REGISTRATION_ANSWER.render(registration)
    chains = [
        INSTRUCTION_ANSWER.render(chain) for chain in registration.standing_instructions.all()
    ]
    if chains:
        flat["standingInstructions"] = chains
    return flat


class RegistrationsView(SpecView):
    """POST /pay/v3/registrations: store a card (verified by the network first)."""

    table = REGISTRATION_CREATE
    operation = "registrations.create"
    entity_types = ANYONE
    summary = "Store a card (a stand-alone registration, verified as a zero-amount CV)"
    answer_table = PAYMENT_DOCUMENTED
    examples = {
        "a card": {
            **MERCHANT,
            "merchantTransactionId": "reg1".ljust(32, "0"),
            **CARD,
            "customer.merchantCustomerId": "cust-0042",
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
        }
    }
    links = REGISTRATION_LINKS

    def run(
        self, principal: Principal, flat: dict[str, Any], *, data: Mapping[str, Any], **kwargs: Any
    ) -> PaymentOutcome:
        caller = caller_for(principal, flat, self.request.build_absolute_uri("/"))
        return registration_services.registration_create(
            caller=caller,
            reference=flat["merchantTransactionId"],
            request_hash=idempotency.fingerprint(flat),
            card=card_from(flat),
            details=details_from(flat),
        )


class RegistrationView(SpecInquiryView):
    """GET /pay/v3/registrations/{id} (the masked card, status, standing instructions) and
    DELETE (deregistration: the stored card number is destroyed)."""

    http_method_names = ["get", "delete"]
    table = REGISTRATION_INQUIRY
    operation = "registrations.deregister"
    inquiry_operation = "registrations.inquiry"
    entity_types = ANYONE
    summary = "Deregister a stored card: its number is destroyed, the record kept"
    inquiry_summary = "Read a registration: the masked card, status, standing instructions"
    path_parameters = {"registration_id": REGISTRATION_ID}
    answer_table = REGISTRATION_ANSWER

    def delete(self, request: Request, **kwargs: Any) -> Response:
        return self.answer(request, nest_query(request.query_params), **kwargs)

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], registration_id: str = "", **kw: Any
    ) -> dict[str, Any]:
        self.registration_id = checked_path_id(registration_id, REGISTRATION_ID, "registration")
        return flat

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        if self.request.method == "DELETE":
            registration_services.registration_deregister(
                entity=principal.entity, registration_id=self.registration_id
            )
        registration = selectors.registration_get(
            entity=principal.entity, registration_id=self.registration_id
        )
        return results.REQUEST_SUCCEEDED, registration_view(registration)


class RegistrationPaymentsView(PaymentsView):
    """POST /pay/v3/registrations/{id}/payments: a PA or DB with the stored card."""

    http_method_names = ["post"]
    table = REGISTRATION_PAYMENT
    operation = "registrations.pay"
    summary = "Pay with a stored card: PA or DB, with its standing instruction (CIT or MIT)"
    path_parameters = {"registration_id": REGISTRATION_ID}

    def request_table(self, path: str) -> tuple[Any, dict[str, Any]]:
        return self.table, {}

    def request_examples(self, path: str) -> dict[str, dict[str, str]]:
        return {
            "an unscheduled MIT": {
                **MERCHANT,
                "merchantTransactionId": "mit1".ljust(32, "0"),
                "paymentType": "DB",
                "amount": "9.99",
                "currency": "EUR",
                "standingInstruction.source": "MIT",
                "standingInstruction.type": "UNSCHEDULED",
                "standingInstruction.initialTransactionId": "SIM123456789012345",
            }
        }

    def answer_links(self, path: str, method: str) -> dict[str, Any]:
        return super().answer_links("/pay/v3/payments", method)

    def post(self, request: Request, registration_id: str = "", **kwargs: Any) -> Response:  # type: ignore[override]
        registration_id = checked_path_id(registration_id, REGISTRATION_ID, "registration")
        data = request.data if isinstance(request.data, dict) else {}
        card_data = [
            (name, value, "is not taken with a stored card: the registration's card is used")
            for name, value in flatten(data)
            if name.startswith(("card.", "card[")) and name not in ("card.cvv", "card[cvv]")
        ]
        if card_data:
            raise ParameterError(card_data)
        return self.answer(request, data, registration_id=registration_id)

    def run(  # type: ignore[override]  # its path always names the registration
        self,
        principal: Principal,
        flat: dict[str, Any],
        *,
        data: Mapping[str, Any],
        registration_id: str,
        **kwargs: Any,
    ) -> PaymentOutcome:
        caller = caller_for(principal, flat, self.request.build_absolute_uri("/"))
        registration = selectors.registration_get(
            entity=principal.entity, registration_id=registration_id
        )
        number = ""
        if registration.status == RegistrationStatus.ACTIVE:
            number = cards.decrypt_pan(registration.pan_ciphertext)  # for the 3DS version only
        check_authentication(caller, flat, data, card_number=number)
        use_case = (
            services.payment_authorize if flat["paymentType"] == "PA" else services.payment_debit
        )
        return use_case(
            caller=caller,
            reference=flat["merchantTransactionId"],
            request_hash=idempotency.fingerprint(flat),
            money=money_of(flat),
            card=StoredCard(registration_id, cvv=flat.get("card.cvv", "")),
            details=details_from(flat),
            threeds=threeds_from(flat),
        )
