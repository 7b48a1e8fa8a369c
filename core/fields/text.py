"""Text types: AN (any characters, a pattern where the spec gives one), A (letters), enumerations,
hexadecimal, text truncated after a length, base64."""

import base64
import binascii
import re
from dataclasses import dataclass, field

from .base import CONTROL_CHARACTERS, SINGLE_LINE, FieldType, Shape, _length


@dataclass(frozen=True)
class AN(FieldType):
    """Text of `min`..`max` characters; `pattern` (full match) narrows it where the spec does."""

    max: int
    min: int = 1
    pattern: str | None = None
    what: str = ""
    example: str = ""

    def parse(self, text: str) -> str:
        if CONTROL_CHARACTERS.search(text):
            raise self.error()
        if not self.min <= len(text) <= self.max:
            raise self.error()
        if self.pattern and not re.fullmatch(self.pattern, text):
            raise self.error()
        return text

    def describe(self) -> str:
        what = f", {self.what}" if self.what else ""
        return f"AN{self.max}: {_length(self.min, self.max, 'characters')}{what}"

    def shape(self) -> Shape:
        return Shape(self.pattern or SINGLE_LINE, self.min, self.max)

    def valid(self) -> str:
        return self.example or "A" * self.min

    def invalid(self) -> list[str]:
        bad = [self.valid()[:1] * (self.max + 1)]
        if self.min > 1:
            bad.append(self.valid()[: self.min - 1])
        if self.pattern:
            bad.append("#" * self.min)
        return bad


@dataclass(frozen=True)
class A(FieldType):
    """Letters only; `upper` requires uppercase."""

    max: int
    min: int = 1
    upper: bool = False

    def parse(self, text: str) -> str:
        ok = text.isascii() and text.isalpha() and self.min <= len(text) <= self.max
        if not ok or (self.upper and not text.isupper()):
            raise self.error()
        return text

    def describe(self) -> str:
        unit = "uppercase letters" if self.upper else "letters"
        return f"A{self.max}: {_length(self.min, self.max, unit)}"

    def shape(self) -> Shape:
        return Shape("[A-Z]+" if self.upper else "[A-Za-z]+", self.min, self.max)

    def valid(self) -> str:
        return "A" * self.min

    def invalid(self) -> list[str]:
        bad = ["A" * (self.max + 1), "1" * self.min]
        if self.upper:
            bad.append("a" * self.min)
        return bad


@dataclass(frozen=True)
class Choice(FieldType):
    """One of an enumeration. `aliases` map accepted spellings to the stored value."""

    values: tuple[str, ...]
    aliases: dict[str, str] = field(default_factory=dict)

    def parse(self, text: str) -> str:
        text = self.aliases.get(text, text)
        if text not in self.values:
            raise self.error()
        return text

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)

    def shape(self) -> Shape:
        """The values, then the other spellings accepted for them."""
        spellings = [*self.values, *(alias for alias in self.aliases if alias not in self.values)]
        return Shape(enum=tuple(spellings))

    def valid(self) -> str:
        return self.values[0]

    def invalid(self) -> list[str]:
        return ["NOT_A_VALUE"]

    def boundaries(self) -> tuple[str, ...]:
        """Every value and spelling, one outside them, and each value in the other case."""
        spellings = [*self.values, *self.aliases]
        return tuple(dict.fromkeys([*spellings, "NOT_A_VALUE", *(v.swapcase() for v in spellings)]))


@dataclass(frozen=True)
class Hex(FieldType):
    max: int
    min: int = 1

    def parse(self, text: str) -> str:
        if not re.fullmatch(f"[0-9A-Fa-f]{{{self.min},{self.max}}}", text):
            raise self.error()
        return text.upper()

    def describe(self) -> str:
        return f"AN{self.max}: {_length(self.min, self.max, 'hexadecimal digits')}"

    def shape(self) -> Shape:
        return Shape("[0-9A-Fa-f]+", self.min, self.max)

    def valid(self) -> str:
        return "A1" * (self.max // 2) if self.max >= 2 else "A"

    def invalid(self) -> list[str]:
        return ["G" * self.min, "A" * (self.max + 1)]


@dataclass(frozen=True)
class Truncated(FieldType):
    """Text of at least `min` characters, cut to `max`: the spec's "truncated after 48" means a
    longer value is accepted and shortened, not refused."""

    max: int
    min: int = 1
    example: str = ""

    def parse(self, text: str) -> str:
        if CONTROL_CHARACTERS.search(text):
            raise self.error()
        if len(text) < self.min:
            raise self.error()
        return text[: self.max]

    def describe(self) -> str:
        return f"AN{self.max}: at least {self.min} characters, truncated after {self.max}"

    def shape(self) -> Shape:
        return Shape(SINGLE_LINE, self.min)  # a longer value is cut, not refused

    def valid(self) -> str:
        return self.example or "A" * max(self.min, 1)

    def invalid(self) -> list[str]:
        bad = ["A\x00B"]
        if self.min > 1:
            bad.append(self.valid()[: self.min - 1])
        return bad


@dataclass(frozen=True)
class Base64(FieldType):
    """Standard base64 (RFC 4648 alphabet, padded) of `min`..`max` characters that decodes to at
    least one byte; kept as sent."""

    max: int
    min: int = 1
    example: str = "AAABBEg0VhI0VniQEjRWAAAAAAA="

    def parse(self, text: str) -> str:
        if not self.min <= len(text) <= self.max:
            raise self.error()
        try:
            decoded = base64.b64decode(text, validate=True)
        except binascii.Error:
            raise self.error() from None
        if not decoded:
            raise self.error()
        return text

    def describe(self) -> str:
        return f"base64 of {_length(self.min, self.max, 'characters')}"

    def shape(self) -> Shape:
        # Padded groups of four; at least one byte (a lone group of four at least).
        return Shape(
            "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)",
            max(self.min, 4),
            self.max,
        )

    def valid(self) -> str:
        return self.example

    def invalid(self) -> list[str]:
        return ["not base64!", "AAA", "A===", "AAAB-_A=", "AAAA" * (self.max // 4 + 1)]
