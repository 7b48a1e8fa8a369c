"""Outbound HTTP to addresses that others chose: a merchant's notification URL, a webhook, a
requestor's jwks_uri. One client for all of them, so that none can be steered inside the bank's
network (docs/operations.md, "Outbound calls"):

- A URL is read as the HTTP client will send it (requests' own `prepare_url`: IDNA, then
  urllib3's parser) and refused when it carries userinfo (`https://127.0.0.1%2f@example.com/`
  would go to example.com with a Basic header), when its host is not a plain name or IP address
  (percent-encoded or escaped separators, an IPv6 zone), or when Python's own parser reads
  another host out of it. `url_problem` says why; it is what the forms, the API and the admin
  check when the URL is saved, and what `post_json`/`get` check again before each call.
- Redirects are never followed: a 3xx is answered to the caller as `Answer(redirected=True)`,
  which the outbox records as a failed attempt (the merchant's bearer token must never reach a
  host the merchant did not name).
- Outside local testing (`NOTIFICATION_ALLOW_INSECURE_URLS`, by default DEBUG) only https, and
  the host is resolved at call time, once: requests-hardened's adapter connects to the address
  it resolved (no second lookup) while TLS still verifies the certificate for the host name and
  sends it as SNI. That address must be global: loopback, private, link-local, shared (CGNAT),
  multicast and reserved ranges are refused, in IPv4 and IPv6, IPv4-mapped forms unwrapped.
- No proxy or `.netrc` from the environment (`trust_env` off): neither may add a credential or
  a hop the platform does not choose.
"""

import ipaddress
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import idna
import requests
from django.conf import settings
from requests_hardened import Config
from requests_hardened.client import HTTPSession
from requests_hardened.ip_filter import InvalidIPAddress
from requests_hardened.ip_filter_adapter import IPFilterAdapter

# A host name as a resolver takes it: ASCII letters, digits, hyphens and dots (IDNA applied).
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
LOCAL_NAME_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")


class Refused(Exception):
    """The call was not made: the URL or the address it resolved to is not allowed. The
    message says why (for the log and the delivery's record; it holds no secret)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    location: str = ""  # the Location of a redirect that was not followed

    @property
    def redirected(self) -> bool:
        return 300 <= self.status < 400


def allow_insecure() -> bool:
    return bool(settings.NOTIFICATION_ALLOW_INSECURE_URLS)


def url_problem(url: str, *, insecure: bool | None = None) -> str:
    """Why the platform may not call `url`, or "". `insecure` (by default the setting) allows
    plain http and hosts that are local names or non-global IP literals; userinfo and hosts
    that parsers read differently are refused always. Names are not resolved here."""
    insecure = allow_insecure() if insecure is None else insecure
    try:
        prepared = requests.PreparedRequest()
        prepared.prepare_url(url, None)
        sent = requests.compat.urlparse(prepared.url)  # what the client will send
        python = urlsplit(url)
        python.port  # noqa: B018 - raises ValueError on a bad port
        sent.port  # noqa: B018
    except (requests.RequestException, ValueError, UnicodeError):
        return "must be an absolute http or https URL"
    scheme = str(sent.scheme or "").lower()
    if scheme not in ("http", "https"):
        return "must be an absolute http or https URL"
    if "@" in python.netloc or "@" in sent.netloc or sent.username or python.username:
        return "must not carry a user name or password"
    host = str(sent.hostname or "").lower()
    if not host:
        return "must name a host"
    address = _ip(host)
    last_label = host.rstrip(".").rsplit(".", 1)[-1]
    if address is None and (not _HOST_NAME.fullmatch(host) or _NUMERIC_LABEL.fullmatch(last_label)):
        # A last label of digits or hex is an IPv4 address in another notation (2130706433,
        # 0x7f.1), which resolvers read as one: not a name.
        return "must name a host by a plain name or IP address"
    if _idna(python.hostname or "") != host:
        return "must name a host by a plain name or IP address"
    if insecure:
        return ""
    if scheme != "https":
        return "must be an https URL"
    if host.rstrip(".") == "localhost" or host.rstrip(".").endswith(LOCAL_NAME_SUFFIXES):
        return "must name a public host (not localhost or a local name)"
    if address is not None and not is_public(address):
        return "must name a public host (not a loopback, private or reserved address)"
    return ""


def _idna(host: str) -> str:
    """A host as requests sends it (the idna package, UTS 46), "" when it has no such form."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:
        return ""


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally routable unicast address (an IPv4-mapped IPv6 address judged as its IPv4)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        elif address.sixtofour is not None or address.teredo is not None:
            return False  # tunnels to an IPv4 address of the sender's choosing
    return address.is_global and not (address.is_multicast or address.is_reserved)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


class _PublicOnlyAdapter(IPFilterAdapter):
    """requests-hardened's adapter (resolve once, connect to that address, TLS and SNI for the
    name), with the address held to `is_public`: the library refuses private, loopback,
    multicast and a list of special ranges; this adds whatever else is not global (reserved,
    IPv4-compatible, 6to4 and Teredo forms)."""

    def build_connection_pool_key_attributes(self, request, verify, cert=None):  # type: ignore[no-untyped-def]
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        address = _ip(host_params["host"])
        if address is None or not is_public(address):
            raise InvalidIPAddress(host_params["host"])
        return host_params, pool_kwargs


def _session(*, insecure: bool) -> requests.Session:
    config = Config(
        ip_filter_enable=False,  # the adapters are mounted below
        ip_filter_allow_loopback_ips=False,
        never_redirect=True,
        default_timeout=(2.0, 5.0),
    )
    session = HTTPSession(config)
    session.trust_env = False
    if not insecure:
        for scheme in ("http://", "https://"):
            # Loopback passes the library's filter to be judged by is_public, the one policy.
            adapter = _PublicOnlyAdapter(is_https_proto=scheme == "https://", allow_loopback=True)
            session.mount(scheme, adapter)
    session.verify = settings.OUTBOUND_CA_BUNDLE or True
    return session


def call(
    method: str,
    url: str,
    *,
    timeout: float | tuple[float, float],
    headers: dict[str, str] | None = None,
    json: Any = None,
    data: bytes | None = None,
    max_bytes: int = 65536,
) -> Answer:
    """One request, no redirect followed. Refused when the URL or the address it resolves to
    is not allowed; requests' errors (timeouts, refused connections, TLS) pass through. The
    answer's body is read up to `max_bytes` + 1 bytes."""
    insecure = allow_insecure()
    problem = url_problem(url, insecure=insecure)
    if problem:
        raise Refused(f"the URL {problem}")
    with _session(insecure=insecure) as session:
        try:
            with session.request(
                method,
                url,
                headers=headers,
                json=json,
                data=data,
                timeout=timeout,
                allow_redirects=False,
                stream=True,
            ) as response:
                body = response.raw.read(max_bytes + 1, decode_content=True) or b""
                return Answer(response.status_code, body, response.headers.get("Location", ""))
        except InvalidIPAddress as exc:
            raise Refused(f"its host resolves to {exc}, which is not a public address") from exc
