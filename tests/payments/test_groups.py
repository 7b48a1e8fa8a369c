"""The payment request's data groups (payments/api/tables/): every row's format, generated from
the rows, and every cross-field rule, validated by a Table without HTTP."""

import re
from decimal import Decimal

import pytest

from core.errors import ParameterError
from core.nesting import unflatten
from core.schema import property_schema
from core.tables import F, Table
from payments.api.tables import (
    CUSTOMER,
    GROUP_FIELDS,
    GROUP_LIMITS,
    GROUP_RULES,
    MERCHANT_OVERRIDE,
    OVERRIDE_REQUIRED,
)

TABLE = Table(GROUP_FIELDS, GROUP_RULES, GROUP_LIMITS)

OVERRIDE_BODY = {spec.name: spec.type.valid() for spec in MERCHANT_OVERRIDE}


def concrete(spec: F, key: str | None = None) -> str:
    """The row's name as sent: index 0 for `[n]`, the key type's valid example for `[*]`."""
    name = spec.name.replace("[n]", "[0]")
    if spec.key is not None:
        name = name.replace("[*]", f"[{key if key is not None else spec.key.valid()}]")
    return name


def companions(name: str) -> dict[str, str]:
    """The other fields the group rules ask for when `name` is sent."""
    body: dict[str, str] = {}
    if name.startswith("merchant."):
        body.update({n: v for n, v in OVERRIDE_BODY.items() if n in OVERRIDE_REQUIRED})
    for prefix in ("customer", "shipping.customer"):
        if name.startswith(prefix + "."):
            body.update({f"{prefix}.givenName": "Jane", f"{prefix}.surname": "Doe"})
            if name.endswith(".identificationDocType"):
                body[f"{prefix}.identificationDocId"] = "L01X00T47"
            if name.endswith(".identificationDocId"):
                body[f"{prefix}.identificationDocType"] = "PASSPORT"
    for prefix in ("billing", "shipping"):
        if name == f"{prefix}.houseNumber2":
            body[f"{prefix}.houseNumber1"] = "12"
    match = re.match(r"cart\.items\[\d+\]", name)
    if match:
        body[f"{match.group()}.name"] = "Pen"
    return body


def body(pairs: dict[str, str]) -> dict:
    return unflatten((name, [value]) for name, value in pairs.items())


def validate(pairs: dict[str, str]) -> dict:
    return TABLE.validate(body(pairs))


def errors(pairs: dict[str, str]) -> dict[str, str]:
    with pytest.raises(ParameterError) as info:
        validate(pairs)
    return {name: message for name, _, message in info.value.errors}


def with_companions(name: str, value: str) -> dict[str, str]:
    return {**companions(name), name: value}


# --- Generated from the rows ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", GROUP_FIELDS, ids=lambda f: f.name)
def test_each_field_accepts_its_valid_example(spec):
    name = concrete(spec)
    flat = validate(with_companions(name, spec.type.valid()))
    assert flat[name] == spec.type.parse(spec.type.valid())


INVALID_CASES = [
    (f"{spec.name}-{index}", spec, bad)
    for spec in GROUP_FIELDS
    for index, bad in enumerate(spec.type.invalid())
]


@pytest.mark.parametrize(
    ("case", "spec", "bad"), INVALID_CASES, ids=[case for case, _, _ in INVALID_CASES]
)
def test_each_field_refuses_each_invalid_example(case, spec, bad):
    name = concrete(spec)
    assert name in errors(with_companions(name, bad)), case


KEY_CASES = [
    (f"{spec.name}-key-{index}", spec, bad)
    for spec in GROUP_FIELDS
    if spec.key is not None
    for index, bad in enumerate(spec.key.invalid())
]


@pytest.mark.parametrize(("case", "spec", "bad"), KEY_CASES, ids=[c for c, _, _ in KEY_CASES])
def test_each_map_refuses_each_invalid_key(case, spec, bad):
    name = concrete(spec, key=bad)
    found = errors({name: spec.type.valid()})
    assert found == {name: f"has an invalid name: the key must be {spec.key.describe()}"}


@pytest.mark.parametrize("spec", GROUP_FIELDS, ids=lambda f: f.name)
def test_no_row_is_mandatory_and_every_row_has_a_schema(spec):
    # Mandatory-when-sent is said by the rules; a Mandatory row would be required in every payment.
    assert not spec.mandatory
    assert property_schema(spec)["example"] == spec.type.valid()


