"""Field types in the specification's language: AN, N, UN, A, enumerations, N10.N2, N2.N5, dates.

A type knows how to parse a submitted string (raising `ValueError` with a message a client can
act on), how to describe itself (for errors and docs), and a valid and some invalid examples, so
the tests of every field's format are generated from the same tables that build the serializers.
"""

import base64
import binascii
import ipaddress
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import pycountry

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class FieldType:
    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def valid(self) -> str:
        raise NotImplementedError

    def invalid(self) -> list[str]:
        raise NotImplementedError

    def error(self) -> ValueError:
        return ValueError(f"must be {self.describe()}")


def _length(min_len: int, max_len: int, unit: str) -> str:
    if min_len == max_len:
        return f"exactly {max_len} {unit}"
    return f"{min_len} to {max_len} {unit}"


@dataclass(frozen=True)
class AN(FieldType):
    """Text of `min`..`max` characters; `pattern` (full match) narrows it where the spec does."""

    max: int
    min: int = 1
    pattern: str | None = None
    what: str = ""
    example: str = ""

    def parse(self, text: str) -> str:
        if not self.min <= len(text) <= self.max or _CONTROL.search(text):
            raise self.error()
        if self.pattern and not re.fullmatch(self.pattern, text):
            raise self.error()
        return text

    def describe(self) -> str:
        what = f", {self.what}" if self.what else ""
        return f"AN{self.max}: {_length(self.min, self.max, 'characters')}{what}"

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

    def valid(self) -> str:
        return self.values[0]

    def invalid(self) -> list[str]:
        return ["NOT_A_VALUE"]


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
        frac = f"\\.\\d{{{self.places}}}" if self.exact else f"(\\.\\d{{1,{self.places}}})?"
        return f"\\d{{1,{self.int_digits}}}{frac}"

    def parse(self, text: str) -> Decimal:
        if not re.fullmatch(self._regex, text):
            raise self.error()
        return Decimal(text)

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


