"""Outbound calls cannot be steered inside the bank's network (issue 32): a notification or a
requestor's jwks_uri that answers with a redirect is a failed attempt and the bearer token never
reaches the redirect's target; a host name is resolved when the call is made, once, and an
address that is not public is refused (the machine has no DNS: the resolver is patched); the
call goes to the address that was checked while TLS verifies the certificate for the host name
and sends it as SNI; URLs are read as the HTTP client reads them, userinfo refused."""

import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import trustme
import urllib3.util.connection
from django.core.exceptions import ValidationError

from core import outbound, outbox
from core.models import DeliveryAttempt, OutboxMessage
from issuer.protocol import requestors
from merchants.services import notification_test
from tests.conftest import param_errors

pytestmark = pytest.mark.django_db

HOST = "hooks.shop.example"


class Server:
    """A loopback HTTP(S) server that records each request (path, headers, the TLS SNI) and
    answers `status` with `headers`."""

    def __init__(self, *, status: int = 200, headers: dict[str, str] | None = None, tls=None):
        self.status = status
        self.headers = headers or {}
        self.requests: list[dict[str, Any]] = []
        self.sni: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.requests.append({"path": self.path, "headers": dict(self.headers)})
                self.send_response(server.status)
                for name, value in server.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.scheme = "http" if tls is None else "https"
        if tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            tls.configure_cert(context)
            context.sni_callback = lambda sock, name, ctx: self.sni.append(name)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def url(self, path: str = "/notifications", *, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.close()


def start(servers: list[Server], **kwargs: Any) -> Server:
    server = Server(**kwargs)
    servers.append(server)
    return server


class Resolver:
    """socket.getaddrinfo with names of the test's own: each name answers its addresses in turn
    (the last one again after that); every other name goes to the real resolver."""

    def __init__(self, monkeypatch, names: dict[str, list[str]]):  # type: ignore[no-untyped-def]
        self.names = {name: list(addresses) for name, addresses in names.items()}
        self.asked: list[str] = []
        real = socket.getaddrinfo

        def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # type: ignore[no-untyped-def]  # noqa: A002
            name = host.decode() if isinstance(host, bytes) else host
            if name not in self.names:
                return real(host, port, family, type, proto, flags)
            self.asked.append(name)
            answers = self.names[name]
            address = answers.pop(0) if len(answers) > 1 else answers[0]
            kind = socket.AF_INET6 if ":" in address else socket.AF_INET
            where = (
                (address, int(port or 0), 0, 0)
                if kind == socket.AF_INET6
                else (address, int(port or 0))
            )
            return [(kind, socket.SOCK_STREAM, 6, "", where)]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def deliver_test_notification(
    merchant, url: str, django_capture_on_commit_callbacks
) -> DeliveryAttempt:  # type: ignore[no-untyped-def]
    merchant.notification_url = url
    merchant.save()
    outbox.register_dispatcher(lambda *a, **k: None)  # delivered below, by hand
    with django_capture_on_commit_callbacks(execute=True):
        event_id = notification_test(merchant=merchant)
    outbox.deliver(event_id)
    return OutboxMessage.objects.get(pk=event_id).deliveries.get()


@pytest.fixture(autouse=True)
def _dispatcher_back():  # type: ignore[no-untyped-def]
    kept = outbox._dispatcher
    yield
    outbox._dispatcher = kept


# --- Redirects ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_a_failed_attempt_and_its_target_sees_nothing(
    merchant, servers, settings, django_capture_on_commit_callbacks, status, caplog
):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True  # the receiver is on loopback
    internal = start(servers)
    receiver = start(servers, status=status, headers={"Location": internal.url("/internal-admin")})
    attempt = deliver_test_notification(
        merchant, receiver.url(), django_capture_on_commit_callbacks
    )

    assert len(receiver.requests) == 1
    assert internal.requests == []  # never followed, so the token never went there
    assert attempt.http_status == status
    assert attempt.error == f"redirect to 127.0.0.1:{internal.port} not followed"
    message = attempt.message
    assert (message.status, message.attempts) == ("PENDING", 1)  # retried later, not delivered
    assert f"HTTP {status} redirect to 127.0.0.1:{internal.port} not followed" in caplog.text