def test_the_groups_name_each_field_once_and_leave_out_other_tables_fields():
    names = [spec.name for spec in GROUP_FIELDS]
    assert len(names) == len(set(names))
    assert "merchant.id" not in names
    assert not [n for n in names if n.startswith(("customer.browser.", "risk.score"))]
    assert not [n for n in names if n.startswith("shipping.customer.browserFingerprint")]
    customer = {s.name.removeprefix("customer.") for s in CUSTOMER if s.name.startswith("cust")}
    shipping = {s.name.removeprefix("shipping.customer.") for s in CUSTOMER if s.name[0] == "s"}
    assert customer - shipping == {"browserFingerprint.id", "browserFingerprint.value"}


def test_an_empty_request_carries_no_group_and_is_valid():
    assert validate({}) == {}


# --- Merchant override ---------------------------------------------------------------------------


@pytest.mark.parametrize("trigger", [s.name for s in MERCHANT_OVERRIDE], ids=str)
def test_any_override_field_makes_the_statement_data_required(trigger):
    value = OVERRIDE_BODY[trigger]
    expected = {
        name: "required when a merchant override is sent"
        for name in OVERRIDE_REQUIRED
        if name != trigger
    }
    assert errors({trigger: value}) == expected


def test_a_complete_override_is_accepted_and_optional_parts_may_be_left_out():
    required = {n: v for n, v in OVERRIDE_BODY.items() if n in OVERRIDE_REQUIRED}
    assert set(validate(required)) == set(OVERRIDE_REQUIRED)
    assert set(validate(OVERRIDE_BODY)) == set(OVERRIDE_BODY)


def test_a_blank_override_field_does_not_count_as_an_override():
    assert validate({"merchant.website": ""}) == {"merchant.website": ""}


# --- Customer ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["customer", "shipping.customer"])
def test_names_are_required_when_another_customer_field_is_sent(prefix):
    message = "required when other customer parameters are sent"
    assert errors({f"{prefix}.email": "jane@example.com"}) == {
        f"{prefix}.givenName": message,
        f"{prefix}.surname": message,
    }
    assert errors({f"{prefix}.givenName": "Jane"}) == {f"{prefix}.surname": message}
    assert errors({f"{prefix}.surname": "Doe"}) == {f"{prefix}.givenName": message}
    flat = validate({f"{prefix}.givenName": "Jane", f"{prefix}.surname": "Doe"})
    assert flat == {f"{prefix}.givenName": "Jane", f"{prefix}.surname": "Doe"}


def test_the_fingerprint_counts_as_a_customer_field():
    assert set(errors({"customer.browserFingerprint.id": "fp"})) == {
        "customer.givenName",
        "customer.surname",
    }


def test_the_shipping_customer_does_not_need_the_customer_names():
    flat = validate({"shipping.customer.givenName": "Jo", "shipping.customer.surname": "Roe"})
    assert "customer.givenName" not in flat


@pytest.mark.parametrize("prefix", ["customer", "shipping.customer"])
def test_identification_type_and_id_go_together(prefix):
    names = {f"{prefix}.givenName": "Jane", f"{prefix}.surname": "Doe"}
    doc_type, doc_id = f"{prefix}.identificationDocType", f"{prefix}.identificationDocId"
    assert errors({**names, doc_type: "PASSPORT"}) == {doc_id: f"required when {doc_type} is given"}
    assert errors({**names, doc_id: "L01X00T47"}) == {doc_type: f"required when {doc_id} is given"}
    assert validate({**names, doc_type: "IDCARD", doc_id: "L01X00T47"})[doc_type] == "IDCARD"


@pytest.mark.parametrize(
    "name",
    ["customer.givenName", "customer.middleName", "customer.surname", "shipping.customer.surname"],
)
def test_names_are_truncated_after_48_characters(name):
    prefix = name.rpartition(".")[0]
    pairs = {f"{prefix}.givenName": "Jane", f"{prefix}.surname": "Doe"}
    assert validate({**pairs, name: "x" * 48})[name] == "x" * 48
    assert validate({**pairs, name: "y" * 49})[name] == "y" * 48
    assert validate({**pairs, name: "z" * 300})[name] == "z" * 48


NAMES = {"customer.givenName": "Jane", "customer.surname": "Doe"}