_DATE_FORMATS = {"yyyy-MM-dd": "%Y-%m-%d", "YYYYMMDD": "%Y%m%d", "ccyymmdd": "%Y%m%d"}
_DATE_SHAPES = {"yyyy-MM-dd": r"\d{4}-\d{2}-\d{2}", "YYYYMMDD": r"\d{8}", "ccyymmdd": r"\d{8}"}


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

    def valid(self) -> str:
        return "A1" * (self.max // 2) if self.max >= 2 else "A"

    def invalid(self) -> list[str]:
        return ["G" * self.min, "A" * (self.max + 1)]


@dataclass(frozen=True)
class Country(FieldType):
    """ISO 3166-1 alpha-2, uppercase (from pycountry)."""

    def parse(self, text: str) -> str:
        if not re.fullmatch("[A-Z]{2}", text) or pycountry.countries.get(alpha_2=text) is None:
            raise self.error()
        return text

    def describe(self) -> str:
        return "A2: an ISO 3166-1 alpha-2 country code in uppercase"

    def valid(self) -> str:
        return "DE"

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

    def valid(self) -> str:
        return "EUR"

    def invalid(self) -> list[str]:
        return ["eur", "XYZ", "EURO"]


# --- Types of the payment data groups (customer, cart, ...) -------------------------------------


@dataclass(frozen=True)
class Truncated(FieldType):
    """Text of at least `min` characters, cut to `max`: the spec's "truncated after 48" means a
    longer value is accepted and shortened, not refused."""

    max: int
    min: int = 1
    example: str = ""

    def parse(self, text: str) -> str:
        if len(text) < self.min or _CONTROL.search(text):
            raise self.error()
        return text[: self.max]

    def describe(self) -> str:
        return f"AN{self.max}: at least {self.min} characters, truncated after {self.max}"

    def valid(self) -> str:
        return self.example or "A" * max(self.min, 1)

    def invalid(self) -> list[str]:
        bad = ["A\x00B"]
        if self.min > 1:
            bad.append(self.valid()[: self.min - 1])
        return bad


_EMAIL_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_TLD = r"(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})"
_HOSTNAME = re.compile(rf"(?:{_LABEL}\.)+{_TLD}")


def _ascii_host(host: str) -> str | None:
    """A domain name in its ASCII (punycode) form, or None if it is not a valid one."""
    try:
        ascii_host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return None
    return ascii_host if len(ascii_host) <= 253 and _HOSTNAME.fullmatch(ascii_host) else None


@dataclass(frozen=True)
class Email(FieldType):
    """An e-mail address: a dot-atom local part (at most 64 characters), `@`, and a domain name
    with a top-level domain (internationalised names allowed). No quoted local parts, no IP
    literals: the checks a shop's address form makes, not all of RFC 5322."""

    max: int = 128
    min: int = 6

    def parse(self, text: str) -> str:
        local, at, domain = text.rpartition("@")
        ok = (
            self.min <= len(text) <= self.max
            and at
            and len(local) <= 64
            and re.fullmatch(_EMAIL_LOCAL, local)
            and _ascii_host(domain)
        )
        if not ok:
            raise self.error()
        return text

    def describe(self) -> str:
        return f"an e-mail address of {self.min} to {self.max} characters"

    def valid(self) -> str:
        return "jane.doe@example.com"

    def invalid(self) -> list[str]:
        return [
            "jane.doe",
            "jane@example",
            "jane doe@example.com",
            "jane..doe@example.com",
            "a@b.c",
            "j" * self.max + "@example.com",
        ]


@dataclass(frozen=True)
class IPAddress(FieldType):
    """An IPv4 (dotted decimal) or IPv6 address, checked by the `ipaddress` module; kept as sent."""

    max: int = 255

    def parse(self, text: str) -> str:
        if len(text) > self.max:
            raise self.error()
        try:
            ipaddress.ip_address(text)
        except ValueError:
            raise self.error() from None
        return text

    def describe(self) -> str:
        return f"an IPv4 or IPv6 address (up to {self.max} characters)"

    def valid(self) -> str:
        return "192.0.2.10"

    def invalid(self) -> list[str]:
        return ["256.1.1.1", "192.0.2", "2001:db8::g", "not-an-ip"]


@dataclass(frozen=True)
class Url(FieldType):
    """An absolute http or https URL with a host name (with a top-level domain) or an IP
    address; no spaces or control characters."""

    max: int = 2048
    schemes: tuple[str, ...] = ("http", "https")

    def parse(self, text: str) -> str:
        if len(text) > self.max or re.search(r"\s", text) or _CONTROL.search(text):
            raise self.error()
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            raise self.error() from None
        host = parts.hostname or ""
        if parts.scheme.lower() not in self.schemes or not host:
            raise self.error()
        if not (_is_ip(host) or _ascii_host(host)):
            raise self.error()
        return text

    def describe(self) -> str:
        return f"an absolute {' or '.join(self.schemes)} URL of up to {self.max} characters"

    def valid(self) -> str:
        return "https://shop.example.com/items/42"

    def invalid(self) -> list[str]:
        return [
            "shop.example.com/items/42",
            "ftp://shop.example.com/x",
            "https://",
            "https://shop example.com/",
            "https://shop.example.com:99999/",
            "https://" + "a" * self.max + ".com/",
        ]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Percent(FieldType):
    """A percentage from 0 to 100 with at most `places` decimals (cart.items[n].tax)."""

    places: int = 2

    def parse(self, text: str) -> Decimal:
        if not re.fullmatch(rf"\d{{1,3}}(?:\.\d{{1,{self.places}}})?", text):
            raise self.error()
        value = Decimal(text)
        if value > 100:
            raise self.error()
        return value

    def describe(self) -> str:
        return f"a percentage from 0 to 100 with at most {self.places} decimals (e.g. 19.5)"

    def valid(self) -> str:
        return "19.5"

    def invalid(self) -> list[str]:
        return ["100.01", "101", "-1", "1." + "5" * (self.places + 1), "1,5", "abc"]


# --- Types of the 3-D Secure 2 data ----------------------------------------------------------


@dataclass(frozen=True)
class LocalUrl(Url):
    """A `Url` that also accepts the host `localhost`: for URLs only the shopper's browser opens
    (shopperResultUrl is a form target), where a shop on a developer's machine or a test server
    on loopback is a real case. IP addresses (127.0.0.1, [::1]) are accepted by `Url` already."""

    def parse(self, text: str) -> str:
        try:
            return super().parse(text)
        except ValueError:
            if not self._is_localhost(text):
                raise
        return text

    def _is_localhost(self, text: str) -> bool:
        if len(text) > self.max or re.search(r"\s", text) or _CONTROL.search(text):
            return False
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            return False
        return parts.scheme.lower() in self.schemes and (parts.hostname or "") == "localhost"

    def describe(self) -> str:
        return super().describe() + " (localhost allowed)"

    def valid(self) -> str:
        return "https://shop.example.com/checkout/result"

    def invalid(self) -> list[str]:
        return [*super().invalid(), "http://localhost:99999/x", "http://localhostx/"]


_TIMESTAMP_FORMATS = {"YYYYMMDDHHMM": ("%Y%m%d%H%M", r"\d{12}")}


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

    def valid(self) -> str:
        return self.example

    def invalid(self) -> list[str]:
        return ["not base64!", "AAA", "A===", "AAAB-_A=", "AAAA" * (self.max // 4 + 1)]


@dataclass(frozen=True)
class CurrencyNumeric(FieldType):
    """ISO 4217 numeric code: three digits naming a currency (from pycountry)."""

    def parse(self, text: str) -> str:
        if not re.fullmatch(r"\d{3}", text) or pycountry.currencies.get(numeric=text) is None:
            raise self.error()
        return text

    def describe(self) -> str:
        return "N3: an ISO 4217 numeric currency code (e.g. 978 for EUR)"

    def valid(self) -> str:
        return "978"

    def invalid(self) -> list[str]:
        return ["EUR", "97", "9780", "000"]
