"""The on-us connector: payments on the platform's own issuer's cards go to the issuer's ledger
instead of a network, so acquiring and issuing form one closed loop (DESIGN, "on-us connector").

It sees the issuer only through its port (onus_port): the issuer decides and posts, and answers
an ISO 8583 response code, which becomes the merchant's result code through the one table of
responses.py, as a network's answer does.

It is local: the engine asks it inside the finalize transaction, under the payment's locks, so
the issuer's posting and the acquirer's totals commit together or not at all.
"""

from dataclasses import replace
from decimal import Decimal

from django.conf import settings

from .base import AuthRequest, NetworkAnswer, ReferenceRequest
from .ids import answer_ids, auth_code
from .onus_port import IssuerDecision, LedgerAuthorization, LedgerFollowUp, OnUsIssuer
from .responses import result_for

NAME = "on-us"
ECOMMERCE_ENTRY_MODES = ("81", "01")  # e-commerce, mail or telephone order: card not present
CVV_MISMATCH = "N7"


def _answer(
    decision: IssuerDecision, request: AuthRequest | ReferenceRequest, kind: str
) -> NetworkAnswer:
    """The issuer's decision as a network answer; the issuer took it, so it is the clearing
    institute (settings.ISSUER_NAME), not the network simulator."""
    reference = request.reference
    ids = answer_ids(reference, kind, request.stan, request.retrieval_ref_no)
    ids["network_reference"] = decision.transaction_id or ids["network_reference"]
    ids["clearing_institute"] = settings.ISSUER_NAME
    code = decision.response_code
    if decision.approved:
        return NetworkAnswer(
            result_for(code), auth_code=auth_code(reference), acquirer_response=code, **ids
        )
    return NetworkAnswer(result_for(code), acquirer_response=code, **ids)


class OnUsConnector:
    name = NAME
    remote = False
    timeout = 0.0

    def __init__(self, issuer: OnUsIssuer) -> None:
        self.issuer = issuer

    def authorize(self, request: AuthRequest) -> NetworkAnswer:
        channel = "ECOMMERCE" if request.entry_mode in ECOMMERCE_ENTRY_MODES else "POS"
        decision = self.issuer.authorize(
            LedgerAuthorization(
                payment_type=request.payment_type,
                reference=request.reference,
                number=request.pan,
                expiry_month=request.expiry_month,
                expiry_year=request.expiry_year,
                cvv=request.cvv,
                amount=request.amount or Decimal("0"),
                currency=request.currency,
                channel=channel,
                merchant_name=request.merchant_name,
                mcc=request.mcc,
                country=request.merchant_country,
                expires_at=request.expires_at,
                token=bool(request.scheme_token),
            )
        )
        answer = _answer(decision, request, "auth")
        mismatch = decision.response_code == CVV_MISMATCH
        cvv = ("N" if mismatch else "M") if request.cvv else "P"
        return replace(answer, cvv_response=cvv)

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        decision = self.issuer.follow_up(
            LedgerFollowUp(
                payment_type=request.payment_type,
                reference=request.reference,
                original_reference=request.original_reference,
                amount=request.amount or Decimal("0"),
                currency=request.currency,
            )
        )
        answer = _answer(decision, request, "follow-up")
        if decision.approved:
            return replace(
                answer,
                auth_code=request.original_auth_code,
                retrieval_ref_no=request.original_retrieval_ref_no or request.retrieval_ref_no,
            )
        return answer

    def inquire(self, request: AuthRequest | ReferenceRequest) -> NetworkAnswer | None:
        """Local: every answer is written in the payment's own transaction, so a payment still
        IN_FLIGHT was never decided here; nothing to look up."""
        return None
