"""Table validation: plain rows, repeated groups ([n]) and maps ([*])."""

from decimal import Decimal

import pytest

from core.errors import ParameterError
from core.fields import AN, Amount, Choice
from core.nesting import unflatten
from core.tables import MANDATORY, F, Table

TABLE = Table(
    [
        F("amount", Amount(), MANDATORY),
        F("cart.items[n].name", AN(10), MANDATORY),
        F("cart.items[n].price", Amount()),
        F("airline.passengers[n].legs[n].flightNumber", AN(6), MANDATORY),
        F("customParameters[*]", AN(20, min=0), key=AN(64, min=3, pattern=r"[A-Za-z0-9._]+")),
        F("kind", Choice(("A", "B"))),
    ],
    limits={"cart.items": 3},
)


def validate(pairs, **kwargs):
    return TABLE.validate(unflatten((k, [v]) for k, v in pairs.items()), **kwargs)


def errors(pairs):
    with pytest.raises(ParameterError) as info:
        validate(pairs)
    return {name: message for name, _, message in info.value.errors}


def test_groups_and_maps_validate_and_parse():
    flat = validate(
        {
            "amount": "1.00",
            "cart.items[0].name": "Pen",
            "cart.items[1].name": "Ink",
            "cart.items[1].price": "2.50",
            "customParameters[SHOPPER_a.b]": "x",
            "airline.passengers[0].legs[0].flightNumber": "LH1",
        }
    )
    assert flat["cart.items[1].price"] == Decimal("2.50")
    assert flat["customParameters[SHOPPER_a.b]"] == "x"
    assert flat["airline.passengers[0].legs[0].flightNumber"] == "LH1"


def test_map_keys_are_reported_in_bracket_form():
    flat = TABLE.validate({"amount": "1.00", "customParameters": {"ReqAuthMethod": "01"}})
    assert flat["customParameters[ReqAuthMethod]"] == "01"


def test_mandatory_row_in_a_group_is_required_in_every_item_sent():
    assert errors({"amount": "1.00", "cart.items[0].price": "1.00"}) == {
        "cart.items[0].name": "is required (AN10: 1 to 10 characters)"
    }
    assert errors(
        {
            "amount": "1.00",
            "airline.passengers[0].legs[1].flightNumber": "X",
            "airline.passengers[0].legs[0].flightNumber": "Y",
            "airline.passengers[1].legs[0].flightNumber": "",
        }
    ) == {"airline.passengers[1].legs[0].flightNumber": "may not be blank (AN6: 1 to 6 characters)"}


def test_a_group_not_sent_is_not_required():
    assert validate({"amount": "1.00"}) == {"amount": Decimal("1.00")}


def test_indexes_must_run_from_zero_without_gaps():
    assert errors({"amount": "1.00", "cart.items[0].name": "a", "cart.items[2].name": "b"}) == {
        "cart.items": "indexes must run from 0 without gaps"
    }


def test_group_limit():
    pairs = {"amount": "1.00", **{f"cart.items[{i}].name": "a" for i in range(4)}}
    assert errors(pairs) == {"cart.items": "at most 3 items"}


@pytest.mark.parametrize(
    "name", ["cart.items[01].name", "cart.items[x].name", "cart.items.name", "cart.items[0].colour"]
)
def test_malformed_item_names_are_unknown(name):
    # A bracketed key that is not an index nests like a dotted one (cart.items.x.name).
    found = errors({"amount": "1.00", name: "a"})
    assert list(found.values()) == ["unknown parameter"]
    assert next(iter(found)).startswith("cart.items")


def test_map_key_is_validated():
    assert "customParameters[ab]" in errors({"amount": "1.00", "customParameters[ab]": "x"})


def test_blank_optional_value_and_bad_choice():
    assert validate({"amount": "1.00", "kind": ""})["kind"] == ""
    assert errors({"amount": "1.00", "kind": "C"}) == {"kind": "must be one of A, B"}


def test_a_literal_map_key_row_wins_over_the_open_map():
    table = Table(
        [
            F("customParameters[*]", AN(20, min=0)),
            F("customParameters[ReqAuthMethod]", Choice(("01", "02"))),
        ]
    )
    assert table.validate({"customParameters": {"ReqAuthMethod": "01", "x_y_z": "free"}}) == {
        "customParameters[ReqAuthMethod]": "01",
        "customParameters[x_y_z]": "free",
    }
    with pytest.raises(ParameterError) as info:
        table.validate(unflatten([("customParameters[ReqAuthMethod]", ["07"])]))
    assert info.value.errors[0][0] == "customParameters[ReqAuthMethod]"


# --- aliases, secrets and the render direction ------------------------------------------------

ALIASED = Table(
    [
        F("token.Type", Choice(("CT", "DT")), MANDATORY, aliases=("paymentType",)),
        F("card.cvv", AN(4, min=3, pattern=r"\d{3,4}"), secret=True),
    ]
)


def test_an_alias_is_accepted_under_the_rows_name():
    assert ALIASED.validate({"token": {"Type": "CT"}}) == {"token.Type": "CT"}
    assert ALIASED.validate({"paymentType": "DT"}) == {"token.Type": "DT"}


def test_two_spellings_of_one_row_are_refused():
    with pytest.raises(ParameterError) as info:
        ALIASED.validate({"token": {"Type": "CT"}, "paymentType": "CT"})
    [(name, _, message)] = info.value.errors
    assert "given twice" in message and name in ("token.Type", "paymentType")


def test_a_secret_rows_value_is_never_in_the_error():
    with pytest.raises(ParameterError) as info:
        ALIASED.validate({"token": {"Type": "CT"}, "card": {"cvv": "12x"}})
    assert info.value.errors[0][:2] == ("card.cvv", "***")


def test_render_formats_attributes_by_the_rows_types():
    from datetime import date
    from types import SimpleNamespace

    from core.fields import Date

    table = Table(
        [
            F("merchant.amount", Amount(), attr="amount"),
            F("merchant.dateDesigned", Date("ccyymmdd")),
            F("merchant.entityId", AN(8), attr="entity.entity_id"),
            F("merchant.website", AN(100)),
            F("merchant.owner", AN(8), attr="owner.entity_id"),
        ]
    )
    obj = SimpleNamespace(
        amount=Decimal("10.5"),
        date_designed=date(2024, 1, 15),
        entity=SimpleNamespace(entity_id="10000001"),
        website="",
        owner=None,
    )
    assert table.render(obj) == {
        "merchant.amount": "10.50",
        "merchant.dateDesigned": "20240115",
        "merchant.entityId": "10000001",
    }
