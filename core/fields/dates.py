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
            r"[0-9]{4}-[0-9]{2}-[0-9]{2} (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}\+0000"
        )

    def describe(self) -> str:
        return "a UTC time yyyy-MM-dd HH:mm:ss.SSS+0000"

    def valid(self) -> str:
        return "2026-01-31 12:00:00.000+0000"

    def invalid(self) -> list[str]:
        return ["2026-01-31", "yesterday"]
