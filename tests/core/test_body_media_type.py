"""A JSON body sent as a form (issue 9, item 7) is named for what it is."""

import json

import pytest

from merchants.models import Merchant
from tests.conftest import code
from tests.spec_requests import valid_body


def _create_body(api) -> dict[str, str]:  # type: ignore[no-untyped-def]
    from merchants.api.tables import MERCHANT_CREATE

    return {
        "entityId": api.entity_id,
        "entityType": api.entity_type,
        "merchantTransactionId": "json0001",
        **valid_body(MERCHANT_CREATE),
    }


@pytest.mark.parametrize("shape", ["{}", "  \r\n\t{}", "[]", "\n[{}]"])
def test_a_json_body_sent_as_a_form_is_refused_saying_so(api, shape):
    body = json.dumps(_create_body(api)) if shape.strip() == "{}" else shape.strip()
    body = shape[: len(shape) - len(shape.lstrip())] + body
    response = api.client.post(
        "/pay/v3/merchant/create",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 400
    assert code(response) == "200.100.101"
    description = response.json()["result"]["description"]
    assert "JSON" in description and "Content-Type: application/json" in description
    assert not Merchant.objects.exists()


def test_the_same_body_as_json_is_accepted(api):
    response = api.client.post(
        "/pay/v3/merchant/create",
        json.dumps(_create_body(api)),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 200, response.json()
    assert Merchant.objects.count() == 1


def test_a_form_value_that_starts_with_a_brace_is_still_a_form(api):
    response = api.client.post(
        "/pay/v3/merchant/create",
        "entityId=" + api.entity_id + "&entityType=PARTICIPATOR&merchant.name={x}",
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 400 and code(response) == "200.300.404"
