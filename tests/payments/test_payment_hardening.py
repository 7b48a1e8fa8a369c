"""Payment validation gaps of issue 9, item 11: digits of other scripts, zero amounts, amounts
that do not fit the currency's minor units."""

import pytest

from payments.models import Payment
from tests.conftest import code, param_errors
from tests.payments.conftest import card, mtid


def body(payer, **fields):  # type: ignore[no-untyped-def]
    return {
        "paymentType": "DB",
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": mtid(),
        "amount": "10.00",
        "currency": "EUR",
        **card(),
        **fields,
    }


def refused(response, name: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.json()
    assert code(response) == "200.300.404"
    assert name in param_errors(response), param_errors(response)


@pytest.mark.parametrize(
    ("name", "value"),
    [("amount", "١٠.٠٠"), ("card.cvv", "١٢٣"), ("card.number", "٤٢٠٠٠٠٠٠٠٠٠٠٠٠٠٠")],
)
def test_a_payment_with_other_scripts_digits_is_refused(payer, name, value):
    refused(payer.client.post("/pay/v3/payments", body(payer, **{name: value}), mtid=False), name)
    assert not Payment.objects.exists()


# --- Zero amounts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["DB", "PA", "CD"])
def test_a_zero_amount_is_refused_for_money_movements(payer, kind):
    response = payer.client.post(
        "/pay/v3/payments", body(payer, paymentType=kind, amount="0.00"), mtid=False
    )
    refused(response, "amount")
    assert "greater than 0.00" in param_errors(response)["amount"]
    assert not Payment.objects.exists()


@pytest.mark.parametrize(
    ("kind", "extra"),
    [("CP", {}), ("RF", {}), ("RV", {"transactionSource": "PARTIAL"})],
)
def test_a_zero_amount_is_refused_for_referenced_operations(payer, kind, extra):
    original = payer.pay("PA" if kind == "CP" else "DB", "10.00").json()["id"]
    refused(payer.ref(kind, original, "0.00", **extra), "amount")
    assert Payment.objects.count() == 1


def test_a_zero_amount_is_refused_for_a_pos_refund(merchant_api, merchant, terminal):
    from tests.conftest import SpecClient
    from tests.payments.conftest import Payer

    pos = Payer(SpecClient(merchant_api.token, merchant_api.entity_id, "POS"), merchant)
    original = pos.pay("DB", **{"pos.terminalId": terminal.terminal_id}).json()["id"]
    refused(pos.ref("PR", original, "0.00", **{"pos.terminalId": terminal.terminal_id}), "amount")


@pytest.mark.parametrize("amount", [None, "0.00"])
def test_a_verification_may_carry_no_amount_or_zero(payer, amount):
    response = payer.pay("CV", amount)
    assert response.status_code == 200 and code(response) == "000.000.000"


# --- Amounts and the currency's minor units (ISO 4217 exponent) --------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "ok"),
    [
        ("100.00", "JPY", True),
        ("100.50", "JPY", False),
        ("100.05", "JPY", False),
        ("100.50", "EUR", True),
        ("10.55", "BHD", True),  # three decimals in ISO 4217: two always fit
        ("100.00", "CLP", True),
        ("100.10", "KRW", False),
        ("10.00", "XAU", False),  # no minor unit defined (a metal, not a currency of payment)
    ],
)
def test_the_amount_fits_the_currency(payer, amount, currency, ok):
    response = payer.client.post(
        "/pay/v3/payments", body(payer, amount=amount, currency=currency), mtid=False
    )
    if ok:
        assert code(response) == "000.000.000", response.json()
    else:
        refused(response, "amount")
        assert currency in param_errors(response)["amount"]


def test_a_capture_in_yen_must_fit_too(payer):
    pa = payer.pay("PA", "1000.00", currency="JPY").json()["id"]
    refused(payer.ref("CP", pa, "100.50", currency="JPY"), "amount")
    assert code(payer.ref("CP", pa, "100.00", currency="JPY")) == "000.000.000"


def test_the_tax_amount_fits_the_currency(payer):
    response = payer.client.post(
        "/pay/v3/payments",
        body(payer, amount="100.00", currency="JPY", taxAmount="8.50"),
        mtid=False,
    )
    refused(response, "taxAmount")


def test_the_3ds_amount_fits_its_currency(payer, enrolled):
    from tests.payments.threeds_helpers import threeds_fields

    fields = threeds_fields(**{"threeDSecure.amount": "100.50", "threeDSecure.currency": "JPY"})
    response = payer.client.post("/pay/v3/payments", body(payer, **fields), mtid=False)
    refused(response, "threeDSecure.amount")


# --- Control characters in text ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("descriptor", "ACME*ORDER\r\n42"),
        ("card.holder", "Jane\nDoe"),
        ("descriptor", "ACME\u2028ORDER"),
        ("card.holder", "Jane\tDoe"),
    ],
)
def test_a_payment_with_a_line_break_in_text_is_refused(payer, name, value):
    refused(payer.client.post("/pay/v3/payments", body(payer, **{name: value}), mtid=False), name)
    assert not Payment.objects.exists()


def test_surrounding_whitespace_is_still_trimmed(payer):
    response = payer.client.post(
        "/pay/v3/payments", body(payer, descriptor="ACME ORDER 42\r\n"), mtid=False
    )
    assert code(response) == "000.000.000"
    assert response.json()["descriptor"] == "ACME ORDER 42"
