"""POST /v3/exchangerate/create and /v3/exchangerate/update (participators), and
GET /v3/exchangerate/Inquiry (the rate in force on a date)."""

from typing import Any

from core import results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.schema import body_example

from .. import selectors, services
from .tables import RATE_ANSWER, RATE_INQUIRY, RATE_SET

BANK = {"entityId": "BANK0001", "entityType": "PARTICIPATOR", "merchantTransactionId": None}
EXAMPLE = {
    **BANK,
    "exchangeRate.currency": "USD",
    "exchangeRate.effectiveDate": "20261124",
    "exchangeRate.buyingRate": "0.91250",
    "exchangeRate.sellingRate": "0.93750",
}

FUTURE = {**EXAMPLE, "exchangeRate.effectiveDate": "20991231"}


class RateCreateView(SpecView):
    table = RATE_SET
    operation = "exchangerate.create"
    summary = "Set a currency's exchange rate from an effective date on"
    answer_table = RATE_ANSWER
    examples = {"USD": body_example(RATE_SET, EXAMPLE)}
    service = staticmethod(services.rate_create)

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        rate = self.service(
            currency=flat["exchangeRate.currency"],
            effective_date=flat["exchangeRate.effectiveDate"],
            buying=flat["exchangeRate.buyingRate"],
            selling=flat["exchangeRate.sellingRate"],
            actor=principal.actor,
        )
        return results.REQUEST_SUCCEEDED, RATE_ANSWER.render(rate)


class RateUpdateView(RateCreateView):
    operation = "exchangerate.update"
    summary = "Replace an exchange rate whose effective date has not come"
    examples = {"USD": body_example(RATE_SET, FUTURE)}
    service = staticmethod(services.rate_update)


class RateInquiryView(SpecInquiryView):
    table = RATE_INQUIRY
    operation = "exchangerate.inquiry"
    entity_types = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})
    summary = "The exchange rate in force on a date"
    answer_table = RATE_ANSWER

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        rate = selectors.rate_in_force(
            currency=flat["exchangeRate.currency"], on=flat["exchangeRate.effectiveDate"]
        )
        return results.REQUEST_SUCCEEDED, RATE_ANSWER.render(rate)
