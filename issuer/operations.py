"""The issuer operation catalogue: `(group, Operation)` -> scope, request table, handler.

`POST /issuer/v1/{group}/{Operation}` (issuer.api) looks the operation up here, checks the
token's scope against `Operation.scope`, decrypts the body and calls `perform`, which validates
the decrypted JSON object against the operation's table (core.spec: one row per field, unknown
members refused, the platform's parameterErrors) and runs the handler. The answer is the
platform's envelope (id, result, the operation's fields, buildNumber, timestamp, ndc); refusals
are result codes in it, never exceptions out of here.

This issue delivers the Authentication group; the other groups of the specification's catalogue
(Application, Customer, Account, Card, Transaction, Token, Parameter) are registered the same
way when they are built. Payloads: docs/issuer.md.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.urls import reverse
from stdnum import luhn

from core import results
from core.envelope import envelope, timestamp
from core.errors import MASKED, ApplicationError, ParameterError, safe_value
from core.fields import AN, Amount, Choice, Currency, FieldType, N
from core.spec import MANDATORY, OPTIONAL, F, Table

from . import oob
from .models import OOBAuthentication, OTPChannel

START_OOB, CHECK_OOB, OTP = "START_OOB", "CHECK_OOB", "OTP"
REFERENCE = r"[A-Za-z0-9][A-Za-z0-9._:*-]*"
# Fields whose submitted value is never echoed in parameterErrors: a card reference may be a
# card number sent by mistake, a code is a secret.
NEVER_ECHOED = frozenset({"cardReference", "code"})


@dataclass(frozen=True)
class CardReference(FieldType):
    """A card token or a masked reference (`tok_...`, `411111******1111`), never a card number:
    a run of 12 to 19 digits (spaces and hyphens ignored) that passes the Luhn check is
    refused."""

    max: int = 64

    def parse(self, text: str) -> str:
        compact = re.sub(r"[ -]", "", text)
        for digits in re.findall(r"\d{12,}", compact):
            if 12 <= len(digits) <= 19 and luhn.is_valid(digits):
                raise ValueError(
                    "must be a card token or a masked reference, never a card number (PAN): "
                    "send the token or mask the middle digits (411111******1111)"
                )
        if not (4 <= len(text) <= self.max and re.fullmatch(REFERENCE, text)):
            raise self.error()
        return text

    def describe(self) -> str:
        return (
            f"AN{self.max}: 4 to {self.max} letters, digits and . _ : * -, a card token or a "
            "masked reference, never a card number"
        )

    def valid(self) -> str:
        return "411111******1111"

    def invalid(self) -> list[str]:
        return ["4111111111111111", "4111 1111 1111 1111", "tok", "a" * (self.max + 1), "t@k0"]


@dataclass(frozen=True)
class Seconds(FieldType):
    """A whole number of seconds in [min, max]; a JSON number or a string of digits."""

    min: int
    max: int

    def parse(self, text: str) -> int:
        if not (text.isascii() and text.isdigit() and len(text) <= 6):
            raise self.error()
        value = int(text)
        if not self.min <= value <= self.max:
            raise self.error()
        return value

    def describe(self) -> str:
        return f"a whole number of seconds from {self.min} to {self.max}"

    def valid(self) -> str:
        return str(self.min)

    def invalid(self) -> list[str]:
        return [str(self.min - 1), str(self.max + 1), "1.5", "abc"]


def _id(what: str) -> AN:
    return AN(32, min=32, pattern="[0-9a-f]{32}", what=f"the {what} returned earlier")


TRANSACTION_ID = AN(64, pattern=REFERENCE, what="letters, digits and . _ : * -")

START_OOB_TABLE = Table(
    [
        F("cardReference", CardReference(), MANDATORY, meaning="card token or masked reference"),
        F("transactionId", TRANSACTION_ID, MANDATORY, meaning="the requestor's transaction id"),
        F("amount", Amount(), MANDATORY, meaning="amount to approve, e.g. 10.00"),
        F("currency", Currency(), MANDATORY, meaning="ISO 4217 alphabetic code"),
        F("merchantName", AN(100), MANDATORY, meaning="shown to the cardholder"),
        F(
            "expiry",
            Seconds(oob.MIN_OOB_SECONDS, oob.MAX_OOB_SECONDS),
            OPTIONAL,
            meaning=f"seconds the cardholder has to answer (default {oob.DEFAULT_OOB_SECONDS})",
        ),
    ]
)
OOB_INQUIRY_TABLE = Table([F("authenticationId", _id("authenticationId"), MANDATORY)])
SEND_OTP_TABLE = Table(
    [
        F("cardReference", CardReference(), MANDATORY),
        F("transactionId", TRANSACTION_ID, MANDATORY),
        F("channel", Choice(tuple(OTPChannel.values)), MANDATORY),
    ]
)
VERIFY_OTP_TABLE = Table(
    [
        F("otpId", _id("otpId"), MANDATORY),
        F("code", N(oob.OTP_DIGITS, min=oob.OTP_DIGITS), MANDATORY),
    ]
)


Answer = tuple[results.Result, dict[str, Any], str | None]  # result, fields, envelope id


@dataclass(frozen=True)
class Call:
    """What a handler gets: the requestor (the access token's client) and the parsed fields."""

    client_id: str
    fields: dict[str, Any]


@dataclass(frozen=True)
class Operation:
    group: str
    name: str
    scope: str
    table: Table
    handler: Callable[[Call], Answer]
    summary: str

    @property
    def path(self) -> str:
        return f"{self.group}/{self.name}"


CATALOGUE: dict[tuple[str, str], Operation] = {}


def register(
    group: str, name: str, *, scope: str, table: Table, summary: str
) -> Callable[[Callable[[Call], Answer]], Callable[[Call], Answer]]:
    def decorator(handler: Callable[[Call], Answer]) -> Callable[[Call], Answer]:
        key = (group, name)
        assert key not in CATALOGUE, key
        CATALOGUE[key] = Operation(group, name, scope, table, handler, summary)
        return handler

    return decorator


def lookup(group: str, name: str) -> Operation | None:
    return CATALOGUE.get((group, name))


# --- the Authentication group ------------------------------------------------------------------


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
    scope=START_OOB,
    table=START_OOB_TABLE,
    summary="start an out-of-band authentication of the cardholder",
)
def start_oob(call: Call) -> Answer:
    f = call.fields
    auth, link_token = oob.oob_start(
        client_id=call.client_id,
        card_reference=f["cardReference"],
        transaction_id=f["transactionId"],
        amount=f["amount"],
        currency=f["currency"],
        merchant_name=f["merchantName"],
        expiry_seconds=f.get("expiry") or oob.DEFAULT_OOB_SECONDS,
    )
    fields = _oob_fields(auth)
    # Simulator: the link the issuer would push to the cardholder's app.
    fields["cardholderUrl"] = cardholder_url(auth, link_token)
    return results.REQUEST_SUCCEEDED, fields, auth.pk


