"""PA, DB, CD, CV and the simulator's test cards: every result code of the initial types."""

import pytest

from payments.models import Payment
from tests.conftest import SpecClient, code, param_errors
from tests.payments.conftest import (
    BAD_CVV,
    INVALID_CARD,
    MASTER,
    NO_FUNDS,
    TIMEOUT,
    card,
    mtid,
)


@pytest.mark.parametrize("kind", ["PA", "DB", "CD"])
def test_approved_payment_is_stored_and_answered(payer, kind):
    response = payer.pay(kind, "12.50")
    assert response.status_code == 200
    data = response.json()
    assert data["result"]["code"] == "000.000.000"
    assert (data["paymentType"], data["amount"], data["currency"]) == (kind, "12.50", "EUR")
    assert data["paymentBrand"] == "VISA"
    assert data["card"] == {
        "bin": "420000",
        "last4Digits": "0000",
        "holder": "Jane Doe",
        "expiryMonth": "12",
        "expiryYear": "2034",
    }
    assert len(data["resultDetails"]["AuthCode"]) == 6
    assert data["resultDetails"]["AcquirerResponse"] == "00"
    extra = data["additionalData"]
    assert len(extra["TraceAuditNo"]) == 6 and len(extra["AcquirerRefno"]) == 23
    assert (extra["EntryMode"], extra["ConditionCode"]) == ("81", "59")
    payment = Payment.objects.get(pk=data["id"])
    assert payment.successful and payment.amount == payment.amount.__class__("12.50")
    assert payment.captured_amount == (payment.amount if kind == "DB" else 0)


def test_master_card_brand_is_detected(payer):
    assert payer.pay("DB", number=MASTER).json()["paymentBrand"] == "MASTER"


def test_cv_needs_no_amount(payer):
    response = payer.pay("CV", amount=None)
    assert code(response) == "000.000.000"
    assert "amount" not in response.json()


@pytest.mark.parametrize(
    ("number", "expected", "acquirer"),
    [
        (INVALID_CARD, "800.100.151", "14"),
        (NO_FUNDS, "800.100.203", "51"),
        (BAD_CVV, "800.100.153", "N7"),
        (TIMEOUT, "900.100.300", "91"),
    ],
)
def test_test_cards_decline(payer, number, expected, acquirer):
    response = payer.pay("DB", number=number)
    assert response.status_code == 200
    data = response.json()
    assert data["result"]["code"] == expected
    assert data["resultDetails"]["AcquirerResponse"] == acquirer
    payment = Payment.objects.get(pk=data["id"])
    assert not payment.successful and payment.result_code == expected
    assert payment.captured_amount == 0


def test_wrong_cvv_answers_cvv_n_and_declines_answer_a_mac(payer):
    assert payer.pay("DB", number=BAD_CVV).json()["result"]["cvvResponse"] == "N"
    assert payer.pay("DB", number=NO_FUNDS).json()["result"]["macResponse"] == "02"


def test_expired_card_is_refused_and_stored(payer):
    response = payer.pay("DB", **{"card.expiryYear": "2020"})
    assert code(response) == "100.100.303"
    assert Payment.objects.get(pk=response.json()["id"]).result_code == "100.100.303"


@pytest.mark.parametrize(
    ("postcode", "avs"), [("10115", "F"), ("00000", "N"), ("99999", "A"), ("11111", "Z")]
)
def test_avs_from_billing(payer, postcode, avs):
    response = payer.pay(
        "DB",
        **{
            "billing.street1": "1 Main Street",
            "billing.postcode": postcode,
            "billing.city": "Berlin",
            "billing.country": "DE",
        },
    )
    assert response.json()["result"]["avsResponse"] == avs


def test_without_billing_avs_is_u_and_without_cvv_p(payer):
    body = card()
    body.pop("card.cvv")
    data = payer.client.post(
        "/pay/v3/payments",
        {
            "paymentType": "DB",
            "merchant.id": payer.merchant.merchant_id,
            "amount": "1.00",
            "currency": "EUR",
            "merchantTransactionId": mtid(),
            **body,
        },
        mtid=False,
    ).json()
    assert (data["result"]["avsResponse"], data["result"]["cvvResponse"]) == ("U", "P")


