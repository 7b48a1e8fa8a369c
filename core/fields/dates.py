"""Dates and times in the specification's formats (yyyy-MM-dd, YYYYMMDD, ccyymmdd, YYYYMMDDHHMM)."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from .base import FieldType, Shape

_DATE_FORMATS = {"yyyy-MM-dd": "%Y-%m-%d", "YYYYMMDD": "%Y%m%d", "ccyymmdd": "%Y%m%d"}
_DATE_SHAPES = {
    "yyyy-MM-dd": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "YYYYMMDD": r"[0-9]{8}",
    "ccyymmdd": r"[0-9]{8}",
}
# What a pattern can say of a date (years 1900..2099, months, days up to 31); the calendar
# (no 30 February) is the parser's.
_YEAR, _MONTH, _DAY = r"(?:19|20)[0-9]{2}", r"(?:0[1-9]|1[0-2])", r"(?:0[1-9]|[12][0-9]|3[01])"
_DATE_PATTERNS = {
    "yyyy-MM-dd": f"{_YEAR}-{_MONTH}-{_DAY}",
    "YYYYMMDD": f"{_YEAR}{_MONTH}{_DAY}",
    "ccyymmdd": f"{_YEAR}{_MONTH}{_DAY}",
}


@dataclass(frozen=True)
class Date(FieldType):
    """A calendar date in the given spec format; years 1900..2099."""

    fmt: str = "yyyy-MM-dd"

    def parse(self, text: str) -> date:
        if not re.fullmatch(_DATE_SHAPES[self.fmt], text):
            raise self.error()
        try:
            value = datetime.strptime(text, _DATE_FORMATS[self.fmt]).date()  # noqa: DTZ007
        except ValueError:
            raise self.error() from None
        if not 1900 <= value.year <= 2099:
            raise self.error()
        return value

    def format(self, value: date) -> str:
        return value.strftime(_DATE_FORMATS[self.fmt])

    def shape(self) -> Shape:
        return Shape(_DATE_PATTERNS[self.fmt])

    def describe(self) -> str:
        return f"a date {self.fmt}"

    def boundaries(self) -> tuple[str, ...]:
        """The years, months and days at the edges and beyond (in months of 31 days: the
        calendar's shorter months are the parser's alone)."""
        layout = _DATE_FORMATS[self.fmt].replace("%Y", "{y}").replace("%m", "{m}")
        layout = layout.replace("%d", "{d}")
        edges = [("1899", "12", "31"), ("1900", "01", "01"), ("2099", "12", "31")]
        edges += [("2100", "01", "01"), ("2024", "00", "10"), ("2024", "13", "10")]
        edges += [("2024", "01", "00"), ("2024", "01", "32"), ("2024", "12", "31")]
        return tuple(layout.format(y=y, m=m, d=d) for y, m, d in edges)

    def valid(self) -> str:
        return date(2024, 1, 31).strftime(_DATE_FORMATS[self.fmt])

    def invalid(self) -> list[str]:
        return [
            date(2024, 1, 31).strftime(_DATE_FORMATS[self.fmt]).replace("31", "32"),
            "2024/01/31",
            "1800" + date(2024, 1, 31).strftime(_DATE_FORMATS[self.fmt])[4:],
        ]


_TIMESTAMP_FORMATS = {"YYYYMMDDHHMM": ("%Y%m%d%H%M", r"[0-9]{12}")}
_TIMESTAMP_PATTERNS = {"YYYYMMDDHHMM": rf"{_YEAR}{_MONTH}{_DAY}(?:[01][0-9]|2[0-3])[0-5][0-9]"}


@dataclass(frozen=True)
class UtcTimestamp(FieldType):
    """A UTC date and time to the minute in the given spec format (YYYYMMDDHHMM); years
    1900..2099. Parsed to an aware datetime in UTC."""

    fmt: str = "YYYYMMDDHHMM"

    def parse(self, text: str) -> datetime:
        strftime, shape = _TIMESTAMP_FORMATS[self.fmt]
        if not re.fullmatch(shape, text):
            raise self.error()
        try:
            value = datetime.strptime(text, strftime).replace(tzinfo=UTC)
        except ValueError:
            raise self.error() from None
        if not 1900 <= value.year <= 2099:
            raise self.error()
        return value

    def format(self, value: datetime) -> str:
        """The value as sent (the inverse of `parse`)."""
        return value.astimezone(UTC).strftime(_TIMESTAMP_FORMATS[self.fmt][0])

    def shape(self) -> Shape:
        return Shape(_TIMESTAMP_PATTERNS[self.fmt])

    def describe(self) -> str:
        return f"a UTC date and time {self.fmt}"

    def boundaries(self) -> tuple[str, ...]:
        times = ("0000", "2359", "2400", "2360", "1299")
        days = ("19000101", "20991231", "18991231", "21000101", "20241301", "20240132")
        return (*(f"20240131{time}" for time in times), *(f"{day}1200" for day in days))

    def valid(self) -> str:
        return "202401311230"

    def invalid(self) -> list[str]:
        return [
            "202401311260",
            "202401312430",
            "202402301230",
            "20240131",
            "2024-01-31 12:30",
            "180001311230",
        ]


@dataclass(frozen=True)
class Timestamp(FieldType):
    """A moment as answers show it: `yyyy-MM-dd HH:mm:ss.SSS+0000` (UTC). Answer rows only
    (createdAt, expiresAt): a request never sends one."""

    def parse(self, text: str) -> datetime:
        try:
            return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f%z")
        except ValueError:
            raise self.error() from None

    def format(self, value: datetime) -> str:
        from ..envelope import timestamp

        return timestamp(value)

    def shape(self) -> Shape:
        return Shape(
            rf"[0-9]{{4}}-{_MONTH}-{_DAY} (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{{3}}"
            r"\+0000"
        )

    def boundaries(self) -> tuple[str, ...]:
        moments = [
            *("2026-01-31 00:00:00", "2026-12-31 23:59:59", "2026-13-01 12:00:00"),
            *("2026-00-10 12:00:00", "2026-01-32 12:00:00", "2026-01-00 12:00:00"),
            *("2026-01-31 24:00:00", "2026-01-31 12:60:00", "2026-01-31 12:00:60"),
        ]
        return tuple(f"{moment}.000+0000" for moment in moments)

    def describe(self) -> str:
        return "a UTC time yyyy-MM-dd HH:mm:ss.SSS+0000"

    def valid(self) -> str:
        return "2026-01-31 12:00:00.000+0000"

    def invalid(self) -> list[str]:
        return ["2026-01-31", "yesterday"]
