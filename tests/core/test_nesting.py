"""Dotted and indexed names <-> nested data, and the form/JSON parsers."""

import json

import pytest

from core.nesting import NameError_, flatten, lookup, nest, split_name, unflatten
from tests.conftest import param_errors


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("card.number", ["card", "number"]),
        ("cart.items[0].name", ["cart", "items", "[0]", "name"]),
        ("customParameters[ReqAuthMethod]", ["customParameters", "[ReqAuthMethod]"]),
        ("customParameters[SHOPPER_a.b]", ["customParameters", "[SHOPPER_a.b]"]),
        ("risk.parameters[x_y]", ["risk", "parameters", "[x_y]"]),
        (
            "airline.passengers[1].legs[2].flightNumber",
            ["airline", "passengers", "[1]", "legs", "[2]", "flightNumber"],
        ),
    ],
)
def test_split_name(name, parts):
    assert split_name(name) == parts


@pytest.mark.parametrize(
    "name", ["", ".a", "a.", "a..b", "[0]", "a[]", "a[0", "a]b", "a[0]b", "a.[0]"]
)
def test_malformed_names_are_refused(name):
    with pytest.raises(NameError_):
        split_name(name)


def test_unflatten_nests_groups_and_indexes():
    data = unflatten(
        [
            ("cart.items[0].name", ["Pen"]),
            ("cart.items[1].name", ["Ink"]),
            ("customParameters[SHOPPER_a.b]", ["1"]),
            ("amount", ["1.00"]),
        ]
    )
    assert data == {
        "cart": {"items": {"0": {"name": "Pen"}, "1": {"name": "Ink"}}},
        "customParameters": {"SHOPPER_a.b": "1"},
        "amount": "1.00",
    }


@pytest.mark.parametrize(
    "pairs",
    [
        [("a", ["1", "2"])],
        [("a", ["1"]), ("a.b", ["2"])],
        [("a.b", ["2"]), ("a", ["1"])],
    ],
)
def test_conflicting_names_are_refused(pairs):
    with pytest.raises(NameError_):
        unflatten(pairs)


def test_flatten_and_lookup_round_trip():
    data = {"cart": {"items": [{"name": "Pen"}]}, "customParameters": {"a.b": "1"}}
    assert dict(flatten(data)) == {"cart.items[0].name": "Pen", "customParameters[a.b]": "1"}
    assert lookup(data, "cart.items[0].name") == "Pen"
    assert lookup(data, "customParameters[a.b]") == "1"
    assert lookup(data, "cart.items[5].name") is None


def test_nest_builds_response_groups_and_drops_none():
    assert nest({"merchant.id": "1", "merchant.token": None, "result.code": "x"}) == {
        "merchant": {"id": "1"},
        "result": {"code": "x"},
    }


class TestParsersOverHttp:
    """The merchant inquiry as a probe: the parsers feed the same nested data to every view."""

    def test_repeated_form_field_is_400_naming_it(self, api, merchant):
        response = api.client.post(
            "/pay/v3/merchant/Inquiry",
            f"entityId={api.entity_id}&entityType=PARTICIPATOR&merchant.id=1&merchant.id=2",
            content_type="application/x-www-form-urlencoded",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 400
        assert param_errors(response) == {"merchant.id": "given more than once"}

    def test_malformed_name_is_400(self, api, merchant):
        response = api.client.post(
            "/pay/v3/merchant/Inquiry",
            f"entityId={api.entity_id}&entityType=PARTICIPATOR&merchant..id=1",
            content_type="application/x-www-form-urlencoded",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 400
        assert param_errors(response) == {"merchant..id": "malformed parameter name"}

    def test_json_with_dotted_keys_equals_nested_json(self, api, merchant):
        for payload in (
            {
                "entityId": api.entity_id,
                "entityType": "PARTICIPATOR",
                "merchant.id": merchant.merchant_id,
            },
            {
                "entityId": api.entity_id,
                "entityType": "PARTICIPATOR",
                "merchant": {"id": merchant.merchant_id},
            },
        ):
            response = api.client.post(
                "/pay/v3/merchant/Inquiry",
                json.dumps(payload),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {api.token}",
            )
            assert response.status_code == 200, response.json()

    def test_json_numbers_keep_their_text(self, api, merchant):
        payload = {
            "entityId": api.entity_id,
            "entityType": "PARTICIPATOR",
            "merchant": {"id": int(merchant.merchant_id)},
        }
        response = api.client.post(
            "/pay/v3/merchant/Inquiry",
            json.dumps(payload),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 200

    @pytest.mark.parametrize("body", ["{not json", "[1, 2]"])
    def test_malformed_json_is_400(self, api, body):
        response = api.client.post(
            "/pay/v3/merchant/Inquiry",
            body,
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 400
        assert response.json()["result"]["code"] == "200.100.101"


def test_only_short_names_are_kept_split():
    """A request's own names may be long: splitting them keeps nothing (a worker's memory is not
    theirs to fill); the field tables' short names are split once."""
    from core.nesting import CACHED_NAME_LENGTH, _split_cached

    before = _split_cached.cache_info().currsize
    long_name = "a" * (CACHED_NAME_LENGTH + 1) + ".b"
    assert split_name(long_name) == ["a" * (CACHED_NAME_LENGTH + 1), "b"]
    assert _split_cached.cache_info().currsize == before
    assert split_name("card.holderShort") == ["card", "holderShort"]
    assert _split_cached.cache_info().currsize <= before + 1
