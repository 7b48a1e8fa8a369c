"""Compare a reconciliation file with the platform's records of its entity and day: the detail
records missing on either side, and those whose fields differ (by field name). The file is
checked by the parser first; its detail records are kept by (type, id) while the platform's
lines stream past, so memory grows with the file, not with the platform. A line the platform
has in the same form is matched first; otherwise the fields that differ are named."""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from core.errors import ApplicationError
from merchants.selectors import entity_by_id

from .. import results
from .generate import detail_lines
from .layout import DETAIL
from .parse import Fault, read


@dataclass
class Match:
    entity: str = ""
    day: date | None = None
    faults: list[Fault] = field(default_factory=list)
    missing_from_file: list[str] = field(default_factory=list)
    missing_from_platform: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not (
            self.faults or self.missing_from_file or self.missing_from_platform or self.differing
        )


def _key(line: str) -> tuple[str, str]:
    fields = {item.key: line[item.start - 1 : item.end].strip() for item in DETAIL.fields}
    return fields["type"], fields["id"]


def _differences(ours: str, theirs: str) -> Iterator[str]:
    for item in DETAIL.fields:
        mine, yours = ours[item.start - 1 : item.end], theirs[item.start - 1 : item.end]
        if mine != yours:
            yield f"{item.name} (file {yours.strip()!r}, platform {mine.strip()!r})"


NAME = re.compile(r"RECONDT([PT])[A-Za-z0-9]{1,8}[0-9]{8}01")


def production_of(path: str) -> bool | None:
    """P or T from the file's name; None when the name is not a reconciliation file's."""
    found = NAME.fullmatch(Path(path).name)
    return None if found is None else found.group(1) == "P"


def match(path: str, *, production: bool | None = None) -> Match:
    """`production`: whether it is a P file (test-mode payments left out); by default from its
    name. Records are matched as a multiset: a record twice in the file, or twice on the
    platform (two chargebacks of one payment), is matched twice."""
    result = Match()
    parsed = read(path)
    if not parsed.valid:
        result.faults = parsed.faults
        return result
    result.entity = parsed.header["entity_id"].strip()
    result.day = datetime.strptime(parsed.header["settlement_date"], "%Y%m%d").date()
    if production is None:
        production = production_of(path)
        if production is None:
            raise ApplicationError(
                results.RECON_FILE_KIND_UNKNOWN,
                f"{Path(path).name} is not named RECONDTP... or RECONDTT...: say whether it is "
                "a production or a test file",
            )
    in_file: dict[tuple[str, str], list[str]] = {}
    with open(path, "rb") as handle:
        for raw in handle:
            text = raw.decode("ascii").rstrip("\r\n")
            if text.startswith(DETAIL.marker):
                in_file.setdefault(_key(text), []).append(text)
    entity = entity_by_id(entity_id=result.entity)
    if entity is None:
        result.missing_from_platform = [f"entity {result.entity}"]
        return result
    for line in detail_lines(entity, result.day, production=production):
        key = _key(line)
        candidates = in_file.get(key)
        if not candidates:
            result.missing_from_file.append(" ".join(key))
            continue
        theirs = line if line in candidates else candidates[0]
        candidates.remove(theirs)
        if theirs != line:
            result.differing.append(f"{' '.join(key)}: " + "; ".join(_differences(line, theirs)))
    result.missing_from_platform = [" ".join(key) for key, lines in in_file.items() for _ in lines]
    return result
