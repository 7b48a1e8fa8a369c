"""A JSON object with a key twice (issue 9, item 11) is refused at any depth, as the form parser
refuses a repeated name: the last value used to win silently (`"amount"` twice charged the
second)."""

import io

import pytest

from core.errors import ParameterError
from core.parsers import NestedJSONParser
from merchants.models import Merchant
from tests.conftest import code, param_errors


@pytest.mark.parametrize(
    ("body", "name"),
    [
        (b'{"amount": "1.00", "amount": "2.00"}', "amount"),
        (b'{"card": {"number": "1", "number": "2"}}', "card.number"),
        (b'{"card": {"number": "1"}, "card": {"cvv": "2"}}', "card"),
        (b'{"cart": {"items": [{"name": "a"}, {"name": "b", "name": "c"}]}}', "cart.items[1].name"),
        (b'{"customParameters": {"a.b": "1", "a.b": "2"}}', "customParameters[a.b]"),
    ],
)
def test_a_repeated_key_is_refused_naming_it(body, name):
    with pytest.raises(ParameterError) as refused:
        NestedJSONParser().parse(io.BytesIO(body))
    assert [(n, m) for n, _, m in refused.value.errors] == [(name, "given more than once")]


def test_the_same_key_in_different_objects_is_fine():
    data = NestedJSONParser().parse(io.BytesIO(b'{"a": {"x": "1"}, "b": {"x": "2"}}'))
    assert data == {"a": {"x": "1"}, "b": {"x": "2"}}


def test_a_merchant_create_with_a_repeated_key_writes_nothing(api):
    body = (
        f'{{"entityId": "{api.entity_id}", "entityType": "PARTICIPATOR",'
        ' "merchantTransactionId": "dup00001",'
        ' "merchant": {"id": "20000001", "id": "20000002"}}'
    )
    response = api.client.post(
        "/pay/v3/merchant/create",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert param_errors(response) == {"merchant.id": "given more than once"}
    assert not Merchant.objects.exists()
