"""The ISO 8583 messages of the network link: pyiso8583's encoding with both bitmaps, the 2-byte
length framing, field 48's subelements, amounts in minor units, and traces without card data."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from payments.connectors import iso_messages as iso

AUTH = {
    "t": "0100",
    "2": "4200000000000000",
    "3": "000000",
    "4": "000000001250",
    "7": "1128213000",
    "11": "000042",
    "12": "223000",
    "13": "1128",
    "14": "2812",
    "18": "5999",
    "22": "812",
    "25": "59",
    "32": "123456",
    "37": "633221000042",
    "41": "TERM0001",
    "42": "MERCHANT0000001",
    "43": "Shop                     Vienna       AT",
    "48": iso.subelements({iso.CVV2: "123", iso.BILLING_POSTCODE: "1010"}),
    "49": "978",
}


@pytest.mark.parametrize("bitmap", ["binary", "hex"])
def test_a_message_comes_back_as_it_was_sent(bitmap):
    message = iso.encode(AUTH, bitmap)
    assert message[:4] == b"0100"
    bitmap_length = 8 if bitmap == "binary" else 16
    assert message[4 + bitmap_length : 4 + bitmap_length + 2] == b"16"  # field 2's LLVAR
    assert iso.decode(message, bitmap) == AUTH


def test_the_hex_bitmap_is_sixteen_hex_characters_and_the_binary_one_eight_bytes():
    binary, hexed = iso.encode(AUTH, "binary"), iso.encode(AUTH, "hex")
    assert len(hexed) - len(binary) == 8
    assert hexed[4:20].decode() == binary[4:12].hex().upper()


def test_fields_past_64_set_the_secondary_bitmap():
    echo = {"t": "0800", "7": "1128213000", "11": "000001", "70": iso.ECHO}
    assert iso.decode(iso.encode(echo), "binary") == echo
    assert iso.decode(iso.encode(echo, "hex"), "hex") == echo


def test_frames_carry_a_two_byte_big_endian_length_and_come_apart_in_any_pieces():
    first, second = iso.encode(AUTH), iso.encode({**AUTH, "11": "000043"})
    stream = iso.frame(first) + iso.frame(second)
    assert stream[:2] == len(first).to_bytes(2, "big")
    reader = iso.FrameReader()
    found = []
    for at in range(0, len(stream), 7):  # seven bytes at a time
        found += reader.feed(stream[at : at + 7])
    assert found == [first, second]
    assert reader.feed(b"") == []


def test_a_message_too_long_for_its_header_is_refused():
    with pytest.raises(iso.MessageError):
        iso.frame(b"x" * 65536)


def test_a_broken_message_names_the_field_never_its_value():
    message = iso.encode(AUTH)
    with pytest.raises(iso.MessageError) as raised:
        iso.decode(message[:30])
    assert "4200000000000000" not in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    with pytest.raises(iso.MessageError) as raised:
        iso.encode({**AUTH, "2": "42000000000000001234567"})  # 23 digits: longer than 19
    assert "field 2" in str(raised.value) and "4200000000000000" not in str(raised.value)


def test_field_48_subelements_round_trip_and_empty_values_are_left_out():
    text = iso.subelements({iso.CVV2: "123", iso.BILLING_STREET: "", iso.CREDENTIAL_SOURCE: "MIT"})
    assert text == "CV003123SC003MIT"
    assert iso.parse_subelements(text) == {"CV": "123", "SC": "MIT"}


@pytest.mark.parametrize(
    ("amount", "currency", "field"),
    [
        (Decimal("12.50"), "EUR", "000000001250"),
        (Decimal("1250"), "JPY", "000000001250"),
        (Decimal("1.250"), "BHD", "000000001250"),
        (None, "EUR", "000000000000"),
    ],
)
def test_amounts_go_in_the_currencys_minor_units(amount, currency, field):
    assert iso.amount_field(amount, currency) == field
    numeric = iso.currency_field(currency)
    assert iso.currency_alpha(numeric) == currency
    assert iso.amount_of(field, numeric) == (amount or Decimal(0))


def test_transmission_time_is_utc_and_the_local_fields_the_acceptors():
    now = datetime(2026, 11, 28, 21, 30, 5, tzinfo=UTC)
    local = datetime(2026, 11, 28, 22, 30, 5)
    assert iso.times(now, local) == {"7": "1128213005", "12": "223005", "13": "1128"}


def test_a_trace_shows_no_card_data():
    shown = iso.masked_fields({**AUTH, "35": "4200000000000000=2812", "52": "0123456789ABCDEF"})
    text = repr(shown)
    for secret in ("4200000000000000", "2812", "CV003123", "0123456789ABCDEF"):
        assert secret not in text
    assert shown["2"] == "420000******0000"
    assert iso.parse_subelements(shown["48"]) == {"CV": "***", "AP": "1010"}
    assert shown["11"] == AUTH["11"]
