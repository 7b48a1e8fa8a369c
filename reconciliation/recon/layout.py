"""The daily reconciliation file's record layout (spec "Reconciliation file"), declared once:
the writer, the parser and docs/recon-file.md all read it, so no field's position is written
twice.

Every record is exactly 257 bytes of ASCII, then a newline. Text (A, AN) is left-justified and
space-padded; numbers (N) right-justified and zero-filled; an NS field (POS entry mode and
condition code) is digits, or spaces when blank. The header's and trailer's reserved fields run
to column 257 (DESIGN: the specification's AN209 and AN197 are 49-257 and 61-257).
"""

import re
from dataclasses import dataclass, field

RECORD_LENGTH = 257
HEADER_LITERAL = "HRECONDT_300001"
TRAILER_LITERAL = "TRECON-D-T-30001"


@dataclass(frozen=True)
class Field:
    number: int
    start: int  # 1-based, inclusive
    end: int
    name: str
    kind: str  # A, AN, N, NS
    meaning: str = ""
    key: str = ""  # the value's key in a record's values ("" for a literal or reserved field)
    literal: str | None = None
    blank: str = " "  # what fills an empty value (AN fields the spec zero-fills say "0")

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    @property
    def spec_type(self) -> str:
        return f"{self.kind}{self.length}"


@dataclass(frozen=True)
class Record:
    name: str
    fields: tuple[Field, ...]
    marker: str  # how a line of this record starts
    keys: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        position = 1
        for item in self.fields:
            assert item.start == position, f"{self.name} {item.name}: starts at {item.start}"
            assert item.end >= item.start
            position = item.end + 1
        assert position - 1 == RECORD_LENGTH, f"{self.name} ends at {position - 1}"
        object.__setattr__(self, "keys", tuple(f.key for f in self.fields if f.key))


HEADER = Record(
    "Header",
    (
        Field(1, 1, 32, "File Name", "AN", f"literal {HEADER_LITERAL}", literal=HEADER_LITERAL),
        Field(2, 33, 40, "entityId", "AN", key="entity_id"),
        Field(3, 41, 48, "Settlement Date", "N", "YYYYMMDD", key="settlement_date"),
        Field(4, 49, 257, "Reserved", "AN", "spaces"),
    ),
    marker=HEADER_LITERAL,
)

DETAIL = Record(
    "Detail",
    (
        Field(1, 1, 1, "Filler", "A", "D", literal="D"),
        Field(
            2,
            2,
            33,
            "merchantTransactionId",
            "AN",
            "from the request",
            key="merchant_transaction_id",
        ),
        Field(3, 34, 65, "Id", "AN", "the platform's transaction id", key="id"),
        Field(4, 66, 85, "Transaction Type", "AN", "PA, DB, CD, CV, CP, RV, RF, PR", key="type"),
        Field(
            5,
            86,
            104,
            "Card BIN and last 4 digits",
            "AN",
            "first six and last four digits, left-justified, space-padded (DESIGN)",
            key="pan",
        ),
        Field(
            6, 105, 116, "Transaction Amount", "N", "minor units, no decimal point", key="amount"
        ),
        Field(
            7,
            117,
            128,
            "Reconciliation Amount",
            "N",
            "settlement amount, fees included, minor units",
            key="reconciliation_amount",
        ),
        Field(8, 129, 131, "Transaction Currency", "N", "ISO 4217 numeric", key="currency"),
        Field(
            9,
            132,
            134,
            "Reconciliation Currency",
            "N",
            "ISO 4217 numeric",
            key="reconciliation_currency",
        ),
        Field(10, 135, 146, "Transaction Date and Time", "N", "YYMMDDhhmmss (UTC)", key="when"),
        Field(11, 147, 161, "Merchant ID", "AN", key="merchant_id"),
        Field(12, 162, 169, "Terminal ID", "AN", key="terminal_id"),
        Field(
            13, 170, 180, "Transaction Status", "AN", "the result code XXX.XXX.XXX", key="status"
        ),
        Field(14, 181, 186, "Approval Code", "AN", "may be spaces", key="approval_code"),
        Field(15, 187, 209, "ARN", "AN", "acquirer reference number", key="arn"),
        Field(16, 210, 224, "Network Transaction Id", "AN", "scheme reference", key="network_id"),
        Field(
            17,
            225,
            227,
            "Electronic Commerce Security Level Indicator",
            "AN",
            "the ECI; zero-filled if blank",
            key="eci",
            blank="0",
        ),
        Field(18, 228, 230, "Advice Code", "AN", key="advice_code"),
        Field(19, 231, 236, "System Trace Audit Number", "N", key="stan"),
        Field(
            20,
            237,
            238,
            "POS Entry Mode",
            "NS",
            "01 MOTO, 05 chip, 81 e-commerce",
            key="entry_mode",
        ),
        Field(
            21,
            239,
            240,
            "POS Condition Code",
            "NS",
            "00, 08, 59; spaces if blank",
            key="condition_code",
        ),
        Field(22, 241, 244, "Reason Code", "AN", "chargeback reason", key="reason_code"),
        Field(23, 245, 254, "Chargeback Reference Id", "AN", key="chargeback_reference"),
        Field(24, 255, 257, "Product Identifier", "A", "default spaces", key="product"),
    ),
    marker="D",
)

TRAILER = Record(
    "Trailer",
    (
        Field(1, 1, 32, "File Name", "AN", f"literal {TRAILER_LITERAL}", literal=TRAILER_LITERAL),
        Field(2, 33, 40, "entityId", "AN", key="entity_id"),
        Field(3, 41, 48, "Settlement Date", "N", "YYYYMMDD", key="settlement_date"),
        Field(4, 49, 60, "Total Records", "N", "the number of detail records", key="total"),
        Field(5, 61, 257, "Reserved", "AN", "spaces"),
    ),
    marker=TRAILER_LITERAL,
)

RECORDS = (HEADER, DETAIL, TRAILER)
_PRINTABLE = re.compile(r"[ -~]*")


class FormatError(ValueError):
    """A value that does not fit its field (the writer refuses it)."""


def format_record(record: Record, values: dict[str, object]) -> bytes:
    """One line of `record`: 257 bytes and a newline."""
    out = []
    for item in record.fields:
        text = item.literal if item.literal is not None else str(values.get(item.key, "") or "")
        if not _PRINTABLE.fullmatch(text):
            raise FormatError(f"{record.name} {item.name}: not printable ASCII")
        if len(text) > item.length:
            raise FormatError(
                f"{record.name} {item.name}: {len(text)} characters, {item.length} fit"
            )
        if item.kind == "N":
            if text and not text.isdigit():
                raise FormatError(f"{record.name} {item.name}: {text!r} is not digits")
            out.append(text.rjust(item.length, "0"))
        elif item.kind == "NS" and text and not text.isdigit():
            raise FormatError(f"{record.name} {item.name}: {text!r} is not digits")
        elif text == "" and item.blank != " ":
            out.append(item.blank * item.length)
        else:
            out.append(text.ljust(item.length))
    line = "".join(out)
    assert len(line) == RECORD_LENGTH
    return line.encode("ascii") + b"\n"
