"""A NUL byte (or another control character) in a value that would reach a database look-up
(issue 9, item 8) is refused before the look-up: PostgreSQL cannot hold NUL in text and raised
an error that answered 500. Run on PostgreSQL to see the 500s these tests guard against.

Ids in the path of the 3-D Secure pages must be 32 lowercase hexadecimal digits (a path
converter): any other id cannot exist and is "not found", the same 404 as an unknown id. The
cardholder page answers its own "not found" page for a malformed link, as for a wrong one. The
API answers 400 naming the parameter."""

import pytest
from django.test import Client, override_settings

from tests.conftest import SpecClient, code, param_errors
from tests.payments.conftest import Payer

BAD_IDS = ["abc%00", "abc%00def", "%00" * 32, "A" * 32, "0" * 31, "0" * 33, "0" * 31 + "%0A"]
THREEDS_PAGES = [
    ("get", "/threeds/{}/start"),
    ("post", "/threeds/{}/start"),
    ("post", "/threeds/{}/continue"),
    ("post", "/threeds/acs/{}/method"),
    ("post", "/threeds/acs/{}/challenge"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("bad", BAD_IDS)
@pytest.mark.parametrize(("method", "path"), THREEDS_PAGES)
def test_a_malformed_3ds_id_is_not_found(method, path, bad, debug):
    client = Client(raise_request_exception=False)
    with override_settings(DEBUG=debug):
        malformed = getattr(client, method)(path.format(bad), {"nonce": "x\x00"})
        unknown = getattr(client, method)(path.format("0" * 32), {"nonce": "x"})
    assert malformed.status_code == 404
    if not debug:
        assert malformed.json()["result"]["code"] == "700.100.199"
    if path != "/threeds/acs/{}/method":  # the method page does not look its id up
        assert unknown.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/issuer/oob/abc%00/secret",
        "/issuer/oob/" + "0" * 31 + "%00/secret",
        "/issuer/oob/" + "0" * 32 + "/sec%00ret",
        "/issuer/oob/" + "%00" * 32 + "/secret",
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_malformed_cardholder_link_is_the_not_found_page(path, method):
    response = getattr(Client(raise_request_exception=False), method)(path, {"decision": "approve"})
    assert response.status_code == 404
    assert "This link is not valid" in response.content.decode()


@pytest.mark.parametrize("payment_id", ["abc%00def", "%00" * 32, "0" * 31 + "%00", "a-b"])
def test_a_malformed_payment_id_in_the_path_is_400(merchant_api, merchant, payment_id):
    client = merchant_api.client
    client.raise_request_exception = False
    response = merchant_api.get(f"/pay/v3/payments/{payment_id}")
    assert response.status_code == 400, response.content
    assert code(response) == "200.300.404" and "id" in param_errors(response)
    response = Payer(merchant_api, merchant).ref("CP", payment_id, "1.00")
    assert response.status_code == 400, response.content
    assert code(response) == "200.300.404" and "id" in param_errors(response)


def test_a_nul_in_the_original_transaction_id_is_400(merchant_api, merchant):
    merchant_api.client.raise_request_exception = False
    response = Payer(merchant_api, merchant).ref("CP", "0" * 31 + "\x00", "1.00", path=False)
    assert response.status_code == 400
    assert "originalTransactionId" in param_errors(response)


@pytest.mark.parametrize("terminal_id", ["T\x00", "T\x00" + "1" * 5, "\x00"])
def test_a_nul_in_the_pos_terminal_id_is_400_before_the_look_up(
    merchant_api, merchant, terminal, terminal_id
):
    pos = SpecClient(merchant_api.token, merchant_api.entity_id, "POS")
    pos.client.raise_request_exception = False
    response = pos.get(
        "/pay/v3/terminal/Inquiry",
        {"merchant.id": merchant.merchant_id, "pos.terminalId": terminal_id},
    )
    assert response.status_code == 400, response.content
    assert code(response) == "200.300.404" and "pos.terminalId" in param_errors(response)
    response = Payer(pos, merchant).pay("DB", **{"pos.terminalId": terminal_id})
    assert response.status_code == 400, response.content
    assert "pos.terminalId" in param_errors(response)


def test_nul_bytes_without_a_token_are_401_not_500(db):
    client = Client(raise_request_exception=False)
    assert client.get("/pay/v3/payments/abc%00def").status_code == 401
    response = client.post("/pay/v3/payments", {"entityId": "AB\x00", "pos.terminalId": "T\x00"})
    assert response.status_code == 401
