"""A database out of reach answers the envelope's 503 with 800.800.800 and `Retry-After`, on
every path and wherever the error surfaces (a DRF view, a view outside DRF, a middleware before
any view), never a traceback or the 500. The outage itself, under load through a proxy the test
cuts, is tests/faults/test_database_outage.py (PostgreSQL)."""

import logging

import pytest
from django.db import InterfaceError, OperationalError

from core.errors import DATABASE_RETRY_AFTER_SECONDS
from tests.conftest import code

pytestmark = pytest.mark.django_db
REFUSED = 'connection to server at "127.0.0.1", port 5432 failed: Connection refused'


def assert_unavailable(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert code(response) == "800.800.800"
    assert "retry" in response.json()["result"]["description"]
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    assert response.json()["ndc"] == response["X-Request-Id"]
    # Nothing internal (the request id is random hex: it may hold "5432" by chance).
    shown = response.content.decode().replace(response["X-Request-Id"], "")
    assert "port 5432" not in shown and "127.0.0.1" not in shown


@pytest.mark.parametrize("error", [OperationalError(REFUSED), InterfaceError("connection closed")])
def test_an_api_call_answers_503_when_the_database_is_out_of_reach(
    api, merchant, monkeypatch, caplog, error
):
    from merchants import selectors

    def unreachable(**kwargs):  # type: ignore[no-untyped-def]
        raise error

    monkeypatch.setattr(selectors, "merchant_get", unreachable)
    with caplog.at_level(logging.WARNING, logger="core.errors"):
        response = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert_unavailable(response)
    [line] = [r for r in caplog.records if r.name == "core.errors"]
    assert line.levelno == logging.WARNING and not line.exc_info  # one line, no traceback
    assert type(error).__name__ in line.getMessage()


def test_authentication_itself_answers_503(api, merchant, monkeypatch):
    from core import auth

    class Down:
        def by_token(self, token):  # type: ignore[no-untyped-def]
            raise OperationalError(REFUSED)

    monkeypatch.setattr(auth, "directory", lambda: Down())
    assert_unavailable(api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id}))


def test_a_view_outside_drf_answers_503_in_debug_too(client, settings, monkeypatch):
    from core import views

    def unreachable(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError(REFUSED)

    settings.DEBUG = True  # Django would answer its traceback page
    monkeypatch.setattr(views, "render", unreachable)
    assert_unavailable(client.get("/"))


def test_a_middleware_before_any_view_answers_503(client, monkeypatch):
    from django.contrib.sessions.middleware import SessionMiddleware

    def unreachable(self, request):  # type: ignore[no-untyped-def]
        raise OperationalError(REFUSED)

    monkeypatch.setattr(SessionMiddleware, "process_request", unreachable)
    client.raise_request_exception = False  # as a server: handler500 answers
    assert_unavailable(client.get("/portal/"))


def test_another_error_stays_the_500(client, monkeypatch):
    from django.contrib.sessions.middleware import SessionMiddleware

    def broken(self, request):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    monkeypatch.setattr(SessionMiddleware, "process_request", broken)
    client.raise_request_exception = False
    response = client.get("/portal/")
    assert response.status_code == 500 and code(response) == "999.999.999"
