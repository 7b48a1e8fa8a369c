"""merchantTransactionId: same parameters replay, other parameters 800.110.100."""

from core.models import IdempotentRequest
from merchants.api.tables import MERCHANT_CREATE
from merchants.models import Merchant, MerchantStatusChange
from tests.conftest import code
from tests.spec_requests import valid_body

CREATE, STATUS = "/pay/v3/merchant/create", "/pay/v3/merchant/status/"


def test_same_request_replays_the_stored_answer(api):
    body = {
        **valid_body(MERCHANT_CREATE, **{"merchant.id": "77"}),
        "merchantTransactionId": "same1",
    }
    first = api.post(CREATE, body, mtid=False)
    second = api.post(CREATE, body, mtid=False)
    assert first.status_code == second.status_code == 200
    assert second["Idempotent-Replayed"] == "true"
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["result"] == first.json()["result"]
    assert second.json()["ndc"] != first.json()["ndc"]  # the ndc is this request's
    assert Merchant.objects.count() == 1
    # The replay does not show the token again; the first answer did.
    assert "token" in first.json()["merchant"] and "token" not in second.json()["merchant"]


def test_the_stored_answer_holds_no_token(api):
    body = {
        **valid_body(MERCHANT_CREATE, **{"merchant.id": "77"}),
        "merchantTransactionId": "same1",
    }
    token = api.post(CREATE, body, mtid=False).json()["merchant"]["token"]
    assert token not in str(list(IdempotentRequest.objects.values()))


def test_same_id_other_parameters_is_refused(api):
    body = {
        **valid_body(MERCHANT_CREATE, **{"merchant.id": "77"}),
        "merchantTransactionId": "same1",
    }
    api.post(CREATE, body, mtid=False)
    response = api.post(CREATE, {**body, "merchant.id": "78"}, mtid=False)
    assert response.status_code == 200
    assert code(response) == "800.110.100"
    assert not Merchant.objects.filter(merchant_id="78").exists()


def test_a_refusal_is_replayed_too(api, merchant):
    api.post(STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": "CLOSED"})
    body = {
        "merchant.id": merchant.merchant_id,
        "merchant.status": "NORMAL",
        "merchantTransactionId": "r1",
    }
    first = api.post(STATUS, body, mtid=False)
    second = api.post(STATUS, body, mtid=False)
    assert code(first) == code(second) == "700.500.100"
    assert second["Idempotent-Replayed"] == "true"


def test_the_same_id_may_be_used_by_another_operation_or_entity(api, other_api, merchant):
    body = {
        "merchant.id": merchant.merchant_id,
        "merchant.status": "BLOCKED",
        "merchantTransactionId": "x1",
    }
    assert code(api.post(STATUS, body, mtid=False)) == "000.000.100"
    assert (
        code(
            api.post(
                "/pay/v3/merchant/3dsenroll",
                {"merchant.id": merchant.merchant_id, "merchantTransactionId": "x1"},
                mtid=False,
            )
        )
        == "000.000.100"
    )
    # Another participator's x1 is its own (and 404s here because it cannot reach the merchant).
    assert other_api.post(STATUS, body, mtid=False).status_code == 404


def test_a_400_writes_nothing_and_the_id_stays_free(api, merchant):
    bad = {
        "merchant.id": merchant.merchant_id,
        "merchant.status": "WRONG",
        "merchantTransactionId": "x2",
    }
    assert api.post(STATUS, bad, mtid=False).status_code == 400
    assert not IdempotentRequest.objects.exists()
    good = {**bad, "merchant.status": "BLOCKED"}
    assert code(api.post(STATUS, good, mtid=False)) == "000.000.100"
    assert MerchantStatusChange.objects.filter(to_status="BLOCKED").count() == 1


def test_merchant_transaction_id_is_required_on_management_calls(api, merchant):
    response = api.post(
        STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": "BLOCKED"}, mtid=False
    )
    assert response.status_code == 400
    assert response.json()["result"]["parameterErrors"][0]["name"] == "merchantTransactionId"
