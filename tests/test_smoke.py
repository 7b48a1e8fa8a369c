from tests.conftest import code


def test_merchant_inquiry_of_own_merchant(api, merchant):
    response = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert response.status_code == 200, response.json()
    assert code(response) == "000.000.100"
    assert response.json()["merchant"]["id"] == merchant.merchant_id
