"""gunicorn's access log keeps paths only: no query strings (card data sent there by mistake is
not kept), no secret links, no Authorization or Cookie header."""

import datetime
from types import SimpleNamespace

import pytest
from django.db import connection
from gunicorn.config import Config

from bench._server import gunicorn, post_form
from config.gunicorn_logging import AccessLogger
from core.redaction import safe_path
from tests.conftest import url_of_test_database

PAN, CVV = "4200000000000000", "123"


def atoms(raw_uri: str, **headers: str) -> dict:
    logger = AccessLogger(Config())
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": raw_uri,
        "PATH_INFO": raw_uri.split("?")[0],
        "QUERY_STRING": raw_uri.partition("?")[2],
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        **{f"HTTP_{k.upper()}": v for k, v in headers.items()},
    }
    request = SimpleNamespace(headers=[(k.upper(), v) for k, v in headers.items()])
    response = SimpleNamespace(status="200 OK", sent=10, headers=[])
    return logger.atoms(response, request, environ, datetime.timedelta(milliseconds=5))


def test_the_request_line_keeps_the_path_only():
    logged = atoms(f"/pay/v3/payments?card.number={PAN}&card.cvv={CVV}")
    assert logged["r"] == "POST /pay/v3/payments HTTP/1.1"
    assert logged["q"] == "" and logged["U"] == "/pay/v3/payments"
    assert PAN not in repr(logged) and f"cvv={CVV}" not in repr(logged)


def test_secret_links_credentials_and_referrers_are_masked():
    secret = "pOTxx9x1t5riArjEfYYkwcHpwlNNMNyy-RfmwqWS4u4"
    logged = atoms(
        f"/issuer/oob/6f33f1ce25be4d4e873ef4b5878f722a/{secret}",
        authorization="Bearer tok",
        cookie="sessionid=abc",
        referer=f"https://shop.example/pay?card.number={PAN}",
    )
    assert logged["r"] == "POST /issuer/oob/6f33f1ce25be4d4e873ef4b5878f722a/*** HTTP/1.1"
    assert logged["f"] == "https://shop.example/pay"
    assert secret not in repr(logged) and "Bearer tok" not in repr(logged)
    assert "sessionid" not in repr(logged) and PAN not in repr(logged)


def test_safe_path():
    assert safe_path("/a/b?x=1") == "/a/b"
    assert safe_path("/issuer/oob/id/secret") == "/issuer/oob/id/***"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_gunicorn_access_line(tmp_path, server_keys):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the server reads the test database")
    log = tmp_path / "gunicorn.log"
    with gunicorn(
        database_url=url_of_test_database(),
        workers=1,
        log_path=log,
        env=server_keys,
        access_log=True,
    ) as server:
        post_form(server.port, f"/pay/v3/payments?card.number={PAN}&card.cvv={CVV}", {}, "x")
    text = log.read_text()
    assert '"POST /pay/v3/payments HTTP/1.1"' in text, text[-2000:]
    assert PAN not in text and f"cvv={CVV}" not in text