@register(
    "authentication",
    "OOBResultInquiry",
    scope=CHECK_OOB,
    table=OOB_INQUIRY_TABLE,
    summary="the status of an out-of-band authentication this requestor started",
)
def oob_result_inquiry(call: Call) -> Answer:
    auth = oob.oob_get_for_client(
        client_id=call.client_id, authentication_id=call.fields["authenticationId"]
    )
    return results.REQUEST_SUCCEEDED, _oob_fields(auth), None


@register(
    "authentication",
    "SendOTP",
    scope=OTP,
    table=SEND_OTP_TABLE,
    summary="send a one-time password to the cardholder",
)
def send_otp(call: Call) -> Answer:
    f = call.fields
    otp, code = oob.otp_send(
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
    scope=OTP,
    table=VERIFY_OTP_TABLE,
    summary="check a one-time password the cardholder typed",
)
def verify_otp(call: Call) -> Answer:
    outcome = oob.otp_verify(
        client_id=call.client_id, otp_id=call.fields["otpId"], code=call.fields["code"]
    )
    fields = {
        "otpId": outcome.otp.pk,
        "verified": outcome.verified,
        "attemptsLeft": outcome.otp.attempts_left,
    }
    return outcome.result, fields, None


# --- running an operation ------------------------------------------------------------------------


def _as_text(value: Any) -> Any:
    """JSON scalars as the text the field types parse: numbers keep their digits (Decimal from
    the strict decoder), null is blank; booleans, objects and arrays are left to be refused."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | Decimal):
        return str(value)
    if value is None:
        return ""
    return value


def _parameter_errors(exc: ParameterError) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "value": MASKED
            if name in NEVER_ECHOED and value is not None
            else safe_value(name, value),
            "message": message,
        }
        for name, value, message in exc.errors
    ]


def perform(operation: Operation, *, client_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the decrypted request and run the operation; the answer's envelope."""
    try:
        fields = operation.table.validate({k: _as_text(v) for k, v in payload.items()})
        result, data, answer_id = operation.handler(Call(client_id=client_id, fields=fields))
    except ParameterError as exc:
        return envelope(results.INVALID_PARAMETER, parameterErrors=_parameter_errors(exc))
    except ApplicationError as exc:
        return envelope(exc.result, description=exc.description, data=exc.data)
    return envelope(result, id=answer_id, data=data)
