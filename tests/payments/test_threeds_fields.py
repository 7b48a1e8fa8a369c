"""The 3-D Secure 2 fields (payments/threeds/tables.py, v2.py): every row's format, generated
from the rows; the rules every payment obeys; and the conditional rules of a 3-D Secure 2
authentication, validated by Tables and the plain function, without HTTP."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from core.errors import ParameterError
from core.nesting import unflatten
from core.schema import property_schema
from core.tables import Table
from payments.api.tables import CUSTOM_PARAMETERS, GROUP_FIELDS, PAYMENT, PAYMENT_FIELDS
from payments.threeds.tables import (
    CARDHOLDER_HISTORY,
    CARDHOLDER_HISTORY_NAMES,
    PRE_AUTHENTICATED,
    THREEDS_FIELDS,
    THREEDS_RULES,
    cardholder_history,
)
from payments.threeds.v2 import threeds_v2_problems
from tests.payments.conftest import VISA, card
from tests.payments.threeds_helpers import BROWSER, SHOPPER_RESULT_URL

TABLE = Table([*THREEDS_FIELDS, *CUSTOM_PARAMETERS], THREEDS_RULES)

PRE_AUTH_BODY = {
    "threeDSecure.indicator": "third",
    "threeDSecure.authenticationStatus": "Y",
    "threeDSecure.eci": "05",
    "threeDSecure.verificationId": "AAABBEg0VhI0VniQEjRWAAAAAAA=",
    "threeDSecure.dsTransactionId": "f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
}


def companions(name: str) -> dict[str, str]:
    """The other fields the rules ask for when `name` is sent."""
    if name in PRE_AUTHENTICATED:
        return dict(PRE_AUTH_BODY)
    if name == "threeDSecure.amount":
        return {"threeDSecure.currency": "EUR"}
    if name == "threeDSecure.currency":
        return {"threeDSecure.amount": "10.00"}
    return {}


def body(pairs: dict[str, str]) -> dict:
    return unflatten((name, [value]) for name, value in pairs.items())


def validate(pairs: dict[str, str], table: Table = TABLE) -> dict:
    return table.validate(body(pairs))


def errors(pairs: dict[str, str], table: Table = TABLE) -> dict[str, str]:
    with pytest.raises(ParameterError) as info:
        validate(pairs, table)
    return {name: message for name, _, message in info.value.errors}


# --- Generated from the rows ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", THREEDS_FIELDS, ids=lambda f: f.name)
def test_each_field_accepts_its_valid_example(spec):
    flat = validate({**companions(spec.name), spec.name: spec.type.valid()})
    assert flat[spec.name] == spec.type.parse(spec.type.valid())


INVALID_CASES = [
    (f"{spec.name}-{index}", spec, bad)
    for spec in THREEDS_FIELDS
    for index, bad in enumerate(spec.type.invalid())
]


@pytest.mark.parametrize(
    ("case", "spec", "bad"), INVALID_CASES, ids=[case for case, _, _ in INVALID_CASES]
)
def test_each_field_refuses_each_invalid_example(case, spec, bad):
    found = errors({**companions(spec.name), spec.name: bad})
    assert found == {spec.name: f"must be {spec.type.describe()}"}, case


@pytest.mark.parametrize("spec", THREEDS_FIELDS, ids=lambda f: f.name)
def test_no_row_is_mandatory_and_every_row_has_a_schema(spec):
    # Requiredness is the rules' and threeds_v2_problems' business: a payment without 3-D Secure
    # must not need any of these.
    assert not spec.mandatory
    assert property_schema(spec)["example"] == spec.type.valid()


def test_the_rows_are_new_to_the_payment_table():
    names = [spec.name for spec in THREEDS_FIELDS]
    assert len(names) == len(set(names))
    taken = {spec.name for spec in [*PAYMENT_FIELDS, *GROUP_FIELDS]}
    assert not taken & set(names)
    assert [spec.name for spec in CARDHOLDER_HISTORY] == [
        f"customParameters[{name}]" for name in CARDHOLDER_HISTORY_NAMES
    ]
    assert len(CARDHOLDER_HISTORY_NAMES) == 32


def test_a_payment_without_3ds_data_is_unaffected():
    assert validate({}) == {}
    assert validate({"customParameters[orderRef]": "42"}) == {"customParameters[orderRef]": "42"}


# --- Browser data --------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["acceptHeader", "userAgent"])
def test_accept_header_and_user_agent_are_truncated_after_2048(field):
    name = f"customer.browser.{field}"
    assert validate({name: "a" * 2048})[name] == "a" * 2048
    assert validate({name: "b" * 2049})[name] == "b" * 2048
    assert validate({name: "c" * 10000})[name] == "c" * 2048
    assert name in errors({name: "text/html\x00"})


@pytest.mark.parametrize(
    ("sent", "stored"),
    [("1", "01"), ("3", "03"), ("5", "05"), ("01", "01"), ("03", "03"), ("05", "05")],
)
def test_challenge_window_accepts_one_digit_and_returns_two(sent, stored):
    name = "customer.browser.challengeWindow"
    assert validate({name: sent})[name] == stored


@pytest.mark.parametrize("sent", ["0", "00", "6", "06", "003", "full"])
def test_challenge_window_refuses_other_sizes(sent):
    assert "customer.browser.challengeWindow" in errors({"customer.browser.challengeWindow": sent})


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("language", "en", True),
        ("language", "en-US", True),
        ("language", "de-CH", True),
        ("language", "es-419", True),
        ("language", "zh-Hant", True),
        ("language", "fil", True),
        ("language", "e", False),
        ("language", "en_US", False),
        ("language", "en-", False),
        ("language", "-US", False),
        ("language", "en--US", False),
        ("language", "de-CH-1996", False),  # a valid tag, but over the spec's 8 characters
        ("language", "12", False),
        ("timezone", "-120", True),
        ("timezone", "60", True),
        ("timezone", "0", True),
        ("timezone", "-840", True),
        ("timezone", "+60", False),
        ("timezone", "1-2", False),
        ("timezone", "--1", False),
        ("timezone", "-", False),
        ("timezone", "123456", False),
        ("timezone", "1.5", False),
        ("screenHeight", "1080", True),
        ("screenHeight", "999999", True),
        ("screenHeight", "1234567", False),
        ("screenWidth", "1920px", False),
        ("screenColorDepth", "24", True),
        ("screenColorDepth", "48", True),
        ("screenColorDepth", "2", False),
        ("screenColorDepth", "024", False),
        ("javaEnabled", "false", True),
        ("javaEnabled", "TRUE", False),
        ("javascriptEnabled", "true", True),
        ("javascriptEnabled", "1", False),
        ("deviceId", "d" * 32, True),
        ("deviceId", "d" * 33, False),
    ],
)
def test_browser_formats(field, value, ok):
    name = f"customer.browser.{field}"
    if ok:
        assert validate({name: value})[name] == value
    else:
        assert name in errors({name: value})


def test_browser_data_does_not_make_the_customer_names_required():
    # groups.py's names rule counts only the customer group's own rows.
    table = Table([*THREEDS_FIELDS, *GROUP_FIELDS], THREEDS_RULES)
    assert validate(BROWSER, table)["customer.browser.language"] == "en-US"


# --- Preferences and the pre-authenticated group -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "ok"),
    [
        ("threeDSecure.indicator", "force", True),
        ("threeDSecure.indicator", "TRUE", False),
        ("threeDSecure.indicator", "false", False),
        ("threeDSecure.challengeIndicator", "04", True),
        ("threeDSecure.challengeIndicator", "05", False),
        ("threeDSecure.challengeIndicator", "1", False),
        ("threeDSecure.eci", "07", True),
        ("threeDSecure.eci", "7", False),
        ("threeDSecure.eci", "007", False),
        ("threeDSecure.verificationId", "jJ+/AAAA", True),
        ("threeDSecure.verificationId", "jJ-_AAAA", False),
        ("threeDSecure.verificationId", "AAA", False),
        ("threeDSecure.verificationId", "A" * 256, False),
        ("threeDSecure.dsTransactionId", "f25084f0-5b16-4c0a-ae5d-b24808a95e4b", True),
        ("threeDSecure.dsTransactionId", "D" * 64, True),
        ("threeDSecure.dsTransactionId", "D" * 65, False),
        ("threeDSecure.dsTransactionId", "f25084f0 5b16", False),
        ("threeDSecure.authenticationStatus", "y", False),
        ("threeDSecure.authenticationStatus", "YY", False),
    ],
)
def test_preference_and_pre_authentication_formats(name, value, ok):
    pairs = {**companions(name), name: value}
    if ok:
        assert validate(pairs)[name] == value
    else:
        assert name in errors(pairs)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("999999999.99", True),  # 12 characters
        ("0.01", True),
        ("1000000000.00", False),  # 13 characters
        ("10.5", False),
        ("10", False),
        ("10,00", False),
        ("-1.00", False),
    ],
)
def test_threeds_amount_has_at_most_12_characters_and_two_decimals(value, ok):
    pairs = {"threeDSecure.amount": value, "threeDSecure.currency": "EUR"}
    if ok:
        assert validate(pairs)["threeDSecure.amount"] == Decimal(value)
    else:
        assert "threeDSecure.amount" in errors(pairs)


@pytest.mark.parametrize(
    "url",
    [
        SHOPPER_RESULT_URL,
        "http://127.0.0.1:8000/shop/result",
        "http://localhost:8000/shop/result",
        "https://shop.example.com/checkout/result?order=42",
    ],
)
def test_shopper_result_url_accepts_public_and_loopback_urls(url):
    assert validate({"shopperResultUrl": url})["shopperResultUrl"] == url


@pytest.mark.parametrize(
    "url",
    ["shop.example.com/result", "ftp://shop.example.com/r", "javascript:alert(1)", "https://"],
)
def test_shopper_result_url_refuses_other_values(url):
    assert "shopperResultUrl" in errors({"shopperResultUrl": url})


def test_threeds_amount_and_currency_go_together():
    assert errors({"threeDSecure.amount": "5.00"}) == {
        "threeDSecure.currency": "is required when threeDSecure.amount is given (they go together)"
    }
    assert errors({"threeDSecure.currency": "USD"}) == {
        "threeDSecure.amount": "is required when threeDSecure.currency is given (they go together)"
    }
    flat = validate({"threeDSecure.amount": "5.00", "threeDSecure.currency": "USD"})
    assert flat == {"threeDSecure.amount": Decimal("5.00"), "threeDSecure.currency": "USD"}
    assert validate({"threeDSecure.amount": "", "threeDSecure.currency": ""})


def test_pre_authenticated_group_is_accepted_whole():
    assert validate(PRE_AUTH_BODY) == PRE_AUTH_BODY
    assert validate({**PRE_AUTH_BODY, "threeDSecure.authenticationStatus": "A"})


def test_indicator_third_requires_the_whole_group():
    message = "is required when threeDSecure.indicator is third (pre-authenticated)"
    assert errors({"threeDSecure.indicator": "third"}) == dict.fromkeys(PRE_AUTHENTICATED, message)


@pytest.mark.parametrize("missing", PRE_AUTHENTICATED)
def test_each_pre_authentication_field_is_required_with_indicator_third(missing):
    pairs = {name: value for name, value in PRE_AUTH_BODY.items() if name != missing}
    assert errors(pairs) == {
        missing: "is required when threeDSecure.indicator is third (pre-authenticated)"
    }
    assert errors({**pairs, missing: ""}) == {
        missing: "is required when threeDSecure.indicator is third (pre-authenticated)"
    }


@pytest.mark.parametrize(
    ("status", "meaning"),
    [
        ("N", "not authenticated"),
        ("U", "authentication could not be performed"),
        ("R", "authentication rejected"),
        ("C", "challenge required, not completed"),
    ],
)
def test_a_failed_authentication_is_refused(status, meaning):
    assert errors({**PRE_AUTH_BODY, "threeDSecure.authenticationStatus": status}) == {
        "threeDSecure.authenticationStatus": (
            f"is a failed authentication ({status}: {meaning}): do not send the "
            "pre-authenticated group when authentication failed"
        )
    }


@pytest.mark.parametrize("indicator", [None, "", "force", "true"])
@pytest.mark.parametrize("name", PRE_AUTHENTICATED)
def test_pre_authentication_fields_need_indicator_third(indicator, name):
    pairs = {name: PRE_AUTH_BODY[name]}
    if indicator is not None:
        pairs["threeDSecure.indicator"] = indicator
    assert errors(pairs) == {name: "requires threeDSecure.indicator=third"}


def test_without_indicator_third_the_whole_group_is_refused_field_by_field():
    pairs = {**PRE_AUTH_BODY, "threeDSecure.indicator": "true"}
    assert errors(pairs) == dict.fromkeys(
        PRE_AUTHENTICATED, "requires threeDSecure.indicator=third"
    )


def test_indicator_third_accepts_and_ignores_the_3ds_flow_data():
    # No authentication of ours runs; shops that send the same browser block on every payment
    # are not refused for it.
    pairs = {
        **PRE_AUTH_BODY,
        **BROWSER,
        "shopperResultUrl": SHOPPER_RESULT_URL,
        "threeDSecure.challengeIndicator": "04",
        "threeDSecure.amount": "5.00",
        "threeDSecure.currency": "EUR",
    }
    assert validate(pairs)["threeDSecure.challengeIndicator"] == "04"


# --- Cardholder history --------------------------------------------------------------------------


def test_literal_history_keys_take_precedence_over_the_open_map():
    for name in CARDHOLDER_HISTORY_NAMES:
        spec = TABLE.match(f"customParameters[{name}]")
        assert spec is not None and spec.name == f"customParameters[{name}]"
        assert spec.key is None
    assert TABLE.match("customParameters[orderRef]").name == "customParameters[*]"


def test_history_keys_are_validated_while_other_custom_parameters_stay_free():
    found = errors(
        {
            "customParameters[ReqAuthMethod]": "09",
            "customParameters[AccountAgeIndicator]": "06",
            "customParameters[orderRef]": "09",
            "customParameters[SHOPPER_anything]": "x" * 2048,
        }
    )
    assert set(found) == {
        "customParameters[ReqAuthMethod]",
        "customParameters[AccountAgeIndicator]",
    }
    flat = validate(
        {
            "customParameters[ReqAuthMethod]": "02",
            "customParameters[orderRef]": "09",
            "customParameters[3DS2_flow]": "challenge",
        }
    )
    assert flat == {
        "customParameters[ReqAuthMethod]": "02",
        "customParameters[orderRef]": "09",
        "customParameters[3DS2_flow]": "challenge",
    }


def test_history_keys_are_validated_in_nested_json_too():
    data = {"customParameters": {"ReqAuthMethod": "09", "orderRef": "x"}}
    with pytest.raises(ParameterError) as info:
        TABLE.validate(data)
    assert [name for name, _, _ in info.value.errors] == ["customParameters[ReqAuthMethod]"]


def test_a_blank_history_value_is_not_applicable():
    assert validate({"customParameters[ShipIndicator]": ""}) == {
        "customParameters[ShipIndicator]": ""
    }


HISTORY_CASES = [
    ("ReqAuthMethod", "06", "06"),
    ("ReqAuthMethod", "07", None),
    ("ReqAuthMethod", "1", None),
    ("ReqAuthTimestamp", "202401311230", datetime(2024, 1, 31, 12, 30, tzinfo=UTC)),
    ("ReqAuthTimestamp", "202402301230", None),
    ("ReqAuthTimestamp", "202401312400", None),
    ("ReqAuthTimestamp", "20240131", None),
    ("PriorAuthMethod", "04", "04"),
    ("PriorAuthMethod", "05", None),
    ("PriorAuthTimestamp", "202312312359", datetime(2023, 12, 31, 23, 59, tzinfo=UTC)),
    ("PriorAuthTimestamp", "2023-12-31T23:59", None),
    ("PriorReference", "r" * 64, "r" * 64),
    ("PriorReference", "r" * 65, None),
    ("AccountId", "a" * 255, "a" * 255),
    ("AccountId", "a" * 256, None),
    ("AccountAgeIndicator", "05", "05"),
    ("AccountAgeIndicator", "06", None),
    ("AccountChangeDate", "20240229", date(2024, 2, 29)),
    ("AccountChangeDate", "20230229", None),
    ("AccountChangeDate", "2024-02-29", None),
    ("AccountChangeIndicator", "04", "04"),
    ("AccountChangeIndicator", "05", None),
    ("AccountDate", "19991231", date(1999, 12, 31)),
    ("AccountPasswordChangeDate", "20240101", date(2024, 1, 1)),
    ("AccountPasswordChangeIndicator", "05", "05"),
    ("AccountPasswordChangeIndicator", "00", None),
    ("AccountPurchaseCount", "9999", "9999"),
    ("AccountPurchaseCount", "10000", None),
    ("AccountProvisioningAttempts", "0", "0"),
    ("AccountProvisioningAttempts", "-1", None),
    ("AccountDayTransactions", "12", "12"),
    ("AccountYearTransactions", "1x", None),
    ("PaymentAccountAge", "20200101", date(2020, 1, 1)),
    ("PaymentAccountAgeIndicator", "03", "03"),
    ("ShipAddressUsageDate", "20240115", date(2024, 1, 15)),
    ("ShipAddressUsageIndicator", "05", "05"),
    ("ShipIndicator", "07", "07"),
    ("ShipIndicator", "08", None),
    ("ShipNameIndicator", "02", "02"),
    ("ShipNameIndicator", "03", None),
    ("SuspiciousAccountActivity", "01", "01"),
    ("SuspiciousAccountActivity", "03", None),
    ("TransactionType", "28", "28"),
    ("TransactionType", "02", None),
    ("DeliveryTimeframe", "04", "04"),
    ("DeliveryTimeframe", "05", None),
    ("DeliveryEmailAddress", "gift@example.com", "gift@example.com"),
    ("DeliveryEmailAddress", "gift@example", None),
    ("ReorderItemsIndicator", "02", "02"),
    ("ReorderItemsIndicator", "03", None),
    ("PreOrderPurchaseIndicator", "01", "01"),
    ("PreOrderPurchaseIndicator", "3", None),
    ("PreOrderDate", "20991231", date(2099, 12, 31)),
    ("PreOrderDate", "21000101", None),
    ("GiftCardAmount", "9" * 15, "9" * 15),
    ("GiftCardAmount", "9" * 16, None),
    ("GiftCardAmount", "10.00", None),
    ("GiftCardCurrency", "978", "978"),
    ("GiftCardCurrency", "EUR", None),
    ("GiftCardCurrency", "000", None),
    ("GiftCardCount", "99", "99"),
    ("GiftCardCount", "100", None),
]


@pytest.mark.parametrize(
    ("history", "value", "parsed"), HISTORY_CASES, ids=[f"{n}={v}" for n, v, _ in HISTORY_CASES]
)
def test_cardholder_history_formats(history, value, parsed):
    name = f"customParameters[{history}]"
    if parsed is None:
        assert name in errors({name: value})
    else:
        assert validate({name: value})[name] == parsed


def test_every_history_name_has_a_case():
    assert {name for name, _, _ in HISTORY_CASES} == set(CARDHOLDER_HISTORY_NAMES)


def test_cardholder_history_gives_the_values_as_sent():
    sent = {
        "customParameters[ReqAuthMethod]": "02",
        "customParameters[ReqAuthTimestamp]": "202401311230",
        "customParameters[AccountDate]": "20190704",
        "customParameters[GiftCardCurrency]": "978",
        "customParameters[ShipIndicator]": "",
        "customParameters[orderRef]": "42",
    }
    assert cardholder_history(validate(sent)) == {
        "ReqAuthMethod": "02",
        "ReqAuthTimestamp": "202401311230",
        "AccountDate": "20190704",
        "GiftCardCurrency": "978",
    }


# --- threeds_v2_problems -------------------------------------------------------------------------

V2_FLAT = {
    "amount": Decimal("10.00"),
    "currency": "EUR",
    "card.holder": "Jane Doe",
    "shopperResultUrl": SHOPPER_RESULT_URL,
    **BROWSER,
    "billing.street1": "1 Main Street",
    "billing.city": "Berlin",
    "billing.postcode": "10115",
    "billing.country": "DE",
    "customer.email": "jane@example.com",
}
JS_NAMES = (
    "customer.browser.screenHeight",
    "customer.browser.screenWidth",
    "customer.browser.timezone",
)
JAVA_NAMES = ("customer.browser.javaEnabled", "customer.browser.screenColorDepth")
V2_REQUIRED = (
    "shopperResultUrl",
    "customer.browser.acceptHeader",
    "customer.browser.language",
    "customer.browser.userAgent",
    "customer.browser.javascriptEnabled",
    "billing.street1",
    "billing.city",
    "billing.postcode",
    "billing.country",
    "customer.email",
    "card.holder",
    "amount",
    "currency",
)


def without(*names: str, **changes) -> dict:
    flat = {name: value for name, value in V2_FLAT.items() if name not in names}
    return {**flat, **{name.replace("__", "."): value for name, value in changes.items()}}


def problems(flat: dict, version: str = "2.2.0") -> dict[str, str]:
    found = threeds_v2_problems(flat, version=version)
    assert len(found) == len(dict(found)), found
    return dict(found)


@pytest.mark.parametrize("version", ["2.1.0", "2.2.0"])
def test_complete_v2_data_has_no_problems(version):
    assert problems(V2_FLAT, version) == {}


@pytest.mark.parametrize("version", ["2.1.0", "2.2.0"])
@pytest.mark.parametrize("missing", V2_REQUIRED)
def test_v2_required_fields(version, missing):
    assert problems(without(missing), version) == {missing: "is required for 3-D Secure 2"}
    assert problems({**V2_FLAT, missing: ""}, version) == {missing: "is required for 3-D Secure 2"}


def test_nothing_sent_lists_every_required_field():
    assert set(problems({})) == set(V2_REQUIRED)
    assert set(problems({}, "2.1.0")) == {*V2_REQUIRED, *JAVA_NAMES}


@pytest.mark.parametrize("missing", JS_NAMES)
@pytest.mark.parametrize("version", ["2.1.0", "2.2.0"])
def test_javascript_on_needs_screen_and_timezone(version, missing):
    assert problems(without(missing), version) == {
        missing: "is required for 3-D Secure 2 when customer.browser.javascriptEnabled is true"
    }


@pytest.mark.parametrize("missing", JAVA_NAMES)
def test_v22_with_javascript_needs_java_and_colour_depth(missing):
    assert problems(without(missing), "2.2.0") == {
        missing: "is required for 3-D Secure 2.2 when customer.browser.javascriptEnabled is true"
    }


def test_v22_without_javascript_needs_neither_screen_nor_java():
    flat = without(*JS_NAMES, *JAVA_NAMES, **{"customer.browser.javascriptEnabled": "false"})
    assert problems(flat, "2.2.0") == {}


@pytest.mark.parametrize("javascript", ["true", "false"])
def test_v21_needs_java_and_colour_depth_always(javascript):
    flat = without(*JAVA_NAMES, **{"customer.browser.javascriptEnabled": javascript})
    assert problems(flat, "2.1.0") == dict.fromkeys(JAVA_NAMES, "is required for 3-D Secure 2.1")


def test_v21_without_javascript_needs_no_screen():
    flat = without(*JS_NAMES, **{"customer.browser.javascriptEnabled": "false"})
    assert problems(flat, "2.1.0") == {}


def test_v21_with_javascript_needs_all_five():
    assert set(problems(without(*JS_NAMES, *JAVA_NAMES), "2.1.0")) == {*JS_NAMES, *JAVA_NAMES}


def test_without_javascript_enabled_only_it_is_reported():
    flat = without("customer.browser.javascriptEnabled", *JS_NAMES, *JAVA_NAMES)
    assert problems(flat, "2.2.0") == {
        "customer.browser.javascriptEnabled": "is required for 3-D Secure 2"
    }


def test_later_versions_follow_22_and_others_are_a_caller_error():
    flat = without(*JAVA_NAMES, **{"customer.browser.javascriptEnabled": "false"})
    assert problems(flat, "2.3.1") == {}
    assert set(problems(without(*JAVA_NAMES), "2.3.1")) == set(JAVA_NAMES)
    for version in ("1.0.2", "2.2", "", "v2"):
        with pytest.raises(ValueError, match="not a 3-D Secure 2 protocol version"):
            threeds_v2_problems(V2_FLAT, version=version)


@pytest.mark.parametrize(
    ("name", "ok", "bad", "size"),
    [
        ("billing.city", "Ul", "U", "2 to 45"),
        ("billing.city", "C" * 45, "C" * 46, "2 to 45"),
        ("billing.street1", "S" * 50, "S" * 51, "at most 50"),
        ("billing.street2", "S" * 50, "S" * 51, "at most 50"),
        ("billing.postcode", "P" * 50, "P" * 51, "at most 50"),
        ("shipping.street1", "S" * 50, "S" * 51, "at most 50"),
        ("shipping.street2", "S" * 50, "S" * 51, "at most 50"),
        ("shipping.city", "C" * 50, "C" * 51, "at most 50"),
        ("shipping.postcode", "P" * 16, "P" * 17, "at most 16"),
        ("customer.email", "e" * 116 + "@example.com", "e" * 117 + "@example.com", "at most 128"),
        ("card.holder", "H" * 128, "H" * 129, "at most 128"),
        (
            "customer.ip",
            "2001:db8::1",
            "0000:0000:0000:0000:0000:ffff:192.168.100.228x",
            "at most 45",
        ),
    ],
)
def test_v2_lengths(name, ok, bad, size):
    assert problems({**V2_FLAT, name: ok}) == {}
    assert problems({**V2_FLAT, name: bad}) == {name: f"must be {size} characters for 3-D Secure 2"}


@pytest.mark.parametrize("name", ["billing.state", "shipping.state"])
@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("BE", True),
        ("NY", True),
        ("13", True),
        ("ZH1", True),
        ("N.Y", False),
        ("BERL", False),
        ("B E", False),
    ],
)
def test_v2_state_is_a_subdivision_code(name, value, ok):
    found = problems({**V2_FLAT, name: value})
    if ok:
        assert found == {}
    else:
        assert found == {
            name: "must be at most 3 letters or digits for 3-D Secure 2 (ISO 3166-2 subdivision)"
        }


@pytest.mark.parametrize("name", ["customer.phone", "customer.workPhone", "customer.mobile"])
@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("+49-301234567", True),
        ("49-301234567", True),
        ("1-5551234", True),
        ("+123-" + "9" * 15, True),  # 20 characters
        ("+1234-5551234", False),  # country code of 4 digits
        ("+49 301234567", False),  # no hyphen
        ("+49-30-1234567", False),
        ("+49-" + "9" * 16, False),
        ("+-301234567", False),
        ("+49-", False),
    ],
)
def test_v2_phones_are_country_code_hyphen_number(name, value, ok):
    found = problems({**V2_FLAT, name: value})
    if ok:
        assert found == {}
    else:
        assert list(found) == [name] and found[name].startswith("must be +ccc-nnnnnnnnn")


def test_blank_optional_v2_fields_are_not_checked():
    blanks = {"shipping.city": "", "billing.state": "", "customer.phone": "", "billing.street2": ""}
    assert problems({**V2_FLAT, **blanks}) == {}


def test_the_authenticated_amount_has_at_most_12_characters():
    assert problems({**V2_FLAT, "amount": Decimal("999999999.99")}) == {}
    assert problems({**V2_FLAT, "amount": Decimal("1000000000.00")}) == {
        "amount": "must be at most 999999999.99 for 3-D Secure 2 (at most 12 characters with two "
        "decimals)"
    }
    # With threeDSecure.amount that one is authenticated (its own type caps it).
    flat = {**V2_FLAT, "amount": Decimal("1000000000.00"), "threeDSecure.amount": Decimal("5.00")}
    assert problems(flat) == {}


def test_problems_from_values_parsed_by_the_payment_table():
    # The payment table carries these rows: its parsed values (Decimal amounts, "true"/"false"
    # strings) are what threeds_v2_problems reads.
    assert {spec.name for spec in THREEDS_FIELDS} <= PAYMENT.names()
    table = PAYMENT
    sent = {
        "entityId": "BANK0001",
        "entityType": "MERCHANT",
        "merchantTransactionId": "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
        "paymentType": "DB",
        "merchant.id": "123456789012345",
        "amount": "10.00",
        "currency": "EUR",
        **card(VISA),
        "threeDSecure.indicator": "true",
        **{name: value for name, value in V2_FLAT.items() if name not in ("amount", "currency")},
        "customer.givenName": "Jane",
        "customer.surname": "Doe",
        "customer.browser.challengeWindow": "3",
        "customParameters[ReqAuthMethod]": "02",
    }
    flat = validate(sent, table)
    assert flat["customer.browser.challengeWindow"] == "03"
    assert threeds_v2_problems(flat, version="2.2.0") == []
    flat.pop("customer.browser.screenWidth")
    assert threeds_v2_problems(flat, version="2.2.0") == [
        (
            "customer.browser.screenWidth",
            "is required for 3-D Secure 2 when customer.browser.javascriptEnabled is true",
        )
    ]
