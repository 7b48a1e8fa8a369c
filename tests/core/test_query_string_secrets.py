"""Card data and secrets in the URL (issue 9, item 10): refused in the query string of every API
request, without echoing the value; Django's request logging keeps paths without query strings."""

import logging
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings
from django.test import Client

from payments.models import Payment
from tests.conftest import code
from tests.payments.conftest import VISA, card, mtid

SECRETS = {
    "card.number": VISA,
    "card.cvv": "123",
    "card.expiryMonth": "12",
    "card[number]": VISA,
    "card.pin": "1234",
    "merchant.token": "s3cr3t-token-value",
    "password": "hunter2-password",
    "customParameters[accessToken]": "tok-value-1",
    "newPIN": "9876",
}


def _payment(merchant) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        "paymentType": "DB",
        "merchant.id": merchant.merchant_id,
        "merchantTransactionId": mtid(),
        "amount": "10.00",
        "currency": "EUR",
        **card(),
    }


@pytest.mark.parametrize(("name", "value"), SECRETS.items())
def test_a_secret_in_the_query_string_of_a_payment_is_refused(merchant_api, merchant, name, value):
    query = urlencode({name: value})
    response = merchant_api.post(f"/pay/v3/payments?{query}", _payment(merchant), mtid=False)
    assert response.status_code == 400
    assert code(response) == "200.300.404"
    (error,) = response.json()["result"]["parameterErrors"]
    assert error["name"] == name and error["value"] == "***"
    assert "query string" in error["message"]
    if len(value) > 4:  # a short value may occur in the answer's random ids
        assert value not in response.content.decode()
    assert not Payment.objects.exists()


def test_both_card_fields_are_named(merchant_api, merchant):
    query = urlencode({"card.number": VISA, "card.cvv": "123", "note": "fine"})
    response = merchant_api.post(f"/pay/v3/payments?{query}", _payment(merchant), mtid=False)
    names = [e["name"] for e in response.json()["result"]["parameterErrors"]]
    assert response.status_code == 400 and names == ["card.number", "card.cvv"]


@pytest.mark.parametrize(
    "path",
    [
        "/pay/v3/merchant/Inquiry",
        "/pay/v3/payments/" + "0" * 32,
        "/pay/v3/merchant/create",
        "/pay/v3/nothing-here",
        "/issuer/v1/authentication/StartOOBAuthen",
        "/v3/exchangerate/create",
        "/merch-web/download/getReport",
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_every_api_path_refuses_secrets_in_the_query(db, path, method):
    """Even before authentication: the request is refused before anything reads it."""
    response = getattr(Client(), method)(f"{path}?card.number={VISA}&card.cvv=123")
    assert response.status_code == 400
    assert code(response) == "200.300.404"
    assert VISA not in response.content.decode()


def test_ordinary_query_parameters_still_work(merchant_api, merchant):
    response = merchant_api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert response.status_code == 200


# --- Logging ---------------------------------------------------------------------------------


def test_django_request_loggers_are_wired_to_drop_query_strings():
    for name in ("django.server", "django.request"):
        assert "no_query_string" in settings.LOGGING["loggers"][name]["filters"]
    assert settings.LOGGING["filters"]["no_query_string"]["()"] == "core.logging.NoQueryString"


def test_the_development_server_access_line_has_no_query_string(caplog):
    line = f"POST /pay/v3/payments?card.number={VISA}&card.cvv=123 HTTP/1.1"
    with caplog.at_level(logging.INFO, logger="django.server"):
        logging.getLogger("django.server").info('"%s" %s %s', line, "400", "312")
    (record,) = [r for r in caplog.records if r.name == "django.server"]
    assert record.getMessage() == '"POST /pay/v3/payments HTTP/1.1" 400 312'
    assert VISA not in caplog.text


def test_django_request_lines_have_no_query_string(caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        logging.getLogger("django.request").warning(
            "Bad Request: %s", f"/pay/v3/payments?card.number={quote(VISA)}"
        )
    assert VISA not in caplog.text and "Bad Request: /pay/v3/payments" in caplog.text
