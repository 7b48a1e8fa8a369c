"""Compare a reconciliation file with the platform's records of its entity and day: the detail
records missing on either side, and those whose fields differ (by field name). The file is
checked by the parser first; its detail records are kept by (type, id) while the platform's
lines stream past, so memory grows with the file, not with the platform."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime

from merchants.models import Entity

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


def match(path: str) -> Match:
    result = Match()
    parsed = read(path)
    if not parsed.valid:
        result.faults = parsed.faults
        return result
    result.entity = parsed.header["entity_id"].strip()
    result.day = datetime.strptime(parsed.header["settlement_date"], "%Y%m%d").date()
    production = path.rsplit("/", 1)[-1][7:8] != "T"
    in_file: dict[tuple[str, str], str] = {}
    with open(path, "rb") as handle:
        for raw in handle:
            text = raw.decode("ascii").rstrip("\n")
            if text.startswith(DETAIL.marker):
                in_file[_key(text)] = text
    entity = Entity.objects.filter(entity_id=result.entity).first()
    if entity is None:
        result.missing_from_platform = [f"entity {result.entity}"]
        return result
    for line in detail_lines(entity, result.day, production=production):
        key = _key(line)
        theirs = in_file.pop(key, None)
        if theirs is None:
            result.missing_from_file.append(" ".join(key))
        elif theirs != line:
            result.differing.append(f"{' '.join(key)}: " + "; ".join(_differences(line, theirs)))
    result.missing_from_platform = [" ".join(key) for key in in_file]
    return result
