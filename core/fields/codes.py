"""ISO codes from pycountry: countries (3166-1 alpha-2), currencies (4217 alpha and numeric);
a currency's minor units (the ISO 4217 exponent) from the iso4217 package, which ships ISO's own
published list (pycountry has no minor units)."""

import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from functools import cache

import iso4217
import pycountry

from .base import FieldType, Shape


@dataclass(frozen=True)
class Country(FieldType):
    """ISO 3166-1 alpha-2, uppercase (from pycountry)."""

    def parse(self, text: str) -> str:
        if not re.fullmatch("[A-Z]{2}", text) or pycountry.countries.get(alpha_2=text) is None:
            raise self.error()
        return text

    def describe(self) -> str:
        return "A2: an ISO 3166-1 alpha-2 country code in uppercase"

    def shape(self) -> Shape:
        return Shape(enum=_codes("countries", "alpha_2"))

    def valid(self) -> str:
        return "DE"

    def boundaries(self) -> tuple[str, ...]:
        return (*_codes("countries", "alpha_2"), "XX", "de", "D")

    def invalid(self) -> list[str]:
        return ["de", "XX", "DEU", "1A"]


@dataclass(frozen=True)
class Currency(FieldType):
    """ISO 4217 alphabetic code, uppercase (from pycountry)."""

    def parse(self, text: str) -> str:
        if not re.fullmatch("[A-Z]{3}", text) or pycountry.currencies.get(alpha_3=text) is None:
            raise self.error()
        return text

    def describe(self) -> str:
        return "A3: an ISO 4217 currency code in uppercase"

    def shape(self) -> Shape:
        return Shape(enum=_codes("currencies", "alpha_3"))

    def valid(self) -> str:
        return "EUR"

    def boundaries(self) -> tuple[str, ...]:
        return (*_codes("currencies", "alpha_3"), "XYZ", "eur", "EU")

    def invalid(self) -> list[str]:
        return ["eur", "XYZ", "EURO"]


# --- Types of the payment data groups (customer, cart, ...) -------------------------------------


@dataclass(frozen=True)
class CurrencyNumeric(FieldType):
    """ISO 4217 numeric code: three digits naming a currency (from pycountry)."""

    def parse(self, text: str) -> str:
        if not re.fullmatch(r"[0-9]{3}", text) or pycountry.currencies.get(numeric=text) is None:
            raise self.error()
        return text

    def describe(self) -> str:
        return "N3: an ISO 4217 numeric currency code (e.g. 978 for EUR)"

    def shape(self) -> Shape:
        return Shape(enum=_codes("currencies", "numeric"))

    def valid(self) -> str:
        return "978"

    def boundaries(self) -> tuple[str, ...]:
        return (*_codes("currencies", "numeric"), "000", "001", "97")

    def invalid(self) -> list[str]:
        return ["EUR", "97", "9780", "000"]


@cache
def _codes(database: str, attribute: str) -> tuple[str, ...]:
    """Every code of a pycountry database, sorted: what `get(attribute=...)` finds."""
    return tuple(sorted(getattr(entry, attribute) for entry in getattr(pycountry, database)))


def numeric_currency(code: str) -> str:
    """The ISO 4217 numeric code of an alphabetic one (EUR -> 978)."""
    entry = pycountry.currencies.get(alpha_3=code)
    if entry is None:
        raise ValueError(f"{code} is not an ISO 4217 currency")
    return str(entry.numeric)


def minor_units(code: str) -> int | None:
    """The ISO 4217 exponent of a currency (JPY 0, EUR 2, BHD 3), or None when ISO defines none
    (XAU, XDR, XXX, ...) or the code is not a currency."""
    try:
        exponent = iso4217.Currency(code).exponent
    except ValueError:
        return None
    return None if exponent is None else int(exponent)


def within_exponent(amount: Decimal, exponent: int) -> bool:
    """Whether `amount` has no fraction beyond `exponent` decimals (zeros beyond it are fine:
    250.00 is a whole amount). One of more digits than a Decimal holds counts as within: the
    amount's own field refuses it."""
    try:
        return amount == amount.quantize(Decimal(1).scaleb(-exponent), rounding=ROUND_DOWN)
    except InvalidOperation:
        return True
