"""CP, RV, RF, PR: the referenced rules and every result code they return."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from payments.models import Payment
from tests.conftest import SpecClient, code, param_errors
from tests.payments.conftest import TIMEOUT, Payer, card, mtid


def paid(payer, kind="PA", amount="100.00"):
    response = payer.pay(kind, amount)
    assert code(response) == "000.000.000", response.json()
    return response.json()["id"]


class TestCapture:
    def test_partial_captures_up_to_the_pa(self, payer):
        pa = paid(payer)
        for amount in ("30.00", "50.00", "20.00"):
            response = payer.ref("CP", pa, amount)
            assert code(response) == "000.000.000" and response.json()["referencedId"] == pa
        assert Payment.objects.get(pk=pa).captured_amount == Decimal("100.00")
        response = payer.ref("CP", pa, "0.01")
        assert code(response) == "700.400.100"
        assert Payment.objects.get(pk=response.json()["id"]).successful is False

    def test_capture_by_original_transaction_id_in_the_body(self, payer):
        pa = paid(payer)
        assert code(payer.ref("CP", pa, "10.00", path=False)) == "000.000.000"

    def test_path_and_body_ids_must_agree(self, payer):
        pa = paid(payer)
        response = payer.ref("CP", pa, "10.00", originalTransactionId="f" * 32)
        assert response.status_code == 400 and "originalTransactionId" in param_errors(response)

    def test_original_transaction_id_required(self, payer):
        response = payer.client.post(
            "/pay/v3/payments",
            {
                "paymentType": "CP",
                "merchant.id": payer.merchant.merchant_id,
                "amount": "1.00",
                "currency": "EUR",
                "merchantTransactionId": mtid(),
            },
            mtid=False,
        )
        assert response.status_code == 400 and "originalTransactionId" in param_errors(response)

    @pytest.mark.parametrize("kind", ["DB", "CD"])
    def test_capture_of_something_else_than_a_pa_is_refused(self, payer, kind):
        assert code(payer.ref("CP", paid(payer, kind), "1.00")) == "700.400.103"

    def test_capture_of_a_declined_pa_is_refused(self, payer):
        pa = payer.pay("PA", "10.00", number="4000000000009995").json()["id"]
        assert code(payer.ref("CP", pa, "1.00")) == "700.400.103"

    def test_currency_must_be_the_originals(self, payer):
        assert code(payer.ref("CP", paid(payer), "1.00", currency="USD")) == "700.400.410"

    def test_unknown_original_is_404(self, payer):
        response = payer.ref("CP", "0" * 32, "1.00")
        assert response.status_code == 404 and code(response) == "700.100.100"
        assert not Payment.objects.exists()

    def test_another_merchants_original_is_404(self, payer, participator):
        from tests.factories import MerchantFactory

        other = MerchantFactory(participator=participator)
        other_pa = paid(
            Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other)
        )
        response = payer.ref("CP", other_pa, "1.00")
        assert response.status_code == 404 and code(response) == "700.100.100"
        assert Payment.objects.get(pk=other_pa).captured_amount == 0

    def test_card_data_is_not_taken_on_a_capture(self, payer):
        response = payer.ref("CP", paid(payer), "1.00", **{"card.number": "4200000000000000"})
        assert response.status_code == 400 and "card.number" in param_errors(response)

    def test_capture_after_validity_period_is_refused(self, payer):
        from django.utils import timezone

        from payments.services import payment_close_expired

        pa = payer.pay("PA", "10.00", validityPeriod="1000").json()["id"]
        Payment.objects.filter(pk=pa).update(expires_at=timezone.now())
        assert payment_close_expired() == 1
        assert code(payer.ref("CP", pa, "1.00")) == "700.400.104"

    def test_the_beat_task_closes_expired_pas(self, payer):
        from django.utils import timezone

        from payments.tasks import close_expired_preauthorizations

        pa = payer.pay("PA", "10.00", validityPeriod="60000").json()["id"]
        assert close_expired_preauthorizations.apply().get() == 0
        Payment.objects.filter(pk=pa).update(expires_at=timezone.now())
        assert close_expired_preauthorizations.apply().get() == 1
        assert Payment.objects.get(pk=pa).closed_at is not None

    def test_validity_period_only_on_pa(self, payer):
        response = payer.pay("DB", validityPeriod="1000")
        assert response.status_code == 400 and "validityPeriod" in param_errors(response)


class TestRefund:
    def test_refunds_of_a_debit_up_to_its_amount(self, payer):
        db = paid(payer, "DB", "50.00")
        assert code(payer.ref("RF", db, "20.00")) == "000.000.000"
        assert code(payer.ref("RF", db, "30.00")) == "000.000.000"
        assert code(payer.ref("RF", db, "0.01")) == "700.400.200"
        assert Payment.objects.get(pk=db).refunded_amount == Decimal("50.00")

    def test_refund_of_an_uncaptured_pa_needs_a_capture(self, payer):
        assert code(payer.ref("RF", paid(payer), "1.00")) == "700.400.520"

    def test_refund_of_a_captured_pa_and_of_its_capture(self, payer):
        pa = paid(payer, "PA", "100.00")
        cp = payer.ref("CP", pa, "60.00").json()["id"]
        assert code(payer.ref("RF", cp, "40.00")) == "000.000.000"
        assert code(payer.ref("RF", pa, "20.00")) == "000.000.000"
        # 60 captured, 60 refunded across PA and CP: nothing left on either.
        assert code(payer.ref("RF", cp, "0.01")) == "700.400.200"
        assert code(payer.ref("RF", pa, "0.01")) == "700.400.200"

    @pytest.mark.parametrize("kind", ["CD", "CV"])
    def test_refund_of_a_credit_or_verification_is_refused(self, payer, kind):
        original = payer.pay(kind, "5.00" if kind == "CD" else None).json()["id"]
        assert code(payer.ref("RF", original, "1.00")) == "700.400.520"

    def test_refund_of_a_reversed_debit_is_refused(self, payer):
        db = paid(payer, "DB", "10.00")
        payer.ref("RV", db, amount=None, transactionSource="CARDHOLDER")
        assert code(payer.ref("RF", db, "1.00")) == "700.400.200"


class TestReversal:
    @pytest.mark.parametrize("kind", ["PA", "DB", "CD"])
    def test_full_reversal(self, payer, kind):
        original = paid(payer, kind, "10.00")
        response = payer.ref("RV", original, amount=None, transactionSource="CARDHOLDER")
        assert code(response) == "000.000.000" and response.json()["amount"] == "10.00"
        assert Payment.objects.get(pk=original).reversed_amount == Decimal("10.00")
        again = payer.ref("RV", original, amount=None, transactionSource="CARDHOLDER")
        assert code(again) == "700.400.300"

    def test_v21_path_takes_reversals_only(self, payer):
        original = paid(payer, "DB")
        body = {
            "paymentType": "RV",
            "merchant.id": payer.merchant.merchant_id,
            "merchantTransactionId": mtid(),
            "originalTransactionId": original,
            "transactionSource": "ERROR",
        }
        assert code(payer.client.post("/pay/v21/payments", body, mtid=False)) == "000.000.000"
        db = {
            **card(),
            "paymentType": "DB",
            "merchant.id": payer.merchant.merchant_id,
            "amount": "1.00",
            "currency": "EUR",
            "merchantTransactionId": mtid(),
        }
        response = payer.client.post("/pay/v21/payments", db, mtid=False)
        assert response.status_code == 400 and "paymentType" in param_errors(response)

    def test_partial_reversal_needs_an_amount_and_leaves_the_rest_capturable(self, payer):
        pa = paid(payer, "PA", "100.00")
        response = payer.ref("RV", pa, amount=None, transactionSource="PARTIAL")
        assert response.status_code == 400 and "amount" in param_errors(response)
        assert code(payer.ref("RV", pa, "30.00", transactionSource="PARTIAL")) == "000.000.000"
        assert code(payer.ref("CP", pa, "70.01")) == "700.400.100"
        assert code(payer.ref("CP", pa, "70.00")) == "000.000.000"

    def test_reversal_amount_beyond_the_remaining_is_refused(self, payer):
        pa = paid(payer, "PA", "10.00")
        assert code(payer.ref("RV", pa, "10.01", transactionSource="PARTIAL")) == "700.400.300"

    @pytest.mark.parametrize("source", [None, "TOKEN", "NOPE"])
    def test_transaction_source_must_be_one_of_five(self, payer, source):
        response = payer.ref(
            "RV", paid(payer), amount=None, **({"transactionSource": source} if source else {})
        )
        assert response.status_code == 400 and "transactionSource" in param_errors(response)

    def test_refunded_debit_cannot_be_reversed(self, payer):
        db = paid(payer, "DB", "10.00")
        payer.ref("RF", db, "1.00")
        assert (
            code(payer.ref("RV", db, amount=None, transactionSource="CARDHOLDER")) == "700.400.300"
        )

    def test_captured_pa_cannot_be_reversed(self, payer):
        pa = paid(payer, "PA", "10.00")
        payer.ref("CP", pa, "5.00")
        assert (
            code(payer.ref("RV", pa, amount=None, transactionSource="CARDHOLDER")) == "700.400.300"
        )

    def test_timed_out_payment_can_be_reversed_with_timeout_only(self, payer):
        original = payer.pay("DB", number=TIMEOUT).json()["id"]
        assert (
            code(payer.ref("RV", original, amount=None, transactionSource="CARDHOLDER"))
            == "700.400.300"
        )
        assert (
            code(payer.ref("RV", original, amount=None, transactionSource="TIMEOUT"))
            == "000.000.000"
        )
        assert (
            code(payer.ref("RV", original, amount=None, transactionSource="TIMEOUT"))
            == "700.400.300"
        )

    def test_declined_payment_cannot_be_reversed(self, payer):
        original = payer.pay("DB", number="4000000000000002").json()["id"]
        assert (
            code(payer.ref("RV", original, amount=None, transactionSource="ERROR")) == "700.400.300"
        )

    def test_reversal_of_a_refund_is_refused(self, payer):
        db = paid(payer, "DB")
        rf = payer.ref("RF", db, "1.00").json()["id"]
        assert (
            code(payer.ref("RV", rf, amount=None, transactionSource="CARDHOLDER")) == "700.400.300"
        )


class TestPosRefund:
    def pos(self, merchant_api):
        return SpecClient(merchant_api.token, merchant_api.entity_id, "POS")

    def test_pos_refund_of_a_pos_purchase(self, merchant_api, merchant, terminal):
        payer = Payer(self.pos(merchant_api), merchant)
        db = payer.pay("DB", "20.00", **{"pos.terminalId": terminal.terminal_id}).json()["id"]
        response = payer.ref("PR", db, "5.00", **{"pos.terminalId": terminal.terminal_id})
        assert code(response) == "000.000.000"
        assert Payment.objects.get(pk=db).refunded_amount == Decimal("5.00")
        assert (
            code(payer.ref("PR", db, "15.01", **{"pos.terminalId": terminal.terminal_id}))
            == "700.400.200"
        )

    def test_pos_refund_of_an_ecommerce_purchase_is_refused(
        self, payer, merchant_api, merchant, terminal
    ):
        db = paid(payer, "DB", "20.00")
        response = Payer(self.pos(merchant_api), merchant).ref(
            "PR", db, "5.00", **{"pos.terminalId": terminal.terminal_id}
        )
        assert code(response) == "700.400.530"

    def test_pos_refund_needs_a_terminal(self, payer):
        response = payer.ref("PR", paid(payer, "DB"), "1.00")
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)


def test_the_chain_is_the_same_from_any_member(payer):
    from payments.selectors import payment_chain

    pa = paid(payer, "PA", "100.00")
    cp = payer.ref("CP", pa, "60.00").json()["id"]
    rf = payer.ref("RF", cp, "10.00").json()["id"]
    chains = [
        [p.pk for p in payment_chain(payment=Payment.objects.get(pk=x))] for x in (pa, cp, rf)
    ]
    assert chains[0] == chains[1] == chains[2] == [pa, cp, rf]


def test_a_pa_past_its_validity_period_cannot_be_captured_before_the_task_runs(payer):
    """Expiry is checked where the PA is used: beat only tidies up (it is not running here)."""
    pa = payer.pay("PA", "20.00", validityPeriod="60000").json()["id"]
    Payment.objects.filter(pk=pa).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert code(payer.ref("CP", pa, "5.00")) == "700.400.104"
    assert Payment.objects.get(pk=pa).closed_at is None  # the task tidies up later
