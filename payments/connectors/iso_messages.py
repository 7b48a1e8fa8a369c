"""The ISO 8583:1987 messages of the network link, encoded and decoded by pyiso8583.

ASCII message type and fields; the primary bitmap 8 bytes binary (pyiso8583's `default` spec) or
16 hex characters (`default_ascii`), as `PAYMENTS_NETWORK_BITMAP` says (`binary`, `hex`); every
message framed by a 2-byte big-endian length header (`frame`, `FrameReader`).

Which message goes with which payment type (docs/decisions.md, "The ISO 8583 link"):

| payment | request / answer | processing code (field 3) |
|---|---|---|
| PA, CV | 0100 / 0110 | 000000 (CV: amount 0, condition code 51) |
| DB | 0200 / 0210 | 000000 |
| CD | 0200 / 0210 | 260000 (original credit) |
| RF, PR | 0200 / 0210 | 200000 (refund) |
| CP | 0220 / 0230 (advice of the completed authorization) | 000000 |
| RV | 0400 / 0410, field 90 the original's | the original's |
| a reversal advice | 0420 / 0430 (0421 when repeated), field 90 the original's | the original's |
| sign-on, echo | 0800 / 0810, field 70 001 / 301 | |

Fields beyond the standard set ride in field 48 (additional data, private) as subelements
`tag(2) length(3) value`: CV the CVV2 (masked in every trace), AS the billing street, AP the
billing postcode, SC the stored credential's source (CIT or MIT) and SM, ST, SI, SP, SE, SF, SN
the rest of it (STORED_CREDENTIAL_TAGS), TK a scheme token's marker, and
the acquirer's references (RF, OR, OA, CB, CL below).
Answers carry field 44 (additional response data): its first character the AVS result, its
second the CVV2 result, the rest the Mastercard advice code; and field 62 the network's own
reference of the transaction.

Card data (fields 2, 14, 35, 52 and field 48's CV) never leaves this module in a log line, an
error or an exception: `masked(fields)` is the only form a trace may show.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from functools import cache

import iso4217
import iso8583
from iso8583.specs import default, default_ascii

from core.cards import masked
from core.fields.codes import minor_units, numeric_currency

AUTHORIZATION = "0100"
AUTHORIZATION_ANSWER = "0110"
FINANCIAL = "0200"
FINANCIAL_ANSWER = "0210"
FINANCIAL_REPEAT = "0201"
ADVICE = "0220"
ADVICE_ANSWER = "0230"
ADVICE_REPEAT = "0221"
REVERSAL = "0400"
REVERSAL_ANSWER = "0410"
REVERSAL_ADVICE = "0420"
REVERSAL_ADVICE_REPEAT = "0421"
REVERSAL_ADVICE_ANSWER = "0430"
NETWORK = "0800"
NETWORK_ANSWER = "0810"
ANSWER_OF = {
    AUTHORIZATION: AUTHORIZATION_ANSWER,
    FINANCIAL: FINANCIAL_ANSWER,
    FINANCIAL_REPEAT: FINANCIAL_ANSWER,
    ADVICE: ADVICE_ANSWER,
    ADVICE_REPEAT: ADVICE_ANSWER,
    REVERSAL: REVERSAL_ANSWER,
    REVERSAL_ADVICE: REVERSAL_ADVICE_ANSWER,
    REVERSAL_ADVICE_REPEAT: REVERSAL_ADVICE_ANSWER,
    NETWORK: NETWORK_ANSWER,
}
# A repeat: the same message sent again, its STAN and RRN unchanged, by a sender that does not
# know whether the first arrived. The network answers a repeat of what it took with the answer it
# gave (and does it no second time); one it never took, it takes now.
REPEAT_OF = {FINANCIAL: FINANCIAL_REPEAT, ADVICE: ADVICE_REPEAT}
ORIGINAL_OF = {repeat: original for original, repeat in REPEAT_OF.items()}
SIGN_ON = "001"
ECHO = "301"

# payment type -> (request message type, processing code)
MESSAGE_OF = {
    "PA": (AUTHORIZATION, "000000"),
    "CV": (AUTHORIZATION, "000000"),
    "DB": (FINANCIAL, "000000"),
    "CD": (FINANCIAL, "260000"),
    "RF": (FINANCIAL, "200000"),
    "PR": (FINANCIAL, "200000"),
    "CP": (ADVICE, "000000"),
}
CARD_FIELDS = ("2", "14", "35", "52")
HEADER = struct.Struct(">H")
MAX_MESSAGE = 0xFFFF

# Field 48's subelements.
CVV2 = "CV"
BILLING_STREET = "AS"
BILLING_POSTCODE = "AP"
CREDENTIAL_SOURCE = "SC"
# The rest of a stored credential (standingInstruction.*, docs/api.md "Card on file"): the
# network learns a payment's place in its chain as the schemes' stored-credential fields say it.
STORED_CREDENTIAL_TAGS = {
    "source": CREDENTIAL_SOURCE,
    "mode": "SM",
    "type": "ST",
    "initialTransactionId": "SI",
    "industryPractice": "SP",
    "expiry": "SE",
    "frequency": "SF",
    "numberOfInstallments": "SN",
}
SCHEME_TOKEN = "TK"
# The acquirer's reference of the request (its payment id) and, for a follow-up, the original's
# reference, approval code and card (BIN and last four): the simulator's decisions and its log
# are keyed by them.
REFERENCE = "RF"
ORIGINAL_REFERENCE = "OR"
ORIGINAL_AUTH_CODE = "OA"
CARD_BIN = "CB"
CARD_LAST4 = "CL"


class MessageError(ValueError):
    """A message that cannot be encoded or decoded. Its text names fields, never their values
    (pyiso8583's own errors quote the data, so they are not passed on)."""


SPECS = {"binary": default, "hex": default_ascii}


def encode(fields: Mapping[str, str], bitmap: str = "binary") -> bytes:
    """The message (without its length header)."""
    document = dict(fields)
    try:
        raw, _ = iso8583.encode(document, SPECS[bitmap])
    except iso8583.EncodeError as exc:
        raise MessageError(f"cannot encode field {exc.field}") from None
    return bytes(raw)


def decode(message: bytes, bitmap: str = "binary") -> dict[str, str]:
    """The fields of a message (without its length header); field "t" is the message type."""
    try:
        fields, _ = iso8583.decode(bytearray(message), SPECS[bitmap])
    except iso8583.DecodeError as exc:
        raise MessageError(f"cannot decode field {exc.field}") from None
    fields.pop("p", None)  # the bitmaps say which fields are there: framing, not data
    fields.pop("1", None)
    return {name: str(value) for name, value in fields.items()}


def frame(message: bytes) -> bytes:
    if len(message) > MAX_MESSAGE:
        raise MessageError("message longer than its 2-byte length header can say")
    return HEADER.pack(len(message)) + message


class FrameReader:
    """Whole messages out of a byte stream that arrives in pieces."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        messages = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            messages.append(bytes(self._buffer[HEADER.size : end]))
            del self._buffer[:end]
        return messages


# --- field 48 ---------------------------------------------------------------------------------


def subelements(values: Mapping[str, str]) -> str:
    return "".join(f"{tag}{len(value):03d}{value}" for tag, value in values.items() if value)


def parse_subelements(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    at = 0
    while at + 5 <= len(text):
        tag, length = text[at : at + 2], int(text[at + 2 : at + 5])
        found[tag] = text[at + 5 : at + 5 + length]
        at += 5 + length
    return found


# --- amounts, dates ---------------------------------------------------------------------------


def amount_field(amount: Decimal | None, currency: str) -> str:
    """Field 4: the amount in the currency's minor units, 12 digits."""
    exponent = minor_units(currency) or 0
    minor = int((amount or Decimal(0)).scaleb(exponent))
    return f"{minor:012d}"


def amount_of(field: str, currency_numeric: str) -> Decimal:
    exponent = minor_units(currency_alpha(currency_numeric)) or 0
    return Decimal(int(field)).scaleb(-exponent)


def currency_alpha(numeric: str) -> str:
    """The ISO 4217 code of a numeric currency code (field 49); empty when there is none."""
    return _alpha_by_numeric().get(numeric, "")


@cache
def _alpha_by_numeric() -> dict[str, str]:
    return {f"{currency.number:03d}": currency.code for currency in iso4217.Currency}


def times(now: datetime, local: datetime) -> dict[str, str]:
    """Fields 7 (transmission, UTC), 12 and 13 (the acceptor's local time and date)."""
    return {
        "7": now.strftime("%m%d%H%M%S"),
        "12": local.strftime("%H%M%S"),
        "13": local.strftime("%m%d"),
    }


def currency_field(currency: str) -> str:
    return numeric_currency(currency)


# --- what a trace may show --------------------------------------------------------------------


def masked_fields(fields: Mapping[str, str]) -> dict[str, str]:
    """The message as a debug trace may show it: the PAN as first six and last four, the expiry,
    track 2, the PIN block and the CVV2 hidden."""
    shown = dict(fields)
    if shown.get("2"):
        shown["2"] = masked(shown["2"])
    for name in ("14", "35", "52"):
        if name in shown:
            shown[name] = "****"
    if "48" in shown:
        parts = parse_subelements(shown["48"])
        if CVV2 in parts:
            parts[CVV2] = "***"
        shown["48"] = subelements(parts)
    return shown