@pytest.mark.parametrize(
    "ip",
    [
        "192.0.2.10",
        "10.0.0.1",
        "2001:db8::1",
        "2001:0db8:0000:0000:0000:0000:0000:0001",
        "::ffff:192.0.2.10",
        "fe80::1%eth0",
        "::1",
    ],
)
def test_ip_accepts_ipv4_and_ipv6(ip):
    assert validate({**NAMES, "customer.ip": ip})["customer.ip"] == ip


@pytest.mark.parametrize(
    "ip",
    [
        "256.1.1.1",
        "192.0.2",
        "192.0.2.1.5",
        "01.2.3.4",
        "2001:db8::g",
        "2001:db8:::1",
        "1:2:3:4:5:6:7:8:9",
        "localhost",
        "garbage",
        "192.0.2.1/24",
    ],
)
def test_ip_refuses_anything_else(ip):
    assert "customer.ip" in errors({**NAMES, "customer.ip": ip})


@pytest.mark.parametrize(
    "email",
    [
        "jane@example.com",
        "jane.doe+shop@mail.example.co.uk",
        "a_b@x-y.de",
        "o'brien@example.ie",
        "jane@münchen.de",
        "JANE@EXAMPLE.COM",
    ],
)
def test_email_accepts_addresses(email):
    assert validate({**NAMES, "customer.email": email})["customer.email"] == email


@pytest.mark.parametrize(
    "email",
    [
        "a@b.de"[:5],
        "jane",
        "jane@",
        "@example.com",
        "jane@example",
        "jane@@example.com",
        "jane doe@example.com",
        ".jane@example.com",
        "jane.@example.com",
        "jane..doe@example.com",
        "jane@-example.com",
        "jane@example.c",
        "jane@exa_mple.com",
        "j" * 65 + "@example.com",
        "jane@" + "a" * 120 + ".com",
    ],
)
def test_email_refuses_malformed_addresses(email):
    assert "customer.email" in errors({**NAMES, "customer.email": email})


@pytest.mark.parametrize(
    ("name", "value", "ok"),
    [
        ("customer.phone", "+49 30 1234567", True),
        ("customer.phone", "(030) 123-45/67", False),  # first char must be + or a digit
        ("customer.phone", "030 (123) 45.67", True),
        ("customer.phone", "+1234567", True),  # + then 7
        ("customer.phone", "+123456", False),  # + then 6
        ("customer.phone", "1" + "2" * 25, True),
        ("customer.phone", "1" + "2" * 26, False),
        ("customer.phone", "+49 30 12345x", False),
        ("customer.mobile", "+12345", True),  # + then 5
        ("customer.mobile", "+1234", False),
        ("customer.workPhone", "ext. 42 / reception", True),
        ("customer.birthDate", "1950-07-01", True),
        ("customer.birthDate", "1899-12-31", False),
        ("customer.birthDate", "2100-01-01", False),
        ("customer.sex", "M", True),
        ("customer.sex", "X", False),
        ("customer.status", "EXISTING", True),
    ],
)
def test_customer_formats(name, value, ok):
    pairs = {**NAMES, name: value}
    if ok:
        assert name in validate(pairs)
    else:
        assert name in errors(pairs)


# --- Billing and shipping ------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["billing", "shipping"])
def test_house_number_2_requires_house_number_1(prefix):
    assert errors({f"{prefix}.houseNumber2": "a"}) == {
        f"{prefix}.houseNumber1": f"required when {prefix}.houseNumber2 is given"
    }
    assert validate({f"{prefix}.houseNumber1": "12", f"{prefix}.houseNumber2": "a"})


@pytest.mark.parametrize("prefix", ["billing", "shipping"])
@pytest.mark.parametrize(
    ("street1", "street2", "refused"),
    [
        ("12", "34", "street1"),
        ("12 34", None, "street1"),
        (None, "1234", "street2"),
        ("", "1234", "street2"),
        ("12", "Main Street", None),
        ("Main Street 12", "3", None),
        ("Hauptstraße", None, None),
    ],
)
def test_streets_together_cannot_be_digits_only(prefix, street1, street2, refused):
    pairs = {
        name: value
        for name, value in ((f"{prefix}.street1", street1), (f"{prefix}.street2", street2))
        if value is not None
    }
    if refused:
        assert errors(pairs) == {
            f"{prefix}.{refused}": "street1 and street2 together cannot be digits only"
        }
    else:
        validate(pairs)


