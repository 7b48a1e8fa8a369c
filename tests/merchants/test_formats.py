"""Every field's format rule of the merchant and terminal tables, generated from the tables."""

import itertools

import pytest

from merchants.api.tables import (
    MERCHANT_3DS_DELETE,
    MERCHANT_CREATE,
    MERCHANT_STATUS,
)
from merchants.models import Merchant
from terminals.api.tables import TERMINAL_CREATE, TERMINAL_STATUS
from terminals.models import Terminal
from tests.conftest import code, param_errors
from tests.spec_requests import field_cases, mandatory_fields, valid_body

_ids = itertools.count(30000000)


def new_merchant_body(**overrides):
    return valid_body(MERCHANT_CREATE, **{"merchant.id": str(next(_ids)), **overrides})


def test_the_valid_merchant_body_is_accepted(api):
    response = api.post("/pay/v3/merchant/create", new_merchant_body())
    assert response.status_code == 200, response.json()
    assert code(response) == "000.000.100"


@pytest.mark.parametrize(
    ("case", "spec", "bad"),
    list(field_cases(MERCHANT_CREATE)),
    ids=[c[0] for c in field_cases(MERCHANT_CREATE)],
)
def test_merchant_create_refuses_each_invalid_value(api, case, spec, bad):
    response = api.post("/pay/v3/merchant/create", new_merchant_body(**{spec.name: bad}))
    assert response.status_code == 400
    assert code(response) == "200.300.404"
    assert spec.name in param_errors(response), (case, response.json())
    assert not Merchant.objects.exists()


@pytest.mark.parametrize("spec", mandatory_fields(MERCHANT_CREATE), ids=lambda f: f.name)
def test_merchant_create_requires_each_mandatory_field(api, spec):
    response = api.post("/pay/v3/merchant/create", new_merchant_body(**{spec.name: None}))
    assert response.status_code == 400
    assert param_errors(response)[spec.name].startswith("is required")
    assert not Merchant.objects.exists()


@pytest.mark.parametrize("spec", mandatory_fields(MERCHANT_CREATE), ids=lambda f: f.name)
def test_merchant_create_refuses_a_blank_mandatory_field(api, spec):
    response = api.post("/pay/v3/merchant/create", new_merchant_body(**{spec.name: "  "}))
    assert response.status_code == 400
    assert spec.name in param_errors(response)


def test_parameter_errors_echo_the_value_and_name_the_dotted_field(api):
    response = api.post("/pay/v3/merchant/create", new_merchant_body(**{"merchant.country": "de"}))
    [error] = response.json()["result"]["parameterErrors"]
    assert error == {
        "name": "merchant.country",
        "value": "de",
        "message": "must be A2: an ISO 3166-1 alpha-2 country code in uppercase",
    }


def test_an_unknown_parameter_is_refused_by_name(api):
    response = api.post("/pay/v3/merchant/create", new_merchant_body(**{"merchant.postCode": "1"}))
    assert response.status_code == 400
    assert param_errors(response) == {"merchant.postCode": "unknown parameter"}


@pytest.mark.parametrize(
    ("case", "spec", "bad"),
    list(field_cases(MERCHANT_STATUS)),
    ids=[c[0] for c in field_cases(MERCHANT_STATUS)],
)
def test_merchant_status_refuses_each_invalid_value(api, merchant, case, spec, bad):
    body = {"merchant.id": merchant.merchant_id, "merchant.status": "BLOCKED", spec.name: bad}
    response = api.post("/pay/v3/merchant/status/", body)
    assert response.status_code == 400
    assert spec.name in param_errors(response)
    merchant.refresh_from_db()
    assert merchant.status == "NORMAL"


@pytest.mark.parametrize(
    ("case", "spec", "bad"),
    list(field_cases(MERCHANT_3DS_DELETE)),
    ids=[c[0] for c in field_cases(MERCHANT_3DS_DELETE)],
)
def test_merchant_3ds_delete_refuses_each_invalid_value(api, merchant, case, spec, bad):
    body = {
        "merchant.id": merchant.merchant_id,
        "threeDSecure.deleteReason": "Other",
        spec.name: bad,
    }
    response = api.post("/pay/v3/merchant/3dsdelete", body)
    assert response.status_code == 400
    assert spec.name in param_errors(response)


_tids = itertools.count(1)


def new_terminal_body(merchant, **overrides):
    return valid_body(
        TERMINAL_CREATE,
        **{
            "merchant.id": merchant.merchant_id,
            "pos.terminalId": f"F{next(_tids):07d}",
            **overrides,
        },
    )


def test_the_valid_terminal_body_is_accepted(api, merchant):
    response = api.post("/pay/v3/terminal/create", new_terminal_body(merchant))
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize(
    ("case", "spec", "bad"),
    list(field_cases(TERMINAL_CREATE)),
    ids=[c[0] for c in field_cases(TERMINAL_CREATE)],
)
def test_terminal_create_refuses_each_invalid_value(api, merchant, case, spec, bad):
    response = api.post("/pay/v3/terminal/create", new_terminal_body(merchant, **{spec.name: bad}))
    assert response.status_code == 400
    assert spec.name in param_errors(response), (case, response.json())
    assert not Terminal.objects.exists()


@pytest.mark.parametrize("spec", mandatory_fields(TERMINAL_CREATE), ids=lambda f: f.name)
def test_terminal_create_requires_each_mandatory_field(api, merchant, spec):
    response = api.post("/pay/v3/terminal/create", new_terminal_body(merchant, **{spec.name: None}))
    assert response.status_code == 400
    assert param_errors(response)[spec.name].startswith("is required")


@pytest.mark.parametrize(
    ("case", "spec", "bad"),
    list(field_cases(TERMINAL_STATUS)),
    ids=[c[0] for c in field_cases(TERMINAL_STATUS)],
)
def test_terminal_status_refuses_each_invalid_value(api, terminal, case, spec, bad):
    body = {
        "merchant.id": terminal.merchant.merchant_id,
        "pos.terminalId": terminal.terminal_id,
        "terminal.status": "BLOCKED",
        spec.name: bad,
    }
    response = api.post("/pay/v3/terminal/status/", body)
    assert response.status_code == 400
    assert spec.name in param_errors(response)
    terminal.refresh_from_db()
    assert terminal.status == "NORMAL"
