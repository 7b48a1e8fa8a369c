"""The on-us connector: payments on cards of the platform's own issuer BIN ranges go to the
issuer's ledger (issuer.cards.onus) instead of a network, so acquiring and issuing form one
closed loop (DESIGN, "on-us connector").

It is local: the engine asks it inside the finalize transaction, under the payment's locks, so
the issuer's posting and the acquirer's totals commit together or not at all. The issuer's
declines are mapped to the result code a merchant gets from a network for the same reason.
"""

from dataclasses import replace

from django.conf import settings

from core.results import Result
from issuer.cards import onus

from .. import results as payment_results
from .base import AuthRequest, NetworkAnswer, ReferenceRequest
from .simulator import _auth_code, _ids

NAME = "on-us"
ECOMMERCE_ENTRY_MODES = ("81", "01")  # e-commerce, mail or telephone order: card not present

# The issuer's decline -> what a merchant gets from a network (and the ISO 8583 response code).
DECLINES: dict[str, tuple[Result | None, str]] = {
    "800.100.155": (payment_results.DECLINED_INSUFFICIENT_FUNDS, "51"),
    "800.100.157": (payment_results.CARD_EXPIRED, "54"),
    "100.100.610": (payment_results.DECLINED_INVALID_CVV, "N7"),
    "800.100.165": (None, "41"),  # lost card: the issuer's code is the network's
    "800.100.159": (None, "43"),  # stolen card
    "800.100.168": (None, "62"),  # restricted card (not active)
    "800.100.172": (None, "78"),  # account not active
    "800.100.162": (None, "61"),  # amount limit exceeded
    "800.100.163": (None, "65"),  # frequency limit exceeded
    "600.200.500": (payment_results.DECLINED_INVALID_CARD, "57"),  # not permitted to the card
    "600.200.510": (payment_results.DECLINED_INVALID_CARD, "57"),
}


def _answer(decision: onus.Decision, reference: str, kind: str) -> NetworkAnswer:
    """The issuer's decision as a network answer; the issuer took it, so it is the clearing
    institute (settings.ISSUER_NAME), not the network simulator."""
    ids = _ids(reference, kind)
    ids["network_reference"] = decision.transaction_id or ids["network_reference"]
    ids["clearing_institute"] = settings.ISSUER_NAME
    if decision.approved:
        return NetworkAnswer(
            decision.result,
            auth_code=_auth_code(reference),
            acquirer_response="00",
            **ids,
        )
    mapped, response = DECLINES.get(decision.result.code, (None, "05"))
    return NetworkAnswer(mapped or decision.result, acquirer_response=response, **ids)


class OnUsConnector:
    name = NAME
    remote = False
    timeout = 0.0

    def authorize(self, request: AuthRequest) -> NetworkAnswer:
        channel = "ECOMMERCE" if request.entry_mode in ECOMMERCE_ENTRY_MODES else "POS"
        decision = onus.authorize(
            onus.Authorization(
                payment_type=request.payment_type,
                reference=request.reference,
                number=request.pan,
                expiry_month=request.expiry_month,
                expiry_year=request.expiry_year,
                cvv=request.cvv,
                amount=request.amount or 0,  # type: ignore[arg-type]
                currency=request.currency,
                channel=channel,
                merchant_name=request.merchant_name,
                mcc=request.mcc,
                country=request.merchant_country,
                expires_at=request.expires_at,
                token=bool(request.scheme_token),
            )
        )
        answer = _answer(decision, request.reference, "auth")
        mismatch = decision.result.code == "100.100.610"
        cvv = ("N" if mismatch else "M") if request.cvv else "P"
        return replace(answer, cvv_response=cvv)

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        decision = onus.follow_up(
            payment_type=request.payment_type,
            reference=request.reference,
            original_reference=request.original_reference,
            amount=request.amount or 0,  # type: ignore[arg-type]
            currency=request.currency,
        )
        answer = _answer(decision, request.reference, "follow-up")
        if decision.approved:
            return replace(
                answer,
                auth_code=request.original_auth_code,
                retrieval_ref_no=request.original_retrieval_ref_no,
            )
        return answer

    def inquire(self, request: AuthRequest | ReferenceRequest) -> NetworkAnswer | None:
        """Local: every answer is written in the payment's own transaction, so a payment still
        IN_FLIGHT was never decided here; nothing to look up."""
        return None
