"""Details of the specification a reader checks: additionalData.RequestId, card-present entry
modes, what an inquiry carries, and connector test mode (000.100.112)."""

from merchants import services as merchant_services
from merchants.models import Entity
from payments.models import Payment
from tests.conftest import SpecClient, code
from tests.payments.conftest import card, mtid


def test_every_network_answer_carries_the_networks_request_id(payer):
    data = payer.pay("DB").json()
    assert data["additionalData"]["RequestId"].startswith("SIM")
    capture = payer.ref("CP", payer.pay("PA").json()["id"], "10.00").json()
    assert capture["additionalData"]["RequestId"] != data["additionalData"]["RequestId"]


def test_a_card_present_payment_says_so(merchant, terminal):
    pos = SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "POS")
    body = {
        **card(),
        "paymentType": "DB",
        "merchant.id": merchant.merchant_id,
        "amount": "5.00",
        "currency": "EUR",
        "pos.terminalId": terminal.terminal_id,
        "merchantTransactionId": mtid(),
    }
    extra = pos.post("/pay/v3/payments", body, mtid=False).json()["additionalData"]
    assert (extra["EntryMode"], extra["ConditionCode"]) == ("05", "00")


def test_mail_and_telephone_orders_are_moto(payer):
    for category in ("MO", "TO"):
        extra = payer.pay("DB", transactionCategory=category).json()["additionalData"]
        assert (extra["EntryMode"], extra["ConditionCode"]) == ("01", "08")


def test_the_inquiry_carries_the_customer_and_billing_groups_that_were_sent(payer):
    sent = payer.pay(
        "DB",
        merchantMemo="monthly box",
        **{
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
            "customer.email": "jane@example.com",
            "billing.city": "Berlin",
            "billing.country": "DE",
            "customer.browser.language": "en-US",
        },
    ).json()
    data = payer.get(sent["id"]).json()
    assert data["customer"]["givenName"] == "Jane" and data["customer"]["email"] == (
        "jane@example.com"
    )
    assert data["billing"] == {"city": "Berlin", "country": "DE"}
    assert "browser" not in data["customer"]
    assert data["merchantMemo"] == "monthly box" and data["merchantTransactionId"]
    assert "customer" not in sent  # the payment's own answer stays as the spec lists it


def test_a_merchant_in_connector_test_mode_gets_000_100_112(payer, merchant, api):
    merchant_services.merchant_set_test_mode(merchant=merchant, test_mode=True)
    data = payer.pay("DB").json()
    assert data["result"]["code"] == "000.100.112"
    assert Payment.objects.get(pk=data["id"]).test_mode
    assert payer.get(data["id"]).json()["result"]["code"] == "000.100.112"
    assert code(payer.ref("RF", data["id"], "1.00")) == "000.100.112"  # a refund of it too
    assert code(payer.pay("DB", number="4000000000000002")) == "800.100.151"  # declines stay
    inquiry = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert inquiry.json()["merchant"]["testMode"] == "true"

    merchant_services.merchant_set_test_mode(merchant=merchant, test_mode=False)
    assert code(payer.pay("DB")) == "000.000.000"
    inquiry = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert inquiry.json()["merchant"]["testMode"] == "false"


def test_a_participator_in_test_mode_puts_its_merchants_in_it(payer, merchant):
    merchant_services.entity_update(entity=merchant.participator, test_mode=True)
    assert code(payer.pay("DB")) == "000.100.112"
    assert Entity.objects.get(pk=merchant.participator.pk).test_mode


def test_staff_switch_test_mode_in_the_admin(admin_client, merchant):
    from django.urls import reverse

    url = reverse("admin:merchants_merchant_changelist")
    admin_client.post(url, {"action": "test_mode_on", "_selected_action": [merchant.pk]})
    merchant.refresh_from_db()
    assert merchant.test_mode
    admin_client.post(url, {"action": "test_mode_off", "_selected_action": [merchant.pk]})
    merchant.refresh_from_db()
    assert not merchant.test_mode
