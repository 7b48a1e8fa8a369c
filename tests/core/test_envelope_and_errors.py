"""The response envelope, the result-code catalogue and the error mapping."""

import logging
import re

import pytest

from core import results
from core.errors import ParameterError, exception_handler
from tests.conftest import code

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\+0000$")


def test_envelope_fields(api, merchant):
    response = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    data = response.json()
    assert re.fullmatch(r"[a-z0-9]{32}", data["id"])
    assert TIMESTAMP.match(data["timestamp"])
    assert re.fullmatch(r"[A-Za-z0-9-]{1,69}", data["ndc"])
    assert response["X-Request-Id"] == data["ndc"]
    assert "@" in data["buildNumber"] and len(data["buildNumber"]) <= 255
    assert set(data["result"]) == {"code", "description"}


def test_every_code_has_a_description_and_a_family():
    for result in results.catalogue().values():
        assert re.fullmatch(r"\d{3}\.\d{3}\.\d{3}", result.code)
        assert result.description
        assert result.family != "unclassified", result.code


def test_anchor_families():
    assert results.SUCCESS.match(results.TRANSACTION_SUCCEEDED.code)
    assert results.SUCCESS.match(results.REQUEST_SUCCEEDED.code)
    assert results.family_of("000.200.000") == "pending"
    assert results.family_of("700.400.100") == "rejected_reference_validation"
    assert results.family_of("800.900.300") == "rejected_format_validation"


def test_card_data_is_never_echoed_in_parameter_errors():
    response = exception_handler(
        ParameterError(
            [
                ("card.number", "4200000000000000", "bad"),
                ("card.cvv", "123", "bad"),
                ("x", "y" * 300, "long"),
            ]
        ),
        {},
    )
    errors = response.data["result"]["parameterErrors"]
    assert [e["value"] for e in errors[:2]] == ["***", "***"]
    assert len(errors[2]["value"]) <= 258


def test_unexpected_exception_is_500_with_ndc_and_logged(api, merchant, monkeypatch, caplog):
    from merchants import selectors

    def boom(**kwargs):
        raise RuntimeError("database exploded")

    monkeypatch.setattr(selectors, "merchant_get", boom)
    with caplog.at_level(logging.ERROR):
        response = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert response.status_code == 500
    assert code(response) == "999.999.999"
    assert "exploded" not in response.content.decode()
    ndc = response.json()["ndc"]
    assert any(getattr(r, "ndc", None) == ndc and r.exc_info for r in caplog.records)


def test_wrong_method_is_405_in_the_envelope(api):
    response = api.get("/pay/v3/merchant/create", {})
    assert response.status_code == 405 and code(response) == "200.100.101"


def test_unsupported_media_type_is_415(api):
    response = api.client.post(
        "/pay/v3/merchant/create",
        "<xml/>",
        content_type="application/xml",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 415 and code(response) == "200.100.101"


@pytest.mark.parametrize("path", ["/pay/v3/nothing-here", "/pay/v3/merchant/create/extra"])
def test_unknown_path_is_a_json_404(client, path, settings):
    settings.DEBUG = False
    response = client.post(path)
    assert response.status_code == 404
    assert response.json()["result"]["code"] == "700.100.199"


def test_trailing_slash_is_optional(api, merchant):
    for path in (
        "/pay/v3/merchant/Inquiry",
        "/pay/v3/merchant/Inquiry/",
        "/pay/v3/merchant/inquiry",
    ):
        assert api.get(path, {"merchant.id": merchant.merchant_id}).status_code == 200


def test_too_many_fields_is_a_400_not_a_500(api, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    body = "&".join(f"f{i}=x" for i in range(10))
    response = api.client.post(
        "/pay/v3/merchant/create",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 400
    assert code(response) == "200.100.101"
