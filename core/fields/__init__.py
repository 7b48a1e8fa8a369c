"""Field types in the specification's language: AN, N, UN, A, enumerations, ranges (a month),
N10.N2, N2.N5, dates.

A type knows how to parse a submitted string (raising `ValueError` with a message a client can
act on), how to describe itself (for errors and docs), how to format a stored value back for an
answer, and a valid and some invalid examples, so the tests of every field's format are
generated from the same tables that validate requests and render answers.
"""

from .base import CONTROL_CHARACTERS, LETTER, SINGLE_LINE, FieldType, Shape
from .codes import Country, Currency, CurrencyNumeric
from .dates import Date, Timestamp, UtcTimestamp
from .numbers import UN, Amount, Decimal_, Month, N, Percent, Ranged, Rate, Year, range_regex
from .text import AN, A, Base64, Choice, Hex, Truncated
from .web import Email, IPAddress, LocalUrl, Url

__all__ = [
    "AN",
    "CONTROL_CHARACTERS",
    "UN",
    "A",
    "Amount",
    "Base64",
    "Choice",
    "Country",
    "Currency",
    "CurrencyNumeric",
    "Date",
    "Decimal_",
    "Email",
    "FieldType",
    "LETTER",
    "SINGLE_LINE",
    "Shape",
    "Hex",
    "IPAddress",
    "LocalUrl",
    "Month",
    "N",
    "Percent",
    "Ranged",
    "Rate",
    "Timestamp",
    "Truncated",
    "Url",
    "UtcTimestamp",
    "Year",
    "range_regex",
]
