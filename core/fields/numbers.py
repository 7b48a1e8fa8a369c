"""Numeric types: N/UN digit strings, decimals (N10.N2 amounts, N2.N5 rates), percentages."""

import re
from dataclasses import dataclass
from decimal import Decimal

from .base import FieldType, Shape, _length


@dataclass(frozen=True)
class N(FieldType):
    """Digits only, `min`..`max` of them (N and UN in the spec)."""

    max: int
    min: int = 1
    code: str = "N"

    def parse(self, text: str) -> str:
        if not (text.isascii() and text.isdigit() and self.min <= len(text) <= self.max):
            raise self.error()
        return text

    def describe(self) -> str:
        return f"{self.code}{self.max}: {_length(self.min, self.max, 'digits')}"

    def shape(self) -> Shape:
        return Shape("[0-9]+", self.min, self.max)

    def valid(self) -> str:
        return "1" * self.min

    def boundaries(self) -> tuple[str, ...]:
        lengths = {self.min - 1, self.min, self.max, self.max + 1} - {0}
        return tuple("9" * length for length in sorted(lengths))

    def invalid(self) -> list[str]:
        bad = ["1" * (self.max + 1), "1A", "-1"]
        if self.min > 1:
            bad.append("1" * (self.min - 1))
        return bad


def _digit(low: int, high: int) -> str:
    return str(low) if low == high else f"[{low}-{high}]"


def _same_length(low: str, high: str) -> list[str]:
    """Alternatives matching every digit string of len(low) from `low` to `high` (same length,
    leading zeros kept): the classic split at the first digit that differs."""
    if low == high:
        return [low]
    if low[0] == high[0]:
        return [low[0] + rest for rest in _same_length(low[1:], high[1:])]
    tail = len(low) - 1
    any_tail = "[0-9]" * tail if tail < 2 else f"[0-9]{{{tail}}}"
    out: list[str] = []
    first, last = int(low[0]), int(high[0])
    if low[1:] != "0" * tail:  # the low digit's own run up to ...999
        out += [low[0] + rest for rest in _same_length(low[1:], "9" * tail)]
        first += 1
    closing: list[str] = []
    if high[1:] != "9" * tail:  # the high digit's own run from ...000
        closing = [high[0] + rest for rest in _same_length("0" * tail, high[1:])]
        last -= 1
    if first <= last:
        out.append(_digit(first, last) + any_tail)
    return out + closing


def range_regex(low: int, high: int, width: int | None = None) -> str:
    """A regular expression (no anchors) of the whole numbers from `low` to `high`, written with
    exactly `width` digits (zero-padded: a month `0[1-9]|1[0-2]`), or without a width in their
    shortest form (no leading zero; 0 is `0`)."""
    assert 0 <= low <= high, (low, high)
    if width is not None:
        assert len(str(high)) <= width, (high, width)
        return "|".join(_same_length(f"{low:0{width}d}", f"{high:0{width}d}"))
    parts = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (digits - 1) if digits > 1 else 0)
        end = min(high, 10**digits - 1)
        parts += _same_length(str(start), str(end))
    return "|".join(parts)


@dataclass(frozen=True)
class Ranged(FieldType):
    """Digits naming a whole number from `low` to `high`: exactly `width` digits (zero-padded, a
    month 01 to 12), or without a width 1 to `digits` of them, leading zeros allowed (`digits`
    defaults to the digits of `high`). The value stays text, as sent (N does the same)."""

    low: int
    high: int
    width: int | None = None
    digits: int | None = None
    what: str = ""
    code: str = "N"
    example: str = ""

    @property
    def _max_digits(self) -> int:
        return self.width or self.digits or len(str(self.high))

    def parse(self, text: str) -> str:
        min_digits = self.width or 1
        if not (text.isascii() and text.isdigit() and min_digits <= len(text) <= self._max_digits):
            raise self.error()
        if not self.low <= int(text) <= self.high:
            raise self.error()
        return text

    def _shown(self, value: int) -> str:
        return f"{value:0{self.width}d}" if self.width else str(value)

    def describe(self) -> str:
        what = f"{self.what}, " if self.what else ""
        span = f"{self._shown(self.low)} to {self._shown(self.high)}"
        return f"{self.code}{self._max_digits}: {what}{span}"

    def shape(self) -> Shape:
        if self.width:
            return Shape(range_regex(self.low, self.high, self.width), self.width, self.width)
        # Leading zeros, then the number's shortest form; the length bounds the zeros.
        return Shape(f"0*(?:{range_regex(self.low, self.high)})", 1, self._max_digits)

    def valid(self) -> str:
        return self.example or self._shown(self.high if self.width else self.low)

    def invalid(self) -> list[str]:
        bad = [self._shown(self.high + 1), "1A", "-1"]
        if self.low > 0:
            bad.append(self._shown(self.low - 1))
        return bad

    def boundaries(self) -> tuple[str, ...]:
        edges = [self.low, self.high]
        edges += [value for value in (self.low - 1, self.high + 1) if value >= 0]
        shown = [self._shown(value) for value in edges]
        if self.width:  # without the padding
            shown += [str(value) for value in edges]
        else:  # with leading zeros, up to the length allowed and beyond
            shown += [f"{value:0{self._max_digits}d}" for value in edges]
            shown += ["0" + f"{value:0{self._max_digits}d}" for value in edges]
        return tuple(dict.fromkeys(shown))