class TestValidation:
    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("card.number", "4200000000000001"),  # Luhn
            ("card.number", "42000000000"),
            ("card.expiryMonth", "13"),
            ("card.expiryYear", "2134"),
            ("card.cvv", "12"),
            ("amount", "10.5"),
            ("amount", "12345678901.00"),
            ("currency", "EURO"),
            ("currency", "XYZ"),
            ("paymentType", "XX"),
            ("merchantTransactionId", "short"),
            ("transactionCategory", "ZZ"),
            ("paymentBrand", "NOPE"),
            ("checkoutType", "AUTHORIZE"),  # with a DB
        ],
    )
    def test_bad_field_is_400_naming_it_and_nothing_is_written(self, payer, field, value):
        response = payer.pay("DB", **{field: value})
        assert response.status_code == 400
        assert field in param_errors(response), response.json()
        assert not Payment.objects.exists()

    @pytest.mark.parametrize("field", ["card.number", "card.expiryMonth", "card.expiryYear"])
    def test_card_fields_required_for_card_types(self, payer, field):
        body = {
            **card(),
            "paymentType": "PA",
            "merchant.id": payer.merchant.merchant_id,
            "amount": "1.00",
            "currency": "EUR",
            "merchantTransactionId": mtid(),
        }
        body.pop(field)
        response = payer.client.post("/pay/v3/payments", body, mtid=False)
        assert response.status_code == 400 and field in param_errors(response)

    @pytest.mark.parametrize("field", ["amount", "currency"])
    def test_amount_and_currency_required_for_money(self, payer, field):
        response = payer.pay("DB", **{field: ""})
        assert response.status_code == 400

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("card.number", "4200000000000001"),
            ("card.number", "42000000000000001234"),
            ("card.cvv", "12"),
        ],
    )
    def test_card_number_and_cvv_never_echoed(self, payer, field, value):
        response = payer.pay("DB", **{field: value})
        if len(value) > 4:
            assert value not in response.content.decode()
        values = {e["name"]: e["value"] for e in response.json()["result"]["parameterErrors"]}
        assert values[field] == "***"

    def test_brand_must_match_the_card(self, payer):
        response = payer.pay("DB", paymentBrand="MASTER")
        assert param_errors(response)["paymentBrand"].startswith("does not match")


class TestMerchantAndTerminalState:
    @pytest.mark.parametrize("status", ["BLOCKED", "CLOSED", "TERMINATED"])
    def test_merchant_that_may_not_transact_is_declined_and_stored(self, payer, merchant, status):
        merchant.status = status
        merchant.save()
        response = payer.pay("DB")
        assert response.status_code == 200 and code(response) == "800.121.200"
        assert Payment.objects.get(pk=response.json()["id"]).successful is False

    def test_pos_payment_needs_a_normal_terminal(self, merchant_api, merchant, terminal):
        pos = SpecClient(merchant_api.token, merchant_api.entity_id, "POS")
        body = {
            **card(),
            "paymentType": "DB",
            "merchant.id": merchant.merchant_id,
            "amount": "5.00",
            "currency": "EUR",
            "pos.terminalId": terminal.terminal_id,
        }
        response = pos.post(
            "/pay/v3/payments", {**body, "merchantTransactionId": mtid()}, mtid=False
        )
        assert code(response) == "000.000.000"
        assert response.json()["additionalData"]["ConditionCode"] == "00"
        terminal.status = "BLOCKED"
        terminal.save()
        response = pos.post(
            "/pay/v3/payments", {**body, "merchantTransactionId": mtid()}, mtid=False
        )
        assert code(response) == "800.121.201"


