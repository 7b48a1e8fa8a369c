"""The acquirer's side of the closed loop (issue 15): what the platform's own acquirer asks the
issuer for a payment on one of its cards. The acquirer reaches these only through its port
(issuer/acquiring.py implements payments.connectors.onus_port), inside the acquirer's finalize
transaction, so the issuer's ledger and the acquirer's totals commit together, or neither does.

Every call is a Transaction-group service (issuer.cards.money) on behalf of the requestor
`ACQUIRER`, with the payment's id as its requestorReference: asked twice (a replay, the
janitor), it answers the stored outcome and moves nothing again.

| the acquirer's payment | the issuer |
|---|---|
| PA | BlockFund: a hold (counted by the card's limits), until the PA's validity ends |
| CP | the hold shrinks by the amount, which is posted |
| DB | Purchase: posted at once |
| CD | a credit from settlement |
| CV | Verification: status, expiry, CVV2 |
| RV of a PA | UnblockFund: the hold is released |
| RV of a DB or CP | Reversal: the posting undone |
| RF, PR | Refund of the DB or CP |
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.urls import reverse

from core import results as core_results
from core.errors import ApplicationError

from .. import results
from .. import services as authentication
from ..models import OOBStatus
from . import money
from .models import Card, CardTransaction, TransactionType
from .selectors import card_by_number, card_known

ACQUIRER = "acquirer"  # the issuer transactions' client_id for the platform's own acquirer


@dataclass(frozen=True)
class Decision:
    """The issuer's outcome: its result, and the issuer transaction (None when refused before
    one was written)."""

    result: core_results.Result
    transaction_id: str = ""

    @property
    def approved(self) -> bool:
        return self.result.is_success


def is_on_us(fingerprint: str) -> bool:
    """Whether a card number (by its fingerprint) is one of the issuer's cards."""
    return card_known(fingerprint=fingerprint)


def _request(reference: str, *parts: object) -> money.Request:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return money.Request(client_id=ACQUIRER, requestor_reference=reference, digest=digest)


def _decision(answer: money.Answer) -> Decision:
    result, fields, transaction_id = answer
    return Decision(result, str(fields.get("transactionId") or transaction_id or ""))


def _refused(exc: ApplicationError) -> Decision:
    return Decision(exc.result)


@dataclass(frozen=True)
class Authorization:
    """An acquirer's PA, DB, CD or CV on an on-us card."""

    payment_type: str
    reference: str  # the payment's id
    number: str
    expiry_month: str
    expiry_year: str
    cvv: str
    amount: Decimal
    currency: str
    channel: str  # ECOMMERCE or POS
    merchant_name: str
    mcc: str
    country: str
    expires_at: datetime | None = None  # a PA's validity end
    token: bool = False  # paid with a scheme token: the expiry sent is the token's

    def __repr__(self) -> str:
        return f"Authorization({self.payment_type} {self.reference})"


def authorize(request: Authorization) -> Decision:
    card = card_by_number(number=request.number)
    if card is None:
        return Decision(results.CARD_NOT_ACTIVE)
    where = money.Where(
        channel=request.channel,
        country=request.country,
        merchant_name=request.merchant_name,
        mcc=request.mcc,
    )
    expiry = None if request.token else (int(request.expiry_month), int(request.expiry_year))
    call = _request(
        request.reference, request.payment_type, request.amount, request.currency, card.pk
    )
    try:
        if request.payment_type == "PA":
            answer = money.block(
                request=call,
                card=card,
                amount=request.amount,
                currency=request.currency,
                where=where,
                expires_at=request.expires_at,
                security_code=request.cvv,
                expiry=expiry,
                counts=True,
            )
        elif request.payment_type == "DB":
            answer = money.purchase(
                request=call,
                card=card,
                amount=request.amount,
                currency=request.currency,
                where=where,
                security_code=request.cvv,
                expiry=expiry,
            )
        elif request.payment_type == "CD":
            answer = money.credit(
                request=call, card=card, amount=request.amount, currency=request.currency
            )
        else:  # CV
            answer = money.verification(
                request=call, card=card, security_code=request.cvv, expiry=expiry, where=where
            )
    except ApplicationError as exc:  # wrong currency: the card cannot pay it
        return _refused(exc)
    return _decision(answer)


def _original(reference: str) -> CardTransaction | None:
    return (
        CardTransaction.objects.filter(client_id=ACQUIRER, requestor_reference=reference)
        .select_related("card", "hold")
        .first()
    )


