"""The field types of the 3-D Secure 2 data: LocalUrl, UtcTimestamp, Base64, CurrencyNumeric."""

from datetime import UTC, datetime

import pytest

from core.fields import Base64, CurrencyNumeric, LocalUrl, Url, UtcTimestamp

TYPES = [
    LocalUrl(),
    UtcTimestamp(),
    Base64(255),
    Base64(8, min=4, example="AAAA"),
    CurrencyNumeric(),
]


@pytest.mark.parametrize("ftype", TYPES, ids=repr)
def test_valid_example_parses(ftype):
    ftype.parse(ftype.valid())


@pytest.mark.parametrize(("ftype", "bad"), [(t, b) for t in TYPES for b in t.invalid()], ids=repr)
def test_invalid_examples_are_refused_with_the_description(ftype, bad):
    with pytest.raises(ValueError, match="must be"):
        ftype.parse(bad)


# --- LocalUrl ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/result",
        "http://localhost:8000/shop/result?x=1",
        "https://localhost",
        "http://127.0.0.1:9/shop/result",
        "http://[::1]:8080/r",
        "https://shop.example.com/checkout/result",
    ],
)
def test_local_url_accepts_loopback_and_public_hosts(url):
    assert LocalUrl().parse(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "ftp://localhost/x",
        "http://localhost:99999/x",
        "http://local host/x",
        "http://localhostx/",
        "http://intranet/x",
        "//localhost/x",
        "javascript:alert(1)",
        "http://localhost/" + "a" * 2048,
    ],
)
def test_local_url_refuses_other_urls(url):
    with pytest.raises(ValueError, match="localhost allowed"):
        LocalUrl().parse(url)


def test_local_url_keeps_url_options_and_leaves_url_alone():
    assert isinstance(LocalUrl(), Url)
    with pytest.raises(ValueError):
        LocalUrl(schemes=("https",)).parse("http://localhost/x")
    with pytest.raises(ValueError):
        Url().parse("http://localhost/x")


# --- UtcTimestamp --------------------------------------------------------------------------------


def test_timestamp_parses_to_an_aware_utc_datetime_and_formats_back():
    value = UtcTimestamp().parse("202402291259")
    assert value == datetime(2024, 2, 29, 12, 59, tzinfo=UTC)
    assert UtcTimestamp().format(value) == "202402291259"
    assert UtcTimestamp().parse("209912312359").year == 2099


@pytest.mark.parametrize(
    "text", ["202302291200", "202413011200", "189912312359", "210001010000", "2024013112301"]
)
def test_timestamp_refuses_impossible_and_out_of_range_times(text):
    with pytest.raises(ValueError, match="YYYYMMDDHHMM"):
        UtcTimestamp().parse(text)


# --- Base64 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["AA==", "AAAA", "jJ+/", "AAABBEg0VhI0VniQEjRWAAAAAAA="])
def test_base64_is_kept_as_sent(text):
    assert Base64(255).parse(text) == text


@pytest.mark.parametrize("text", ["", "====", "AA", "AA=A", "jJ-_", "AA AA", "AAAA\n"])
def test_base64_refuses_malformed_or_empty_values(text):
    with pytest.raises(ValueError):
        Base64(255, min=0).parse(text)


def test_base64_bounds_count_characters():
    assert Base64(8).parse("AAAAAAA=") == "AAAAAAA="
    with pytest.raises(ValueError):
        Base64(8).parse("AAAAAAAAAAAA")
    assert Base64(255).describe() == "base64 of 1 to 255 characters"


# --- CurrencyNumeric -----------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["978", "840", "826", "392", "756"])
def test_numeric_currency_accepts_iso_4217_numeric_codes(code):
    assert CurrencyNumeric().parse(code) == code


@pytest.mark.parametrize("code", ["000", "123", "EUR", "97", "0978", "97 8"])
def test_numeric_currency_refuses_unassigned_codes_and_letters(code):
    with pytest.raises(ValueError, match="ISO 4217 numeric"):
        CurrencyNumeric().parse(code)
