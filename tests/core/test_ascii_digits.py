"""Digits are ASCII (issue 9, item 11): `\\d` and str.isdigit accept the digits of every script
(`amount=١٠.٠٠` and `card.cvv=١٢٣` were accepted). Every type that takes digits, and every
pattern, takes 0-9 only; free text (AN without a pattern) keeps any character of any script."""

import pytest

from core.fields import AN, Amount, Date, N, Percent, Rate, Truncated, Url, UtcTimestamp
from core.fields.codes import CurrencyNumeric
from tests.spec_requests import project_tables

SCRIPTS = {
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
    "fullwidth": "０１２３４５６７８９",
}
FREE_TEXT = (Truncated, Url)  # and AN without a pattern


def _free_text(ftype) -> bool:  # type: ignore[no-untyped-def]
    return isinstance(ftype, FREE_TEXT) or (isinstance(ftype, AN) and ftype.pattern is None)


def _digit_types() -> list:  # type: ignore[type-arg]
    found: dict[str, object] = {}
    for table in project_tables():
        for row in table:
            for ftype in (row.type, row.key):
                if ftype is None or _free_text(ftype):
                    continue
                if any(c.isascii() and c.isdigit() for c in ftype.valid()):
                    # One case per type, named by its shortest row name (whatever order the
                    # tables' modules were imported in).
                    known = found.get(repr(ftype))
                    if known is None or len(row.name) < len(known[0]):  # type: ignore[index]
                        found[repr(ftype)] = (row.name, ftype)
    return list(found.values())


DIGIT_TYPES = _digit_types()


def test_the_generated_cases_cover_the_numeric_types():
    names = {name for name, _ in DIGIT_TYPES}
    assert {"amount", "card.number", "card.cvv", "merchant.mmcc", "merchant.id"} <= names


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize(("name", "ftype"), DIGIT_TYPES, ids=[n for n, _ in DIGIT_TYPES])
def test_every_digit_field_refuses_other_scripts_digits(name, ftype, script):
    valid = ftype.valid()
    ftype.parse(valid)
    with pytest.raises(ValueError):
        ftype.parse(valid.translate(str.maketrans("0123456789", SCRIPTS[script])))


@pytest.mark.parametrize(
    ("ftype", "text"),
    [
        (N(4), "١٢٣"),
        (Amount(), "١٠.٠٠"),
        (Amount(), "10.٠٠"),
        (Rate(), "١.٥"),
        (Percent(), "١٩"),
        (Date("yyyy-MM-dd"), "٢٠٢٤-٠١-٣١"),
        (Date("YYYYMMDD"), "٢٠٢٤٠١٣١"),
        (UtcTimestamp(), "٢٠٢٤٠١٣١١٢٣٠"),
        (CurrencyNumeric(), "٩٧٨"),
        (Url(), "https://shop.example.com:٨٠٨٠/"),
    ],
)
def test_numeric_types_refuse_other_scripts_digits(ftype, text):
    with pytest.raises(ValueError):
        ftype.parse(text)


def test_place_names_keep_any_script_but_ascii_digits():
    from merchants.api.tables import MERCHANT_FIELDS

    city = next(row.type for row in MERCHANT_FIELDS if row.name == "merchant.city")
    assert city.parse("São Paulo") == "São Paulo"
    assert city.parse("القاهرة 2") == "القاهرة 2"
    with pytest.raises(ValueError):
        city.parse("القاهرة ٢")


def test_free_text_keeps_any_script():
    assert AN(20).parse("ORDER ٤٢") == "ORDER ٤٢"


def test_local_urls_refuse_other_scripts_digits_in_the_port():
    from core.fields import LocalUrl

    assert LocalUrl().parse("http://localhost:8080/done") == "http://localhost:8080/done"
    with pytest.raises(ValueError):
        LocalUrl().parse("http://localhost:٨٠٨٠/done")