def follow_up(
    *, payment_type: str, reference: str, original_reference: str, amount: Decimal, currency: str
) -> Decision:
    """A CP, RV, RF or PR on the acquirer's original payment (its id)."""
    original = _original(original_reference)
    if original is None or original.status != "APPROVED":
        return Decision(results.TRANSACTION_NOT_FOUND)
    call = _request(reference, payment_type, amount, currency, original.pk)
    try:
        if payment_type == "CP":
            answer = money.capture(request=call, original=original, amount=amount)
        elif payment_type == "RV" and original.type == TransactionType.BLOCK:
            answer = money.unblock(request=call, original=original)
        elif payment_type == "RV" and amount == original.amount:
            answer = money.reversal(request=call, original=original)
        else:  # RF, PR, or a partial reversal of a posting: money back
            answer = money.refund(request=call, original=original, amount=amount, currency=currency)
    except ApplicationError as exc:
        return _refused(exc)
    return _decision(answer)


# --- 3-D Secure for on-us cards: the ACS asks the issuer -------------------------------------

ACS = "acs"  # the requestor id of the platform's ACS for the issuer's OOB and OTP records
OOB, OTP = "OOB", "OTP"


def challenge_method(number: str) -> str | None:
    """How the issuer authenticates its cardholder in a 3-D Secure challenge: out of band in
    its app (OOB), a one-time password by SMS or e-mail (OTP), "" for no registered channel
    (frictionless), None for a card that is not the issuer's."""
    card = card_by_number(number=number)
    if card is None:
        return None
    return {"APP": OOB, "SMS": OTP, "EMAIL": OTP}.get(card.secure_channel, "")


@dataclass(frozen=True)
class Challenge:
    reference: str  # the OOB authentication's or the one-time password's id
    secret: str  # OOB: the cardholder link (the simulator's push); OTP: the simulator's code
    sent_to: str = ""


def _card(number: str) -> Card:
    card = card_by_number(number=number)
    if card is None:
        raise ApplicationError(results.CARD_NOT_FOUND, "not one of the issuer's cards")
    return card


def oob_start(
    *, number: str, transaction_id: str, amount: Decimal, currency: str, merchant_name: str
) -> Challenge:
    """Start the out-of-band authentication of the card's holder for a 3-D Secure challenge:
    the request its app shows (StartOOBAuthen on behalf of the ACS)."""
    card = _card(number)
    auth, link_token = authentication.oob_start(
        client_id=ACS,
        card_reference=card.masked,  # what the cardholder's page shows: its masked number
        transaction_id=transaction_id,
        amount=amount,
        currency=currency,
        merchant_name=merchant_name[:100],
    )
    path = reverse("issuer-oob-cardholder", args=[auth.pk, link_token])
    return Challenge(auth.pk, settings.ISSUER_BASE_URL.rstrip("/") + path)


def otp_send(*, number: str, transaction_id: str) -> Challenge:
    """Send the card's holder a one-time password for a 3-D Secure challenge, by SMS or e-mail
    (the card's channel; SendOTP on behalf of the ACS)."""
    card = _card(number)
    channel = "SMS" if card.secure_channel == "SMS" else "EMAIL"
    contact = card.customer.mobile if channel == "SMS" else card.customer.email
    otp, code = authentication.otp_send(
        client_id=ACS, card_reference=card.masked, transaction_id=transaction_id, channel=channel
    )
    shown = code if settings.SIMULATOR_SHOW_CODES else ""
    return Challenge(otp.pk, shown, authentication.masked_contact(contact))


def oob_outcome(reference: str) -> str:
    """An OOB challenge's outcome as a transStatus: Y approved, N rejected, "" still pending,
    EXPIRED when the cardholder did not answer in time (or it was cancelled)."""
    status = authentication.oob_get_for_client(client_id=ACS, authentication_id=reference).status
    return {
        OOBStatus.SUCCESS: "Y",
        OOBStatus.REJECTED: "N",
        OOBStatus.PENDING: "",
    }.get(OOBStatus(status), "EXPIRED")


@dataclass(frozen=True)
class OtpCheck:
    verified: bool
    attempts_left: int
    expired: bool = False  # the code outlived its OTP_SECONDS (no attempt used)


def otp_check(reference: str, code: str) -> OtpCheck:
    outcome = authentication.otp_verify(client_id=ACS, otp_id=reference, code=code)
    expired = outcome.result.code == results.OTP_EXPIRED.code
    return OtpCheck(outcome.verified, outcome.otp.attempts_left, expired)
