"""Read a reconciliation file back through the layout (recon/layout.py): every line 257 bytes
and a newline, a header first, a trailer last, detail records between, every field of the kind
its row says, and the trailer's count equal to the detail records. Faults are reported by line
and column (1-based), the first `limit` of them."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .layout import DETAIL, HEADER, RECORD_LENGTH, TRAILER, Field, Record


@dataclass(frozen=True)
class Fault:
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


@dataclass
class Parsed:
    header: dict[str, str] = field(default_factory=dict)
    trailer: dict[str, str] = field(default_factory=dict)
    details: int = 0
    faults: list[Fault] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.faults


def parse_fields(record: Record, text: str, line: int) -> tuple[dict[str, str], list[Fault]]:
    values: dict[str, str] = {}
    faults = []
    for item in record.fields:
        raw = text[item.start - 1 : item.end]
        problem = _check(item, raw)
        if problem:
            faults.append(Fault(line, item.start, f"{record.name} {item.name}: {problem}"))
        if item.key:
            values[item.key] = raw.strip() if item.kind != "N" else raw
    return values, faults


def _check(item: Field, raw: str) -> str:
    if item.literal is not None:
        expected = item.literal.ljust(item.length)
        return "" if raw == expected else f"must be {item.literal!r}"
    if item.kind == "N":
        return "" if raw.isdigit() else "must be digits, zero-filled"
    if item.kind == "NS":
        return "" if raw.isdigit() or raw == " " * item.length else "must be digits or spaces"
    if item.key == "":  # reserved
        return "" if raw == " " * item.length else "must be spaces"
    if raw.strip() and raw[0] == " ":
        return "must be left-justified"
    return ""


def parse_lines(lines: Iterable[bytes], *, limit: int = 20) -> Parsed:
    parsed = Parsed()
    seen_trailer_at = 0
    number = 0
    for number, raw in enumerate(lines, 1):
        if len(parsed.faults) >= limit:
            break
        if not raw.endswith(b"\n"):
            parsed.faults.append(
                Fault(number, len(raw) + 1, "the line does not end with a newline")
            )
        data = raw.rstrip(b"\n")
        if len(data) != RECORD_LENGTH:
            parsed.faults.append(
                Fault(number, min(len(data), RECORD_LENGTH) + 1, f"{len(data)} bytes, not 257")
            )
            continue
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError as exc:
            parsed.faults.append(Fault(number, exc.start + 1, "not ASCII"))
            continue
        if seen_trailer_at:
            parsed.faults.append(Fault(number, 1, "a record after the trailer"))
            continue
        record = _record_of(text, first=number == 1)
        if record is None:
            parsed.faults.append(Fault(number, 1, "not a header, detail or trailer record"))
            continue
        values, faults = parse_fields(record, text, number)
        parsed.faults += faults
        if record is HEADER:
            parsed.header = values
        elif record is TRAILER:
            parsed.trailer, seen_trailer_at = values, number
        else:
            parsed.details += 1
    _whole_file(parsed, number, seen_trailer_at)
    parsed.faults = parsed.faults[:limit]
    return parsed


def _record_of(text: str, *, first: bool) -> Record | None:
    if first:
        return HEADER if text.startswith(HEADER.marker) else None
    if text.startswith(TRAILER.marker):
        return TRAILER
    if text.startswith(DETAIL.marker):
        return DETAIL
    return None


def _whole_file(parsed: Parsed, lines: int, trailer_at: int) -> None:
    if not parsed.header and not any(f.line == 1 for f in parsed.faults):
        parsed.faults.append(Fault(1, 1, "no header"))
    if not trailer_at:
        parsed.faults.append(Fault(lines + 1, 1, "no trailer"))
        return
    total = parsed.trailer.get("total", "")
    if total.isdigit() and int(total) != parsed.details:
        parsed.faults.append(
            Fault(
                trailer_at, 49, f"Total Records {int(total)}, but {parsed.details} detail records"
            )
        )
    for key in ("entity_id", "settlement_date"):
        if parsed.header and parsed.header.get(key) != parsed.trailer.get(key):
            parsed.faults.append(Fault(trailer_at, 33, f"the trailer's {key} is not the header's"))


def read(path: str, *, limit: int = 20) -> Parsed:
    with open(path, "rb") as handle:
        return parse_lines(_lines(handle), limit=limit)


def _lines(handle: Iterable[bytes]) -> Iterator[bytes]:
    yield from handle
