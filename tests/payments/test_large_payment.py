"""The largest legitimate payment (issue 9, item 9): 1000 cart items of every field, as a form
and as JSON, stays within the request limits and is approved."""

import json
import time
from urllib.parse import urlencode

import pytest

from tests.conftest import code
from tests.payments.conftest import card, mtid

ITEM = {
    "name": "Fountain pen, blue, medium nib {i}",
    "merchantItemId": "SKU-{i:06d}",
    "quantity": "1.500",
    "type": "PHYSICAL",
    "sku": "PEN-BLUE-M-{i}",
    "currency": "EUR",
    "description": "A blue fountain pen with a medium steel nib and a converter, item {i}",
    "price": "12.50",
    "totalAmount": "18.75",
    "taxAmount": "2.00",
    "totalTaxAmount": "3.00",
    "tax": "19",
    "shipping": "1.00",
    "discount": "0.50",
    "giftMessage": "Happy birthday from all of us",
    "shippingMethod": "standard parcel",
    "shippingInstructions": "leave with the neighbour",
    "shippingTrackingNumber": "00340434161094012345",
    "originalPrice": "13.00",
    "quantityUnit": "COUNT",
    "productUrl": "https://shop.example.com/products/fountain-pen-blue-medium-{i}",
    "imageUrl": "https://shop.example.com/images/fountain-pen-blue-medium-{i}.png",
    "totalDiscountAmount": "0.50",
}


def _payment(merchant) -> dict[str, str]:  # type: ignore[no-untyped-def]
    body = {
        "paymentType": "DB",
        "merchant.id": merchant.merchant_id,
        "merchantTransactionId": mtid(),
        "amount": "18750.00",
        "currency": "EUR",
        **card(),
    }
    for i in range(1000):
        for name, value in ITEM.items():
            body[f"cart.items[{i}].{name}"] = value.format(i=i)
    return body


@pytest.mark.parametrize("as_json", [False, True])
def test_a_payment_with_1000_full_cart_items_is_accepted(merchant_api, merchant, as_json):
    fields = {
        "entityId": merchant_api.entity_id,
        "entityType": merchant_api.entity_type,
        **_payment(merchant),
    }
    assert len(fields) > 23_000
    if as_json:
        body, content_type = json.dumps(fields), "application/json"
    else:
        body, content_type = urlencode(fields), "application/x-www-form-urlencoded"
    started = time.perf_counter()
    response = merchant_api.client.post(
        "/pay/v3/payments",
        body,
        content_type=content_type,
        HTTP_AUTHORIZATION=f"Bearer {merchant_api.token}",
    )
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, response.content[:500]
    assert code(response) == "000.000.000"
    assert elapsed < 20, elapsed
