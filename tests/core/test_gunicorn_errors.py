"""What is refused before any view answers in JSON (issue 32): gunicorn's own 414 (request line
too long), 431 (too many or too large headers) and 400 (an unparsable request) carry the API's
envelope and RFC 6749's error members (gunicorn has not read the path: config/gunicorn_errors.py);
a Host not in ALLOWED_HOSTS is the envelope's 400 under the API's prefixes, RFC 6749's error
object under /oauth2/, and Django's page elsewhere. Nothing of the request is echoed."""

import http.client
import json
import logging
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.test_gunicorn_instances import gunicorn, host_env

PAN = "4111111111111111"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        with gunicorn(host_env(tmp), tmp / "gunicorn.log") as (bound, _):
            yield bound


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def assert_refusal_in_json(status: int, headers: dict[str, str], body: bytes, expected: int):  # type: ignore[no-untyped-def]
    assert status == expected
    assert headers["content-type"] == "application/json"
    data = json.loads(body)
    assert data["result"]["code"] == "200.100.101"
    assert {"id", "buildNumber", "timestamp", "ndc"} <= set(data)
    assert data["error"] == "invalid_request" and data["error_description"]
    assert PAN.encode() not in body


def test_a_request_line_too_long_is_414_in_json(port: int) -> None:
    path = f"/pay/v3/payments/{PAN}?" + "x" * 5000
    answer = exchange(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    assert_refusal_in_json(*answer, expected=414)


@pytest.mark.parametrize(
    "headers",
    ["X-Big: " + "a" * 9000 + "\r\n", "".join(f"X-H{i}: v\r\n" for i in range(120))],
    ids=["a header too large", "too many headers"],
)
def test_headers_too_large_are_431_in_json(port: int, headers: str) -> None:
    raw = f"GET /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode()
    assert_refusal_in_json(*exchange(port, raw), expected=431)


def test_an_unparsable_request_is_400_in_json_and_echoes_nothing(port: int) -> None:
    raw = f"GET /pay/v3/payments/{PAN} HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n".encode()
    assert_refusal_in_json(*exchange(port, raw), expected=400)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/pay/v3/merchant/Inquiry", "envelope"),
        ("/issuer/v1/card/Activation", "envelope"),
        ("/oauth2/token", "oauth"),
        ("/portal/login/", "html"),
    ],
)
def test_a_bad_host_through_gunicorn(port: int, path: str, kind: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", "evil.example")
        conn.endheaders()
        answer = conn.getresponse()
        status, body = answer.status, answer.read()
        headers = {k.lower(): v for k, v in answer.getheaders()}
    finally:
        conn.close()
    assert status == 400
    if kind == "html":
        assert headers["content-type"].startswith("text/html")
        return
    assert headers["content-type"] == "application/json"
    data = json.loads(body)
    if kind == "envelope":
        assert data["result"]["code"] == "200.100.101" and "ndc" in data
    else:
        assert data == {
            "error": "invalid_request",
            "error_description": "the request is not accepted (its Host or form)",
        }


@pytest.mark.django_db
def test_a_bad_host_in_django(client, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.ERROR, logger="django.security"):
        api = client.get("/pay/v3/merchant/Inquiry", HTTP_HOST="evil.example")
        oauth = client.post("/oauth2/token", HTTP_HOST="evil.example")
        page = client.get("/portal/login/", HTTP_HOST="evil.example")
    assert api.status_code == 400 and api.json()["result"]["code"] == "200.100.101"
    assert oauth.status_code == 400 and oauth.json()["error"] == "invalid_request"
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")