@pytest.mark.parametrize(
    ("name", "value", "ok"),
    [
        ("billing.postcode", "SW1A 1AA", True),
        ("billing.postcode", "00-950", True),
        ("billing.postcode", "-0950", False),
        ("billing.postcode", "12345678901", False),
        ("billing.state", "N.Y.", True),
        ("billing.state", "New York", False),
        ("billing.country", "de", False),
        ("shipping.city", "St. Louis", True),
        ("shipping.city", "L'Aquila", True),
        ("shipping.city", "Zürich", True),
        ("shipping.city", "Berlin 10", False),
        ("shipping.method", "same_day", True),
        ("shipping.method", "SameDay", False),
        ("shipping.method", "air", False),
        ("shipping.cost", "12345678901.99", True),
        ("shipping.cost", "123456789012.99", False),
        ("shipping.cost", "4.9", False),
        ("shipping.destinationCode", "07", True),
        ("shipping.destinationCode", "08", False),
        ("shipping.preference", "NO_SHIPPING", True),
    ],
)
def test_address_formats(name, value, ok):
    if ok:
        assert name in validate({name: value})
    else:
        assert name in errors({name: value})


# --- Order and airline ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "ok"),
    [
        ("order.totalAmount", "100", True),
        ("order.totalAmount", "100.5", True),
        ("order.totalAmount", "1234567890.99", True),
        ("order.totalAmount", "12345678901", False),
        ("order.totalAmount", "1,000.00", False),
        ("order.totalOffersCount", "00", True),
        ("order.totalOffersCount", "100", False),
        ("order.preOrderDate", "20240229", True),
        ("order.reordered", "yes", False),
        ("airline.depatureTime", "2024-05-01 14:30 GMT", True),
        ("airline.depatureTime", "2024-05-01 02:30 PM CET", True),
        ("airline.depatureTime", "2024-05-01 02:30pm GMT+02:00", True),
        ("airline.depatureTime", "2024-05-01 25:30 GMT", False),
        ("airline.depatureTime", "2024-13-01 14:30 GMT", False),
        ("airline.depatureTime", "2024-05-01 14:30", False),
        ("airline.completeRoute", "FRA-JFK", True),
        ("airline.completeRoute", "FRA-JFK:JFK-LAX:LAX-SFO", True),
        ("airline.completeRoute", "FRA JFK", False),
        ("airline.passengers[0].type", "CNN", True),
        ("airline.passengers[0].nationality", "XX", False),
        ("airline.passengers[0].legs[0].departureDate", "2024-02-30", False),
    ],
)
def test_order_and_airline_formats(name, value, ok):
    if ok:
        assert name in validate({name: value})
    else:
        assert name in errors({name: value})


def test_airline_passengers_and_legs_nest_and_are_limited():
    legs = {f"airline.passengers[0].legs[{i}].flightNumber": f"LH{i}" for i in range(99)}
    flat = validate({"airline.passengers[0].givenName": "Jane", **legs})
    assert flat["airline.passengers[0].legs[98].flightNumber"] == "LH98"
    legs["airline.passengers[0].legs[99].flightNumber"] = "LH99"
    assert errors(legs) == {"airline.passengers[0].legs": "at most 99 items"}
    passengers = {f"airline.passengers[{i}].surname": "Doe" for i in range(100)}
    assert errors(passengers) == {"airline.passengers": "at most 99 items"}


# --- Cart ----------------------------------------------------------------------------------------


def test_a_cart_item_needs_a_name():
    assert errors({"cart.items[0].price": "1.00"}) == {
        "cart.items[0].name": "required in every cart item sent"
    }
    assert errors(
        {"cart.items[0].name": "Pen", "cart.items[1].sku": "INK", "cart.items[2].name": ""}
    ) == {
        "cart.items[1].name": "required in every cart item sent",
        "cart.items[2].name": "required in every cart item sent",
    }


def test_1000_cart_items_are_accepted_and_1001_refused():
    items = {f"cart.items[{i}].name": f"item {i}" for i in range(1000)}
    assert validate(items)["cart.items[999].name"] == "item 999"
    items["cart.items[1000].name"] = "one too many"
    assert errors(items) == {"cart.items": "at most 1000 items"}


def test_cart_items_must_be_indexed_from_zero():
    assert errors({"cart.items[1].name": "Pen"}) == {
        "cart.items": "indexes must run from 0 without gaps"
    }


