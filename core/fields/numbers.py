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

    def invalid(self) -> list[str]:
        bad = ["1" * (self.max + 1), "1A", "-1"]
        if self.min > 1:
            bad.append("1" * (self.min - 1))
        return bad


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


# --- Types of the 3-D Secure 2 data ----------------------------------------------------------
