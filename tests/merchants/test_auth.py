"""Bearer token, entityId and entityType checked together (401, 400, 403)."""

import pytest

from merchants.services import entity_rotate_token
from tests.conftest import SpecClient, code, param_errors

INQUIRY = "/pay/v3/merchant/Inquiry"


def test_missing_bearer_is_401(client, merchant):
    response = client.get(
        INQUIRY,
        {
            "entityId": merchant.participator.entity_id,
            "entityType": "PARTICIPATOR",
            "merchant.id": merchant.merchant_id,
        },
    )
    assert response.status_code == 401
    assert code(response) == "800.900.300"
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "header", ["Bearer nope", "Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", "Token abc"]
)
def test_wrong_or_malformed_bearer_is_401(client, merchant, header):
    response = client.get(
        INQUIRY,
        {
            "entityId": merchant.participator.entity_id,
            "entityType": "PARTICIPATOR",
            "merchant.id": merchant.merchant_id,
        },
        HTTP_AUTHORIZATION=header,
    )
    assert response.status_code == 401
    assert code(response) == "800.900.300"


def test_a_rotated_token_stops_working(api, merchant, participator):
    old = api.token
    entity_rotate_token(entity=participator)
    response = api.get(INQUIRY, {"merchant.id": merchant.merchant_id}, token=old)
    assert response.status_code == 401


def test_an_inactive_entity_is_401(api, merchant, participator):
    participator.is_active = False
    participator.save()
    assert api.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 401


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("entityId", None),
        ("entityId", "bank0001"),
        ("entityId", "BANK001"),
        ("entityType", None),
        ("entityType", "ADMIN"),
    ],
)
def test_missing_or_malformed_entity_fields_are_400(api, merchant, field, value):
    api_fields = {"merchant.id": merchant.merchant_id}
    client = SpecClient(api.token, api.entity_id, api.entity_type)
    if field == "entityId":
        client.entity_id = value
    else:
        client.entity_type = value
    response = client.get(INQUIRY, api_fields)
    assert response.status_code == 400
    assert code(response) == "200.300.404"
    assert field in param_errors(response)


def test_token_of_another_entity_is_403(api, other_participator, merchant):
    client = SpecClient(api.token, other_participator.entity_id, "PARTICIPATOR")
    response = client.get(INQUIRY, {"merchant.id": merchant.merchant_id})
    assert response.status_code == 403
    assert code(response) == "800.900.301"


def test_unknown_entity_id_is_403_not_a_hint_of_existence(api, merchant):
    client = SpecClient(api.token, "ZZZZ9999", "PARTICIPATOR")
    assert client.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 403


@pytest.mark.parametrize("entity_type", ["MERCHANT", "POS"])
def test_entity_type_must_match_the_entity(api, merchant, entity_type):
    client = SpecClient(api.token, api.entity_id, entity_type)
    response = client.get(INQUIRY, {"merchant.id": merchant.merchant_id, "pos.terminalId": "T1"})
    assert response.status_code == 403
    assert code(response) == "800.900.301"


def test_merchant_token_cannot_claim_participator_type(merchant_api, merchant):
    client = SpecClient(merchant_api.token, merchant_api.entity_id, "PARTICIPATOR")
    assert client.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 403


def test_merchant_token_cannot_act_for_its_participator(merchant_api, merchant):
    client = SpecClient(merchant_api.token, merchant.participator.entity_id, "PARTICIPATOR")
    assert client.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 403


def test_participator_dispatches_for_its_merchant(api, merchant):
    """Channel dispatching: the participator's token with the merchant's entityId."""
    client = SpecClient(api.token, merchant.entity.entity_id, "MERCHANT")
    response = client.get(INQUIRY, {"merchant.id": merchant.merchant_id})
    assert response.status_code == 200
    assert response.json()["merchant"]["id"] == merchant.merchant_id


def test_participator_cannot_dispatch_for_another_participators_merchant(other_api, merchant):
    client = SpecClient(other_api.token, merchant.entity.entity_id, "MERCHANT")
    assert client.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 403


class TestPos:
    def client(self, merchant_api):
        return SpecClient(merchant_api.token, merchant_api.entity_id, "POS")

    def test_pos_needs_pos_terminal_id(self, merchant_api, merchant, terminal):
        response = self.client(merchant_api).get(INQUIRY, {"merchant.id": merchant.merchant_id})
        assert response.status_code == 400
        assert "pos.terminalId" in param_errors(response)

    def test_pos_with_its_terminal_is_allowed(self, merchant_api, merchant, terminal):
        response = self.client(merchant_api).get(
            INQUIRY, {"merchant.id": merchant.merchant_id, "pos.terminalId": terminal.terminal_id}
        )
        assert response.status_code == 200

    def test_pos_with_another_merchants_terminal_is_403(self, merchant_api, merchant):
        from tests.factories import TerminalFactory

        foreign = TerminalFactory()
        response = self.client(merchant_api).get(
            INQUIRY, {"merchant.id": merchant.merchant_id, "pos.terminalId": foreign.terminal_id}
        )
        assert response.status_code == 403
        assert code(response) == "800.900.301"

    def test_pos_with_unknown_terminal_is_403(self, merchant_api, merchant):
        response = self.client(merchant_api).get(
            INQUIRY, {"merchant.id": merchant.merchant_id, "pos.terminalId": "NOPE"}
        )
        assert response.status_code == 403


@pytest.mark.parametrize(
    "path",
    [
        "/pay/v3/merchant/create",
        "/pay/v3/merchant/update/",
        "/pay/v3/merchant/status/",
        "/pay/v3/merchant/3dsenroll",
        "/pay/v3/merchant/3dsdelete",
        "/pay/v3/terminal/create",
        "/pay/v3/terminal/update/",
        "/pay/v3/terminal/status/",
    ],
)
def test_management_operations_are_for_participators_only(merchant_api, merchant, path):
    response = merchant_api.post(path, {"merchant.id": merchant.merchant_id})
    assert response.status_code == 403
    assert code(response) == "800.900.301"