def Month() -> Ranged:  # noqa: N802
    """A month as the spec writes it: N2, 01 to 12."""
    return Ranged(1, 12, width=2, what="a month")


def Year() -> Ranged:  # noqa: N802
    """A card's expiry year: four digits, 19xx or 20xx."""
    return Ranged(1900, 2099, width=4, what="a year", example="2030")


def UN(max: int, min: int = 1) -> N:  # noqa: N802, A002 - spec type name
    return N(max=max, min=min, code="UN")


@dataclass(frozen=True)
class Decimal_(FieldType):
    """A decimal string: up to `int_digits` integer digits, exactly (or at most) `places`
    decimals."""

    int_digits: int
    places: int
    exact: bool = True
    code: str = ""

    @property
    def _regex(self) -> str:
        frac = f"\\.[0-9]{{{self.places}}}" if self.exact else f"(\\.[0-9]{{1,{self.places}}})?"
        return f"[0-9]{{1,{self.int_digits}}}{frac}"

    def parse(self, text: str) -> Decimal:
        if not re.fullmatch(self._regex, text):
            raise self.error()
        return Decimal(text)

    def shape(self) -> Shape:
        return Shape(self._regex)

    def format(self, value: Decimal) -> str:
        return f"{value:.{self.places}f}" if self.exact else str(value)

    def describe(self) -> str:
        decimals = f"exactly {self.places}" if self.exact else f"at most {self.places}"
        return (
            f"{self.code}: up to {self.int_digits} integer digits, a dot and {decimals} "
            "decimals (e.g. " + self.valid() + ")"
        )

    def valid(self) -> str:
        return "10." + "5" * self.places if self.exact else "1.25"

    def invalid(self) -> list[str]:
        bad = ["1" * (self.int_digits + 1) + ".00", "10,00", "-1.00", "abc"]
        bad.append("1." + "1" * (self.places + 1))
        if self.exact:
            bad.append("10")
        return bad


def Amount() -> Decimal_:  # noqa: N802
    """N10.N2: up to 10 integer digits, exactly two decimals."""
    return Decimal_(int_digits=10, places=2, exact=True, code="N10.N2")


def Rate() -> Decimal_:  # noqa: N802
    """N2.N5: up to 2 integer digits, at most 5 decimals."""
    return Decimal_(int_digits=2, places=5, exact=False, code="N2.N5")


@dataclass(frozen=True)
class Percent(FieldType):
    """A percentage from 0 to 100 with at most `places` decimals (cart.items[n].tax)."""

    places: int = 2

    def parse(self, text: str) -> Decimal:
        if not re.fullmatch(rf"[0-9]{{1,3}}(?:\.[0-9]{{1,{self.places}}})?", text):
            raise self.error()
        value = Decimal(text)
        if value > 100:
            raise self.error()
        return value

    def shape(self) -> Shape:
        # Up to 100: one or two digits, three with a leading zero, or 100 itself (decimals 0).
        places = f"{{1,{self.places}}}"
        return Shape(rf"(?:[0-9]{{1,2}}|0[0-9]{{2}})(?:\.[0-9]{places})?|100(?:\.0{places})?")

    def describe(self) -> str:
        return f"a percentage from 0 to 100 with at most {self.places} decimals (e.g. 19.5)"

    def valid(self) -> str:
        return "19.5"

    def invalid(self) -> list[str]:
        return ["100.01", "101", "-1", "1." + "5" * (self.places + 1), "1,5", "abc"]

    def boundaries(self) -> tuple[str, ...]:
        zeros = "0" * self.places
        return (
            "0",
            "000",
            "0000",
            "099",
            "99." + "9" * self.places,
            "100",
            f"100.{zeros}",
            f"100.{zeros}0",
            "100." + "0" * (self.places - 1) + "1",
            "101",
            "1000",
        )


# --- Types of the 3-D Secure 2 data ----------------------------------------------------------
