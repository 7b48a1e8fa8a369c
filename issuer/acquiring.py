"""The issuer's side of the acquirer's port (payments.connectors.onus_port): the platform's own
acquirer sees the issuer only through this adapter, which IssuerConfig.ready registers when
payments is installed (as it registers tokenization's token decider).

It answers in the networks' language: an approval is ISO 8583 response code 00 with the issuer's
transaction id; a decline is the response code a network gives for the issuer's reason (the table
below) with the reason in words. The acquirer maps the code to a merchant's result code itself
(payments/connectors/responses.py) and never reads the issuer's result codes.
"""

from decimal import Decimal

from payments.connectors import onus_port

from . import results
from .cards import onus

APPROVED, DO_NOT_HONOUR = "00", "05"

# The issuer's decline -> the ISO 8583 response code; any other decline is 05 (do not honour).
RESPONSE_CODES: dict[str, str] = {
    results.INSUFFICIENT_FUNDS.code: "51",
    results.CARD_EXPIRED.code: "54",
    results.SECURITY_CODE_MISMATCH.code: "N7",
    results.CARD_LOST.code: "41",
    results.CARD_STOLEN.code: "43",
    results.CARD_NOT_ACTIVE.code: "62",  # restricted card: not ACTIVE, or not the issuer's
    results.ACCOUNT_NOT_ACTIVE.code: "78",
    results.LIMIT_EXCEEDED.code: "61",
    results.COUNT_LIMIT_EXCEEDED.code: "65",
    results.NOT_APPLICABLE.code: "57",  # not permitted to the card's product
    results.NOT_ENABLED.code: "57",
    results.TRANSACTION_NOT_FOUND.code: "25",  # a follow-up: the original is not found
    results.CANNOT_REFUND.code: "12",  # invalid transaction
    results.CANNOT_REVERSE.code: "12",
    results.HOLD_NOT_OPEN.code: "12",
    results.DUPLICATE_REFERENCE.code: "94",  # duplicate transmission
}

# The cardholder's 3-D Secure channel, as the port names it.
METHODS = {onus.OOB: onus_port.OOB, onus.OTP: onus_port.OTP, "": ""}


def decision_for(decision: onus.Decision) -> onus_port.IssuerDecision:
    """The issuer's decision in the port's terms: a response code, the reason in words, the
    issuer's transaction id."""
    if decision.approved:
        code = APPROVED
    else:
        code = RESPONSE_CODES.get(decision.result.code, DO_NOT_HONOUR)
    return onus_port.IssuerDecision(code, decision.result.description, decision.transaction_id)


class AcquirerPort:
    """payments.connectors.onus_port.OnUsIssuer over issuer.cards.onus."""

    # --- the ledger ---------------------------------------------------------------------------

    def owns(self, fingerprint: str) -> bool:
        return onus.is_on_us(fingerprint)

    def authorize(self, request: onus_port.LedgerAuthorization) -> onus_port.IssuerDecision:
        decision = onus.authorize(
            onus.Authorization(
                payment_type=request.payment_type,
                reference=request.reference,
                number=request.number,
                expiry_month=request.expiry_month,
                expiry_year=request.expiry_year,
                cvv=request.cvv,
                amount=request.amount,
                currency=request.currency,
                channel=request.channel,
                merchant_name=request.merchant_name,
                mcc=request.mcc,
                country=request.country,
                expires_at=request.expires_at,
                token=request.token,
            )
        )
        return decision_for(decision)

    def follow_up(self, request: onus_port.LedgerFollowUp) -> onus_port.IssuerDecision:
        decision = onus.follow_up(
            payment_type=request.payment_type,
            reference=request.reference,
            original_reference=request.original_reference,
            amount=request.amount,
            currency=request.currency,
        )
        return decision_for(decision)

    # --- the local access control (3-D Secure) ------------------------------------------------

    def method(self, number: str) -> str | None:
        method = onus.challenge_method(number)
        return None if method is None else METHODS[method]

    def oob_start(
        self,
        *,
        number: str,
        transaction_id: str,
        amount: Decimal,
        currency: str,
        merchant_name: str,
    ) -> onus_port.Challenge:
        started = onus.oob_start(
            number=number,
            transaction_id=transaction_id,
            amount=amount,
            currency=currency,
            merchant_name=merchant_name,
        )
        return onus_port.Challenge(started.reference, started.secret, started.sent_to)

    def oob_outcome(self, reference: str) -> str:
        return onus.oob_outcome(reference)

    def otp_send(self, *, number: str, transaction_id: str) -> onus_port.Challenge:
        sent = onus.otp_send(number=number, transaction_id=transaction_id)
        return onus_port.Challenge(sent.reference, sent.secret, sent.sent_to)

    def otp_verify(self, reference: str, code: str) -> onus_port.OtpCheck:
        check = onus.otp_check(reference, code)
        return onus_port.OtpCheck(check.verified, check.attempts_left, check.expired)