ITEM = {"cart.items[0].name": "Pen"}


@pytest.mark.parametrize(
    ("field", "value", "parsed"),
    [
        ("quantity", "123456789012.123", Decimal("123456789012.123")),
        ("quantity", "2", Decimal("2")),
        ("quantity", "0.5", Decimal("0.5")),
        ("tax", "0", Decimal("0")),
        ("tax", "100", Decimal("100")),
        ("tax", "100.00", Decimal("100.00")),
        ("tax", "19.25", Decimal("19.25")),
        ("price", "12345678901.99", Decimal("12345678901.99")),
        ("shipping", "4.90", Decimal("4.90")),
        ("quantityUnit", "KG", "KG"),
        ("type", "GIFT_CARD", "GIFT_CARD"),
        ("currency", "CHF", "CHF"),
    ],
)
def test_cart_item_formats_accepted(field, value, parsed):
    assert validate({**ITEM, f"cart.items[0].{field}": value})[f"cart.items[0].{field}"] == parsed


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("quantity", "1234567890123"),
        ("quantity", "1.1234"),
        ("quantity", "-1"),
        ("tax", "100.01"),
        ("tax", "101"),
        ("tax", "7.125"),
        ("tax", "7%"),
        ("price", "123456789012.00"),
        ("price", "12"),
        ("quantityUnit", "LB"),
        ("type", "physical"),
        ("currency", "XYZ"),
    ],
)
def test_cart_item_formats_refused(field, value):
    assert f"cart.items[0].{field}" in errors({**ITEM, f"cart.items[0].{field}": value})


@pytest.mark.parametrize(
    "url",
    [
        "https://shop.example.com/items/42",
        "http://shop.example.com",
        "HTTPS://Example.COM/a?b=c#d",
        "https://192.0.2.10:8443/img.png",
        "https://[2001:db8::1]/img.png",
        "https://bücher.example/p/1",
        "https://cdn.example.com/a%20b.jpg",
    ],
)
@pytest.mark.parametrize("field", ["productUrl", "imageUrl"])
def test_urls_accepted(field, url):
    assert validate({**ITEM, f"cart.items[0].{field}": url})[f"cart.items[0].{field}"] == url


@pytest.mark.parametrize(
    "url",
    [
        "shop.example.com/items/42",
        "//shop.example.com/x",
        "ftp://shop.example.com/x",
        "javascript:alert(1)",
        "https://",
        "https:///path",
        "https://shop example.com/",
        "https://shop.example.com:99999/",
        "https://localhost/x",
        "https://-bad-.com/",
        "mailto:jane@example.com",
        "https://" + "a" * 2048 + ".com/",
    ],
)
@pytest.mark.parametrize("field", ["productUrl", "imageUrl"])
def test_urls_refused(field, url):
    assert f"cart.items[0].{field}" in errors({**ITEM, f"cart.items[0].{field}": url})


# --- Risk and custom parameters ------------------------------------------------------------------


@pytest.mark.parametrize("system", ["INTERNAL", "EXT1", "fraud_screen-2", "A" * 32])
def test_risk_system_id_is_internal_or_any_identifier(system):
    assert validate({"risk.systemID": system})["risk.systemID"] == system


@pytest.mark.parametrize("system", ["X", "A" * 33, "two words"])
def test_risk_system_id_refuses(system):
    assert "risk.systemID" in errors({"risk.systemID": system})


def test_risk_parameters_and_custom_parameters_are_maps_with_checked_keys():
    flat = validate(
        {
            "risk.parameters[BLOCKED_IP]": "192.0.2.10",
            "risk.parameters[a.b_c]": "",
            "customParameters[SHOPPER_order.ref]": "x" * 2048,
            "customParameters[abc]": "",
        }
    )
    assert flat["risk.parameters[BLOCKED_IP]"] == "192.0.2.10"
    assert flat["customParameters[SHOPPER_order.ref]"] == "x" * 2048
    assert flat["customParameters[abc]"] == ""
    found = errors({"risk.parameters[" + "k" * 33 + "]": "v", "customParameters[a-b]": "v"})
    assert set(found) == {"risk.parameters[" + "k" * 33 + "]", "customParameters[a-b]"}
    assert "customParameters[" + "k" * 64 + "]" in validate(
        {"customParameters[" + "k" * 64 + "]": "v"}
    )
