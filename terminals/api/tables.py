"""The terminal (POS) tables (spec: "Terminal (POS)"): requests, and the inquiry's answer."""

from core.fields import AN, Choice, N, Timestamp
from core.status import OperatingStatus
from core.tables import MANDATORY, OPTIONAL, F, Table
from core.tables.common import COMMON, COMMON_INQUIRY
from merchants.fields import MERCHANT_ID

from ..models import PinEntryCapability, TerminalType

M, OPT = MANDATORY, OPTIONAL

TERMINAL_ID = F(
    "pos.terminalId",
    AN(8, pattern=r"[A-Za-z0-9_]+", what="letters, digits, underscore", example="T0000001"),
    M,
    attr="terminal_id",
)

TERMINAL_FIELDS = [
    F("pos.name", AN(32, example="Front desk"), M, meaning="terminal name given by the merchant"),
    F("pos.deviceId", N(32), M, meaning="serial number"),
    F("pos.deviceInfo", AN(32, example="Ingenico Move5000"), M, meaning="device model"),
    F("pos.terminalType", Choice(tuple(TerminalType.values)), OPT),
    F(
        "pos.postcode",
        AN(10, pattern=r"[A-Za-z0-9\- ]+", what="letters, digits, hyphen", example="10115"),
        OPT,
    ),
    F("pos.pinEntryCapability", Choice(tuple(PinEntryCapability.values)), M),
    F("pos.digitalId", AN(15, example="DIG000000000001"), OPT),
    F("pos.acctId", AN(15, example="ACC000000000001"), OPT),
]

MERCHANT_ID_OPTIONAL = F(MERCHANT_ID.name, MERCHANT_ID.type, OPT, attr="merchant_id")

TERMINAL_CREATE = Table([*COMMON, MERCHANT_ID, TERMINAL_ID, *TERMINAL_FIELDS])
TERMINAL_UPDATE = Table([*COMMON, MERCHANT_ID_OPTIONAL, TERMINAL_ID, *TERMINAL_FIELDS])
TERMINAL_STATUS = Table(
    [
        *COMMON,
        MERCHANT_ID,
        TERMINAL_ID,
        F("terminal.status", Choice(tuple(OperatingStatus.values)), M),
    ]
)
TERMINAL_INQUIRY = Table([*COMMON_INQUIRY, MERCHANT_ID_OPTIONAL, TERMINAL_ID])


TERMINAL_DATA = Table(TERMINAL_FIELDS)

# What the terminal inquiry answers.
TERMINAL_VIEW = Table(
    [
        F(MERCHANT_ID.name, MERCHANT_ID.type, attr="merchant.merchant_id"),
        TERMINAL_ID,
        *TERMINAL_FIELDS,
        F("terminal.status", Choice(tuple(OperatingStatus.values))),
        F("terminal.createdAt", Timestamp(), attr="created_at"),
        F("terminal.updatedAt", Timestamp(), attr="updated_at"),
    ]
)

# What create, update and status answer (the OpenAPI document).
TERMINAL_ANSWER = Table([F(MERCHANT_ID.name, MERCHANT_ID.type), TERMINAL_ID])
TERMINAL_STATUS_ANSWER = Table(
    [
        F(MERCHANT_ID.name, MERCHANT_ID.type),
        TERMINAL_ID,
        F("terminal.status", Choice(tuple(OperatingStatus.values))),
    ]
)
