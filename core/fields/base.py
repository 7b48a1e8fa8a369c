"""The base of every field type: parse a submitted string, describe it, format a value back,
and give a valid and some invalid examples (the generated format tests use them)."""

import re
from dataclasses import dataclass
from typing import Any

# Every control character (C0 with tab, CR and LF, DEL, C1 with NEL) and the Unicode line and
# paragraph separators: every text the API takes is a single line (it reaches statement and
# clearing files, where a line break starts a record), and none belongs in an identifier.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Single-line text: any character but those (the shape of free text).
SINGLE_LINE = r"[^" + CONTROL_CHARACTERS.pattern[1:] + "*"


def _class_of(characters: list[str]) -> str:
    """A regex character class of `characters` (sorted), in runs, with escapes."""
    runs: list[tuple[int, int]] = []
    for code in sorted(map(ord, characters)):
        if runs and code == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))

    def escaped(code: int) -> str:
        return (
            f"\\x{code:02x}"
            if code < 0x100
            else f"\\u{code:04x}"
            if code < 0x10000
            else f"\\U{code:08x}"
        )

    return (
        "["
        + "".join(
            escaped(low) if low == high else f"{escaped(low)}-{escaped(high)}" for low, high in runs
        )
        + "]"
    )


# Python's word characters beyond letters, digits and underscore: numbers that are not letters
# (Ⅷ, ², ½). Computed from the interpreter's Unicode database, as `\w` itself is.
NOT_LETTERS = _class_of(
    [
        char
        for char in map(chr, range(0x110000))
        if char.isnumeric() and not char.isdecimal() and not char.isalpha()
    ]
)
# A letter of any script, and only a letter (what str.isalpha() accepts, Unicode category L):
# place and person names. The OpenAPI schema spells it `\p{L}` (core.schema.types).
LETTER = rf"(?:(?!{NOT_LETTERS})[^\W\d_])"


@dataclass(frozen=True)
class Shape:
    """What a JSON Schema can say of the values a type accepts (once trimmed): a regular
    expression they match in full (Python syntax, no anchors), their length and an enumeration.
    The OpenAPI schema is generated from it (core.schema); the type's `parse` stays the judge of
    what no pattern can say (a Luhn check, a real calendar date, a currency's minor units)."""

    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    enum: tuple[str, ...] | None = None


class FieldType:
    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def valid(self) -> str:
        raise NotImplementedError

    def invalid(self) -> list[str]:
        raise NotImplementedError

    def shape(self) -> Shape:
        """The JSON Schema of the accepted values; by default single-line text."""
        return Shape(pattern=SINGLE_LINE)

    def boundaries(self) -> tuple[str, ...]:
        """For a ranged or enumerated type: values at its edges and just beyond them (a month's
        00, 01, 12, 13; each value of an enumeration and one outside it), where its `shape`
        must admit exactly what `parse` accepts (tests/core/test_schema_ranges.py checks every
        type of the OpenAPI document). Empty for a type with no range or enumeration."""
        return ()

    def format(self, value: Any) -> str:
        """A stored value as an answer shows it (the inverse of `parse`)."""
        return str(value)

    def error(self) -> ValueError:
        return ValueError(f"must be {self.describe()}")

    def control_error(self) -> ValueError:
        return ValueError(f"must not contain control characters or line breaks ({self.describe()})")


def _length(min_len: int, max_len: int, unit: str) -> str:
    if min_len == max_len:
        return f"exactly {max_len} {unit}"
    return f"{min_len} to {max_len} {unit}"
