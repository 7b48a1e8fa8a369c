"""Internet types: e-mail addresses, IP addresses, URLs."""

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from .base import CONTROL_CHARACTERS, FieldType, Shape

_EMAIL_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_TLD = r"(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})"
_HOSTNAME = re.compile(rf"(?:{_LABEL}\.)+{_TLD}")
# A host (name, IPv4, or [IPv6]) and an optional port of ASCII digits.
_PORT = re.compile(r"(?:\[[^\]]*\]|[^:\[\]]*)(?::[0-9]*)?")

# The shapes of the schema (core.schema): what `ipaddress`, `urlsplit` and the host check accept,
# as regular expressions (ASCII host names only: an internationalised one is accepted too).
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"


def _ipv6() -> str:
    """Every text form of an IPv6 address: eight groups, or fewer around one `::`, the last two
    possibly written as an IPv4 address; an optional zone (`%eth0`)."""
    group = "[0-9A-Fa-f]{1,4}"
    forms = []
    for units, tail in ((8, ""), (6, IPV4)):
        end = f":{tail}" if tail else ""
        forms.append(f"(?:{group}:){{{units - 1}}}{group}{end}")
        for left in range(units):
            head = f"{group}(?::{group}){{{left - 1}}}" if left else ""
            room = units - 1 - left  # groups the right side may hold
            if tail:
                right = f"(?:{group}:){{0,{room}}}{tail}" if room else tail
            else:
                right = f"(?:{group}(?::{group}){{0,{room - 1}}})?" if room else ""
            forms.append(f"{head}::{right}")
    return "(?:" + "|".join(forms) + r")(?:%[^%\s\x00-\x1f\x7f-\x9f]+)?"


IPV6 = _ipv6()
_HOST_NAME = rf"(?:{_LABEL}\.)+{_TLD}"
# 0 to 65535 (leading zeros allowed, as urlsplit reads them), or nothing after the colon.
_PORT_NUMBER = (
    r"0*(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?"
)


def _url_pattern(schemes: tuple[str, ...], *hosts: str) -> str:
    scheme = "|".join("".join(f"[{c.upper()}{c.lower()}]" for c in name) for name in schemes)
    host = "|".join([_HOST_NAME, IPV4, rf"\[{IPV6}\]", *hosts])
    rest = r"[^\s\x00-\x1f\x7f-\x9f]*"
    return rf"(?:{scheme})://(?:{host})(?::{_PORT_NUMBER})?(?:[/?#]{rest})?"


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

    def shape(self) -> Shape:
        return Shape(rf"{_EMAIL_LOCAL}@{_HOST_NAME}", self.min, self.max)

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
        if CONTROL_CHARACTERS.search(text):  # an IPv6 scope id may hold anything else
            raise self.error()
        if len(text) > self.max:
            raise self.error()
        try:
            ipaddress.ip_address(text)
        except ValueError:
            raise self.error() from None
        return text

    def describe(self) -> str:
        return f"an IPv4 or IPv6 address (up to {self.max} characters)"

    def shape(self) -> Shape:
        return Shape(f"{IPV4}|{IPV6}", None, self.max)

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
        if len(text) > self.max or re.search(r"\s", text) or CONTROL_CHARACTERS.search(text):
            raise self.error()
        parts = _split(text)
        if parts is None:
            raise self.error()
        host = parts.hostname or ""
        if parts.scheme.lower() not in self.schemes or not host:
            raise self.error()
        if not (_is_ip(host) or _ascii_host(host)):
            raise self.error()
        return text

    def describe(self) -> str:
        return f"an absolute {' or '.join(self.schemes)} URL of up to {self.max} characters"

    def shape(self) -> Shape:
        return Shape(_url_pattern(self.schemes), None, self.max)

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


def _split(text: str) -> SplitResult | None:
    """The URL's parts, or None when its port is not a number of ASCII digits."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if not _PORT.fullmatch(parts.netloc.rpartition("@")[2]):  # int() takes any script's digits
        return None
    return parts


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


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
        if len(text) > self.max or re.search(r"\s", text) or CONTROL_CHARACTERS.search(text):
            return False
        parts = _split(text)
        if parts is None:
            return False
        return parts.scheme.lower() in self.schemes and (parts.hostname or "") == "localhost"

    def describe(self) -> str:
        return super().describe() + " (localhost allowed)"

    def shape(self) -> Shape:
        return Shape(_url_pattern(self.schemes, "localhost"), None, self.max)

    def valid(self) -> str:
        return "https://shop.example.com/checkout/result"

    def invalid(self) -> list[str]:
        return [*super().invalid(), "http://localhost:99999/x", "http://localhostx/"]
