"""Invalid UTF-8 (issue 9, item 11): `%FF%FE` in a form body or a query string was decoded with
replacement characters and stored; a lone surrogate escape in JSON (`"\\ud800"`) cannot be
stored at all. Each is refused with 400, naming the field when the name itself is readable."""

import io
import json

import pytest

from core.errors import ParameterError
from core.parsers import NestedFormParser, NestedJSONParser
from merchants.models import Merchant
from tests.conftest import code, param_errors
from tests.spec_requests import valid_body

FORM = "application/x-www-form-urlencoded"


def _create(api, raw: str, content_type: str = FORM):  # type: ignore[no-untyped-def]
    return api.client.post(
        "/pay/v3/merchant/create",
        raw,
        content_type=content_type,
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def _form(api, **fields: str) -> str:  # type: ignore[no-untyped-def]
    from urllib.parse import urlencode

    from merchants.api.tables import MERCHANT_CREATE

    return urlencode(
        {
            "entityId": api.entity_id,
            "entityType": api.entity_type,
            "merchantTransactionId": "utf8test1",
            **valid_body(MERCHANT_CREATE),
            **fields,
        }
    )


@pytest.mark.parametrize("bad", ["%FF%FE", "Caf%E9", "%C3", "%ED%A0%80"])
def test_invalid_utf8_in_a_form_value_is_refused_naming_the_field(api, bad):
    response = _create(api, _form(api) + "&merchant.website=" + bad)
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert "UTF-8" in param_errors(response)["merchant.website"]
    assert not Merchant.objects.exists()


def test_invalid_utf8_in_a_form_name_is_a_request_level_refusal(api):
    response = _create(api, _form(api) + "&merchant.%FF=1")
    assert response.status_code == 400 and code(response) == "200.100.101"
    assert not Merchant.objects.exists()


def test_valid_utf8_and_plus_signs_still_decode():
    data = NestedFormParser().parse(io.BytesIO(b"a=S%C3%A3o+Paulo&b=%2B49&c&d="))
    assert data == {"a": "São Paulo", "b": "+49", "c": "", "d": ""}


def test_a_declared_charset_is_honoured():
    data = NestedFormParser().parse(io.BytesIO(b"a=Caf%E9"), None, {"encoding": "iso-8859-1"})
    assert data == {"a": "Café"}


def test_invalid_utf8_in_the_query_string_is_refused(merchant_api, merchant):
    response = merchant_api.client.get(
        "/pay/v3/merchant/Inquiry?entityId=X&merchant.id=%FF%FE",
        HTTP_AUTHORIZATION=f"Bearer {merchant_api.token}",
    )
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert "merchant.id" in param_errors(response)
    response = merchant_api.client.get("/pay/v3/merchant/Inquiry?%FF=1")
    assert response.status_code == 400 and code(response) == "200.100.101"


def test_a_lone_surrogate_in_json_is_refused(api):
    body = json.loads(json.dumps({"entityId": api.entity_id}))
    raw = json.dumps(body)[:-1] + ', "merchant": {"website": "a\\ud800b"}}'
    response = _create(api, raw, "application/json")
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert "merchant.website" in param_errors(response)
    with pytest.raises(ParameterError):
        NestedJSONParser().parse(io.BytesIO(b'{"a": "\\udfff"}'))


def test_a_lone_surrogate_in_a_json_key_is_a_request_level_refusal(api):
    response = _create(api, '{"a\\ud800": "1"}', "application/json")
    assert response.status_code == 400 and code(response) == "200.100.101"


def test_invalid_utf8_bytes_in_json_are_malformed(api):
    response = _create(api, b'{"a": "\xff\xfe"}', "application/json")
    assert response.status_code == 400 and code(response) == "200.100.101"