class TestRisk:
    def test_internal_risk_accepts_and_scores(self, payer):
        data = payer.pay(
            "DB",
            **{
                "risk.systemID": "INTERNAL",
                "customer.givenName": "Jane",
                "customer.surname": "Doe",
                "customer.email": "jane@example.com",
            },
        ).json()
        assert data["result"]["code"] == "000.000.000"
        assert data["risk"] == {"score": "0", "decision": "ACCEPT"}

    def test_internal_risk_decline_stops_the_payment(self, payer):
        response = payer.pay("DB", amount="15000.00", **{"risk.systemID": "INTERNAL"})
        assert code(response) == "100.400.311"
        assert response.json()["risk"]["decision"] == "DECLINE"
        assert "AuthCode" not in response.json().get("resultDetails", {})


class TestAccess:
    def test_channel_pays_for_its_merchant(self, channel_payer):
        assert code(channel_payer.pay("DB")) == "000.000.000"

    def test_other_participator_cannot_pay_for_the_merchant(self, other_api, merchant):
        from tests.payments.conftest import Payer

        response = Payer(other_api, merchant).pay("DB")
        assert response.status_code == 404 and code(response) == "700.100.101"
        assert not Payment.objects.exists()

    def test_inquiry_of_another_merchants_payment_is_404(self, payer, participator):
        from tests.factories import MerchantFactory
        from tests.payments.conftest import Payer

        other = MerchantFactory(participator=participator)
        other_payer = Payer(
            SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other
        )
        payment_id = payer.pay("DB").json()["id"]
        response = other_payer.get(payment_id)
        assert response.status_code == 404 and code(response) == "700.100.100"
        assert payment_id not in response.content.decode().replace(response.json()["id"], "")

    def test_inquiry_returns_the_record_with_extras(self, payer):
        sent = payer.pay("DB", merchantMemo="monthly box", **{"customParameters[SHOPPER_x]": "1"})
        data = payer.get(sent.json()["id"]).json()
        assert data["id"] == sent.json()["id"] and data["result"]["code"] == "000.000.000"
        assert data["merchantMemo"] == "monthly box"
        assert data["customParameters"] == {"SHOPPER_x": "1"}
        assert data["merchantTransactionId"]

    def test_inquiry_with_the_wrong_reference_is_404(self, payer):
        payment_id = payer.pay("DB").json()["id"]
        assert payer.get(payment_id, merchantTransactionId="0" * 32).status_code == 404


def test_data_groups_are_validated_and_stored_without_card_data(payer):
    response = payer.pay(
        "DB",
        **{
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
            "customer.email": "jane@example.com",
            "billing.street1": "1 Main Street",
            "billing.city": "Berlin",
            "billing.postcode": "10115",
            "billing.country": "DE",
            "cart.items[0].name": "Coffee",
            "cart.items[0].price": "10.00",
            "cart.items[1].name": "Mug",
            "merchant.name": "Acme Outlet",
            "merchant.business": "ACME",
            "merchant.street": "2 Side St",
            "merchant.postcode": "10117",
            "merchant.city": "Berlin",
            "merchant.state": "Berlin",
            "merchant.country": "DE",
            "merchant.mmcc": "5814",
            "merchant.vmcc": "5814",
            "descriptor": "ACME*COFFEE",
            "merchantInvoiceId": "INV-00042",
            "transactionCategory": "EC",
            "taxAmount": "1.60",
            "checkoutType": "PURCHASE",
        },
    )
    assert code(response) == "000.000.000", response.json()
    payment = Payment.objects.get(pk=response.json()["id"])
    assert payment.data["cart.items[1].name"] == "Mug"
    assert payment.data["merchant.name"] == "Acme Outlet"
    assert payment.descriptor == "ACME*COFFEE" and str(payment.tax_amount) == "1.60"
    assert not any(name.startswith("card.") for name in payment.data)


def test_a_bad_group_field_is_400_naming_it(payer):
    response = payer.pay("DB", **{"cart.items[0].name": "Pen", "cart.items[0].quantity": "abc"})
    assert response.status_code == 400
    assert "cart.items[0].quantity" in param_errors(response)
    assert not Payment.objects.exists()
