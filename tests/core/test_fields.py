"""The spec's field types: each accepts its valid example and refuses its invalid ones."""

from datetime import date
from decimal import Decimal

import pytest

from core.fields import AN, UN, A, Amount, Choice, Country, Currency, Date, Hex, N, Rate

TYPES = [
    AN(10),
    AN(8, min=8, pattern=r"[A-Z0-9]{8}", example="BANK0001"),
    N(15),
    UN(4, min=4),
    A(2, upper=True),
    Choice(("P", "M")),
    Amount(),
    Rate(),
    Date("yyyy-MM-dd"),
    Date("YYYYMMDD"),
    Date("ccyymmdd"),
    Hex(10, min=10),
    Country(),
    Currency(),
]


@pytest.mark.parametrize("ftype", TYPES, ids=repr)
def test_valid_example_parses(ftype):
    ftype.parse(ftype.valid())


@pytest.mark.parametrize(("ftype", "bad"), [(t, b) for t in TYPES for b in t.invalid()], ids=repr)
def test_invalid_examples_are_refused_with_the_description(ftype, bad):
    with pytest.raises(ValueError, match="must be"):
        ftype.parse(bad)


@pytest.mark.parametrize(
    ("text", "value"), [("0.00", Decimal("0.00")), ("1234567890.99", Decimal("1234567890.99"))]
)
def test_amount_is_n10_n2(text, value):
    assert Amount().parse(text) == value


@pytest.mark.parametrize(
    "text", ["12345678901.00", "1.5", "1", "1.005", "1,00", " 1.00", "+1.00", "1e3"]
)
def test_amount_refuses(text):
    with pytest.raises(ValueError):
        Amount().parse(text)


@pytest.mark.parametrize("text", ["1", "12.5", "99.12345", "0.1"])
def test_rate_is_n2_n5(text):
    assert Rate().parse(text) == Decimal(text)


@pytest.mark.parametrize("text", ["123.1", "1.123456", "1.", "-1"])
def test_rate_refuses(text):
    with pytest.raises(ValueError):
        Rate().parse(text)


def test_dates_parse_to_dates_and_refuse_impossible_days():
    assert Date("ccyymmdd").parse("20240229") == date(2024, 2, 29)
    with pytest.raises(ValueError):
        Date("ccyymmdd").parse("20230229")
    with pytest.raises(ValueError):
        Date("yyyy-MM-dd").parse("2024-1-05")


def test_an_refuses_control_characters():
    with pytest.raises(ValueError):
        AN(10).parse("a\x00b")


def test_country_and_currency_come_from_iso_tables():
    assert Country().parse("CH") == "CH"
    assert Currency().parse("JPY") == "JPY"
    for bad in ("ZZ", "QQ"):
        with pytest.raises(ValueError):
            Country().parse(bad)