def test_a_jwks_uri_that_redirects_is_unavailable(servers, settings):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    internal = start(servers)
    jwks = start(servers, status=302, headers={"Location": internal.url("/jwks.json")})
    with pytest.raises(requestors.JwksUnavailable, match="HTTP 302"):
        requestors.jwks_fetch(jwks.url("/jwks.json"))
    assert internal.requests == []


# --- The address, resolved at call time -----------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "169.254.169.254", "100.64.0.1", "224.0.0.1", "240.0.0.1",
     "::1", "::ffff:127.0.0.1", "fe80::1", "fc00::1", "::7f00:1", "2002:7f00:1::1"],
)  # fmt: skip
def test_a_name_that_resolves_to_a_non_public_address_is_refused_at_delivery(
    merchant, servers, settings, monkeypatch, django_capture_on_commit_callbacks, address
):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    receiver = start(servers)
    resolver = Resolver(monkeypatch, {HOST: [address]})
    attempt = deliver_test_notification(
        merchant, f"https://{HOST}:{receiver.port}/n", django_capture_on_commit_callbacks
    )
    assert receiver.requests == []
    assert attempt.http_status is None
    assert attempt.error.startswith("refused: its host resolves to")
    assert "not a public address" in attempt.error
    assert resolver.asked == [HOST]


