"""The Authentication group: StartOOBAuthen, OOBResultInquiry, SendOTP, VerifyOTP (payloads:
docs/issuer.md). Each handler calls one service of issuer.services."""

from django.conf import settings
from django.urls import reverse

from core import results
from core.errors import ApplicationError
from core.fields import AN, Amount, Choice, Currency, N, Timestamp
from core.tables import MANDATORY, OPTIONAL, F, Table

from .. import results as issuer_results
from .. import services
from ..cards import services as card_services
from ..models import OOBAuthentication, OOBStatus, OTPChannel
from .fields import TRANSACTION_ID, CardReference, Seconds, returned_id
from .registry import Answer, Call, group

START_OOB_TABLE = Table(
    [
        F(
            "cardReference",
            CardReference(),
            MANDATORY,
            meaning="one of the requestor's cards (CardApplication's cardReference)",
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


# What the answers show of an authentication and of a one-time password.
OOB_ANSWER = Table(
    [
        F("authenticationId", returned_id("authenticationId"), attr="pk"),
        F("transactionId", TRANSACTION_ID),
        F("status", Choice(tuple(OOBStatus.values))),
        F("expiresAt", Timestamp()),
        F("decidedAt", Timestamp()),
    ]
)
OTP_ANSWER = Table(
    [
        F("otpId", returned_id("otpId"), attr="pk"),
        F("transactionId", TRANSACTION_ID),
        F("channel", Choice(tuple(OTPChannel.values))),
        F("expiresAt", Timestamp()),
    ]
)
authentication = group("authentication")


@authentication("StartOOBAuthen", START_OOB_TABLE, "start an out-of-band authentication")
def start_oob(call: Call) -> Answer:
    f = call.fields
    card_services.card_of(
        client_id=call.client_id, reference=f["cardReference"]
    )  # the cardholder's card
    auth, link_token = services.oob_start(
        client_id=call.client_id,
        card_reference=f["cardReference"],
        transaction_id=f["transactionId"],
        amount=f["amount"],
        currency=f["currency"],
        merchant_name=f["merchantName"],
        expiry_seconds=f.get("expiry") or services.DEFAULT_OOB_SECONDS,
    )
    fields = OOB_ANSWER.render(auth)
    # Simulator: the link the issuer would push to the cardholder's app.
    fields["cardholderUrl"] = cardholder_url(auth, link_token)
    return results.REQUEST_SUCCEEDED, fields, auth.pk


@authentication("OOBResultInquiry", OOB_INQUIRY_TABLE, "the status of an authentication")
def oob_result_inquiry(call: Call) -> Answer:
    auth = services.oob_get_for_client(
        client_id=call.client_id, authentication_id=call.fields["authenticationId"]
    )
    return results.REQUEST_SUCCEEDED, OOB_ANSWER.render(auth), None


@authentication("SendOTP", SEND_OTP_TABLE, "send a one-time password to the cardholder")
def send_otp(call: Call) -> Answer:
    f = call.fields
    card = card_services.card_of(client_id=call.client_id, reference=f["cardReference"])
    contact = card.customer.mobile if f["channel"] == OTPChannel.SMS else card.customer.email
    if not contact:
        raise ApplicationError(issuer_results.NO_CONTACT_FOR_CHANNEL)
    otp, code = services.otp_send(
        client_id=call.client_id,
        card_reference=f["cardReference"],
        transaction_id=f["transactionId"],
        channel=f["channel"],
    )
    fields = {
        **OTP_ANSWER.render(otp),
        "attemptsLeft": otp.attempts_left,
        "sentTo": services.masked_contact(contact),
    }
    if settings.SIMULATOR_SHOW_CODES:
        # Simulator only: no SMS or e-mail leaves the platform, so the code is handed to the
        # requestor to type in. A real issuer never returns it.
        fields["simulatorCode"] = code
    return results.REQUEST_SUCCEEDED, fields, otp.pk


@authentication("VerifyOTP", VERIFY_OTP_TABLE, "check a one-time password the cardholder typed")
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
