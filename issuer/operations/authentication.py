"""The Authentication group: StartOOBAuthen, OOBResultInquiry, SendOTP, VerifyOTP (payloads:
docs/issuer.md). Each handler calls one service of issuer.services."""

from typing import Any

from django.conf import settings
from django.urls import reverse

from core import results
from core.envelope import timestamp
from core.fields import AN, Amount, Choice, Currency, N
from core.tables import MANDATORY, OPTIONAL, F, Table

from .. import services
from ..models import OOBAuthentication, OTPChannel
from .fields import TRANSACTION_ID, CardReference, Seconds, returned_id
from .registry import Answer, Call, register

START_OOB_TABLE = Table(
    [
        F(
            "cardReference",
            CardReference(),
            MANDATORY,
            meaning="card token or masked reference",
            secret=True,
        ),
        F("transactionId", TRANSACTION_ID, MANDATORY, meaning="the requestor's transaction id"),
        F("amount", Amount(), MANDATORY, meaning="amount to approve, e.g. 10.00"),
        F("currency", Currency(), MANDATORY, meaning="ISO 4217 alphabetic code"),
        F("merchantName", AN(100), MANDATORY, meaning="shown to the cardholder"),
        F(
            "expiry",
            Seconds(services.MIN_OOB_SECONDS, services.MAX_OOB_SECONDS),
            OPTIONAL,
            meaning="seconds the cardholder has to answer "
            f"(default {services.DEFAULT_OOB_SECONDS})",
        ),
    ]
)
OOB_INQUIRY_TABLE = Table([F("authenticationId", returned_id("authenticationId"), MANDATORY)])
SEND_OTP_TABLE = Table(
    [
        F("cardReference", CardReference(), MANDATORY, secret=True),
        F("transactionId", TRANSACTION_ID, MANDATORY),
        F("channel", Choice(tuple(OTPChannel.values)), MANDATORY),
    ]
)
VERIFY_OTP_TABLE = Table(
    [
        F("otpId", returned_id("otpId"), MANDATORY),
        F("code", N(services.OTP_DIGITS, min=services.OTP_DIGITS), MANDATORY, secret=True),
    ]
)


def cardholder_url(auth: OOBAuthentication, link_token: str) -> str:
    path = reverse("issuer-oob-cardholder", args=[auth.pk, link_token])
    return settings.ISSUER_BASE_URL.rstrip("/") + path


def _oob_fields(auth: OOBAuthentication) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "authenticationId": auth.pk,
        "transactionId": auth.transaction_id,
        "status": auth.status,
        "expiresAt": timestamp(auth.expires_at),
    }
    if auth.decided_at is not None:
        fields["decidedAt"] = timestamp(auth.decided_at)
    return fields


@register(
    "authentication",
    "StartOOBAuthen",
    table=START_OOB_TABLE,
    summary="start an out-of-band authentication of the cardholder",
)
def start_oob(call: Call) -> Answer:
    f = call.fields
    auth, link_token = services.oob_start(
        client_id=call.client_id,
        card_reference=f["cardReference"],
        transaction_id=f["transactionId"],
        amount=f["amount"],
        currency=f["currency"],
        merchant_name=f["merchantName"],
        expiry_seconds=f.get("expiry") or services.DEFAULT_OOB_SECONDS,
    )
    fields = _oob_fields(auth)
    # Simulator: the link the issuer would push to the cardholder's app.
    fields["cardholderUrl"] = cardholder_url(auth, link_token)
    return results.REQUEST_SUCCEEDED, fields, auth.pk


@register(
    "authentication",
    "OOBResultInquiry",
    table=OOB_INQUIRY_TABLE,
    summary="the status of an out-of-band authentication this requestor started",
)
def oob_result_inquiry(call: Call) -> Answer:
    auth = services.oob_get_for_client(
        client_id=call.client_id, authentication_id=call.fields["authenticationId"]
    )
    return results.REQUEST_SUCCEEDED, _oob_fields(auth), None


@register(
    "authentication",
    "SendOTP",
    table=SEND_OTP_TABLE,
    summary="send a one-time password to the cardholder",
)
def send_otp(call: Call) -> Answer:
    f = call.fields
    otp, code = services.otp_send(
        client_id=call.client_id,
        card_reference=f["cardReference"],
        transaction_id=f["transactionId"],
        channel=f["channel"],
    )
    fields = {
        "otpId": otp.pk,
        "transactionId": otp.transaction_id,
        "channel": otp.channel,
        "expiresAt": timestamp(otp.expires_at),
        "attemptsLeft": otp.attempts_left,
    }
    if getattr(settings, "ISSUER_OTP_SIMULATOR", True):
        # Simulator only: no SMS or e-mail leaves the platform, so the code is handed to the
        # requestor to type in. A real issuer never returns it.
        fields["simulatorCode"] = code
    return results.REQUEST_SUCCEEDED, fields, otp.pk


@register(
    "authentication",
    "VerifyOTP",
    table=VERIFY_OTP_TABLE,
    summary="check a one-time password the cardholder typed",
)
def verify_otp(call: Call) -> Answer:
    outcome = services.otp_verify(
        client_id=call.client_id, otp_id=call.fields["otpId"], code=call.fields["code"]
    )
    fields = {
        "otpId": outcome.otp.pk,
        "verified": outcome.verified,
        "attemptsLeft": outcome.otp.attempts_left,
    }
    return outcome.result, fields, None