def test_the_call_goes_to_the_address_that_was_checked(
    merchant, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """A resolver that answers a public address and then loopback (DNS rebinding): the name is
    looked up once, and the connection is made to the public address that was checked."""
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    resolver = Resolver(monkeypatch, {HOST: ["93.184.216.34", "127.0.0.1"]})
    connected: list[tuple[str, int]] = []

    def create_connection(address, *args, **kwargs):  # type: ignore[no-untyped-def]
        connected.append(address)
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(urllib3.util.connection, "create_connection", create_connection)
    attempt = deliver_test_notification(
        merchant, f"https://{HOST}/n", django_capture_on_commit_callbacks
    )
    assert resolver.asked == [HOST]
    assert connected == [("93.184.216.34", 443)]
    assert attempt.error == "connection failed: Network is unreachable"


def test_tls_verifies_the_host_name_and_sends_it_as_sni(
    merchant, servers, settings, monkeypatch, django_capture_on_commit_callbacks, tmp_path
):
    """The pinned connection still speaks TLS to the name: the receiver's certificate is for
    the name (a CA of the test's own, OUTBOUND_CA_BUNDLE), SNI and Host carry it; a certificate
    for another name fails the attempt. (127.0.0.1 stands in for a public address here.)"""
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    settings.OUTBOUND_CA_BUNDLE = str(ca_file)
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    monkeypatch.setattr(outbound, "is_public", lambda address: str(address) == "127.0.0.1")
    Resolver(monkeypatch, {HOST: ["127.0.0.1"], "other.shop.example": ["127.0.0.1"]})

    receiver = start(servers, tls=ca.issue_cert(HOST))
    attempt = deliver_test_notification(
        merchant, f"https://{HOST}:{receiver.port}/n", django_capture_on_commit_callbacks
    )
    assert attempt.http_status == 200, attempt.error
    assert receiver.sni == [HOST]
    assert receiver.requests[0]["headers"]["Host"] == f"{HOST}:{receiver.port}"

    wrong = start(servers, tls=ca.issue_cert("other.shop.example"))
    attempt = deliver_test_notification(
        merchant, f"https://{HOST}:{wrong.port}/n", django_capture_on_commit_callbacks
    )
    assert attempt.http_status is None and wrong.requests == []
    assert attempt.error.startswith("TLS handshake failed")


def test_a_stored_url_is_checked_again_at_delivery(
    merchant, servers, settings, django_capture_on_commit_callbacks
):
    """A URL saved before these rules (or while local testing allowed it) is not called."""
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    receiver = start(servers)
    merchant.notification_url = receiver.url()
    merchant.save()
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    attempt = deliver_test_notification(
        merchant, receiver.url(), django_capture_on_commit_callbacks
    )
    assert receiver.requests == []
    assert attempt.error == "refused: the URL must be an https URL"


def test_a_jwks_uri_that_resolves_to_loopback_is_refused(settings, monkeypatch):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    Resolver(monkeypatch, {"keys.requestor.example": ["127.0.0.1"]})
    with pytest.raises(requestors.JwksUnavailable, match="not a public address"):
        requestors.jwks_fetch("https://keys.requestor.example/jwks.json")


# --- URLs, read as the client reads them ----------------------------------------------------------

REFUSED_EVERYWHERE = [
    ("https://127.0.0.1%2f@example.com/", "must not carry a user name or password"),
    ("https://user:secret@shop.example.com/n", "must not carry a user name or password"),
    ("https://shop.example.com\\@evil.example/", "must not carry a user name or password"),
    ("https://exa%2fmple.com/n", "must name a host by a plain name or IP address"),
    ("https://evil.example\\.shop.example.com/", "must name a host by a plain name or IP address"),
    ("https://2130706433/n", "must name a host by a plain name or IP address"),
    ("https://0x7f.1/n", "must name a host by a plain name or IP address"),
    ("https://127.1/n", "must name a host by a plain name or IP address"),
]
REFUSED_IN_PRODUCTION = [
    ("http://shop.example.com/n", "must be an https URL"),
    ("https://localhost/n", "must name a public host (not localhost or a local name)"),
    ("https://hooks.internal/n", "must name a public host (not localhost or a local name)"),
    ("https://[::ffff:127.0.0.1]/n", "must name a public host"),
    ("https://[::ffff:10.0.0.1]/n", "must name a public host"),
    ("https://169.254.169.254/latest", "must name a public host"),
    ("https://100.64.0.1/n", "must name a public host"),
    ("https://[fe80::1]/n", "must name a public host"),
    ("https://[::7f00:1]/n", "must name a public host"),
    ("https://240.0.0.1/n", "must name a public host"),
]
ACCEPTED = [
    "https://shop.example.com/hooks?x=1",
    "https://bücher.example/hooks",  # IDNA: sent as xn--bcher-kva.example
    "https://xn--bcher-kva.example/hooks",
    "https://93.184.216.34/n",
    "https://[2606:2800:220:1::248]/n",
]


@pytest.mark.parametrize(("url", "problem"), REFUSED_EVERYWHERE + REFUSED_IN_PRODUCTION)
def test_url_problems_in_production(url, problem):
    assert outbound.url_problem(url, insecure=False).startswith(problem)


@pytest.mark.parametrize(("url", "problem"), REFUSED_EVERYWHERE)
def test_userinfo_and_ambiguous_hosts_are_refused_in_local_testing_too(url, problem):
    assert outbound.url_problem(url, insecure=True) == problem


@pytest.mark.parametrize("url", ACCEPTED)
def test_public_https_urls_are_accepted(url):
    assert outbound.url_problem(url, insecure=False) == ""


@pytest.mark.parametrize(("url", "problem"), REFUSED_EVERYWHERE[:3])
def test_the_api_refuses_a_notification_url_with_userinfo(api, merchant, settings, url, problem):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    response = api.post(
        "/pay/v3/merchant/update/",
        {"merchant.id": merchant.merchant_id, "merchant.notificationUrl": url},
    )
    assert response.status_code == 400
    assert problem in param_errors(response)["merchant.notificationUrl"]
    merchant.refresh_from_db()
    assert merchant.notification_url == ""


def test_a_jwks_uri_with_userinfo_is_refused():
    with pytest.raises(ValidationError, match="must not carry a user name"):
        requestors.jwks_uri_validate("https://127.0.0.1%2f@requestor.example/jwks.json")
