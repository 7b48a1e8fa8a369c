"""Field types of the issuer operations' tables."""

import re
from dataclasses import dataclass

from stdnum import luhn

from core.fields import AN, FieldType, Ranged, Shape

REFERENCE = r"[A-Za-z0-9][A-Za-z0-9._:*-]*"
TRANSACTION_ID = AN(64, pattern=REFERENCE, what="letters, digits and . _ : * -")


def contains_card_number(text: str) -> bool:
    """A run of 12 to 19 digits (spaces and hyphens ignored) that passes the Luhn check."""
    compact = re.sub(r"[ -]", "", text)
    return any(
        12 <= len(digits) <= 19 and luhn.is_valid(digits)
        for digits in re.findall(r"[0-9]{12,}", compact)
    )


# A number standing on its own (not inside a longer run of letters and digits, such as a hex id):
# 12 to 19 digits, single spaces or hyphens allowed between them.
_STANDALONE_NUMBER = re.compile(r"(?<![A-Za-z0-9])[0-9](?:[ -]?[0-9]){11,18}(?![A-Za-z0-9])")


def mentions_card_number(text: str) -> bool:
    """Free text (a name, a reference, a description) that carries a card number: a number
    standing on its own of 12 to 19 digits that passes the Luhn check. Digits inside a longer
    token (a hex id, `order4111...x`) are not taken for one."""
    return any(
        luhn.is_valid(re.sub(r"[ -]", "", match)) for match in _STANDALONE_NUMBER.findall(text)
    )


@dataclass(frozen=True)
class CardReference(FieldType):
    """The issuer's reference of a card (`crd_...`, CardApplication's answer), never a card
    number: a run of 12 to 19 digits (spaces and hyphens ignored) that passes the Luhn check is
    refused."""

    max: int = 64

    def parse(self, text: str) -> str:
        if contains_card_number(text):
            raise ValueError(
                "must be the issuer's reference of the card (cardReference, as "
                "CardApplication answered it), never a card number (PAN)"
            )
        if not (4 <= len(text) <= self.max and re.fullmatch(REFERENCE, text)):
            raise self.error()
        return text

    def describe(self) -> str:
        return (
            f"AN{self.max}: 4 to {self.max} letters, digits and . _ : * -, a card token or a "
            "masked reference, never a card number"
        )

    def shape(self) -> Shape:
        return Shape(REFERENCE, 4, self.max)

    def valid(self) -> str:
        return "411111******1111"

    def invalid(self) -> list[str]:
        return ["4111111111111111", "4111 1111 1111 1111", "tok", "a" * (self.max + 1), "t@k0"]


class Seconds(Ranged):
    """A whole number of seconds in [low, high]; a JSON number or a string of digits (up to six
    digits, or as many as `high` has; leading zeros allowed)."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__(low, high, digits=max(6, len(str(high))))

    def parse(self, text: str) -> int:  # type: ignore[override]
        return int(super().parse(text))

    def describe(self) -> str:
        return f"a whole number of seconds from {self.low} to {self.high}"

    def valid(self) -> str:
        return str(self.low)

    def invalid(self) -> list[str]:
        return [str(self.low - 1), str(self.high + 1), "1.5", "abc"]


def returned_id(what: str) -> AN:
    """A 32-hex id this issuer returned in an earlier answer."""
    return AN(
        32,
        min=32,
        pattern="[0-9a-f]{32}",
        what=f"the {what} returned earlier",
        example="5c2a6f0e9b1d4c7a8e3f2b1a0d9c8b7a",
    )


@dataclass(frozen=True)
class Iban(FieldType):
    """An IBAN (spaces ignored), checked with python-stdnum."""

    def parse(self, text: str) -> str:
        from stdnum import iban

        compact = text.replace(" ", "").upper()
        if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}", compact) or not iban.is_valid(
            compact
        ):
            raise ValueError("is not a valid IBAN (its check digits fail)")
        return compact

    def describe(self) -> str:
        return "an IBAN (up to 34 letters and digits, spaces ignored)"

    def shape(self) -> Shape:
        return Shape("[A-Z]{2}[0-9]{2}[A-Z0-9 ]{10,40}", 15, 42)

    def valid(self) -> str:
        return "DE89370400440532013000"

    def invalid(self) -> list[str]:
        return ["DE89370400440532013001", "XX", "12345"]
