"""The field types of the payment data groups: Truncated, Email, IPAddress, Url, Percent."""

from decimal import Decimal

import pytest

from core.fields import Email, IPAddress, Percent, Truncated, Url

TYPES = [Truncated(48), Truncated(10, min=3, example="abc"), Email(), IPAddress(), Url(), Percent()]


@pytest.mark.parametrize("ftype", TYPES, ids=repr)
def test_valid_example_parses(ftype):
    ftype.parse(ftype.valid())


@pytest.mark.parametrize(("ftype", "bad"), [(t, b) for t in TYPES for b in t.invalid()], ids=repr)
def test_invalid_examples_are_refused_with_the_description(ftype, bad):
    with pytest.raises(ValueError, match="must be"):
        ftype.parse(bad)


def test_truncated_cuts_longer_text_and_keeps_shorter():
    assert Truncated(48).parse("a" * 100) == "a" * 48
    assert Truncated(48).parse("Jane") == "Jane"
    with pytest.raises(ValueError):
        Truncated(10, min=3).parse("ab")
    assert Truncated(48).describe() == "AN48: at least 1 characters, truncated after 48"


def test_email_bounds():
    assert Email(max=20, min=6).parse("a@b.de") == "a@b.de"
    with pytest.raises(ValueError):
        Email(max=20, min=7).parse("a@b.de")
    with pytest.raises(ValueError):
        Email(max=20).parse("abcdefghijkl@example.com")
    assert Email().parse("jane@xn--mnchen-3ya.de") == "jane@xn--mnchen-3ya.de"


def test_ip_address_is_kept_as_sent_and_bounded():
    assert IPAddress().parse("2001:DB8::1") == "2001:DB8::1"
    with pytest.raises(ValueError):
        IPAddress(max=8).parse("192.0.2.10")


def test_url_schemes_are_configurable():
    assert Url(schemes=("https",)).parse("https://example.com") == "https://example.com"
    with pytest.raises(ValueError):
        Url(schemes=("https",)).parse("http://example.com")
    with pytest.raises(ValueError):
        Url(max=20).parse("https://example.com/abcdef")


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("100", 100), ("99.99", Decimal("99.99"))])
def test_percent_from_0_to_100(text, value):
    assert Percent().parse(text) == value
    assert Percent(places=3).parse("1.125") == Decimal("1.125")
