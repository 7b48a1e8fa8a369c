"""Paying with a scheme token (card.token on PA, DB, CV): only an ACTIVE token of this merchant
pays; the answer shows the token's masked card, never the funding card."""

import pytest

from payments.models import Payment
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer, mtid
from tests.tokenization.test_tokenize import AUTH_CARD, card, tokenize
from tokenization import services
from tokenization.models import Token

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(merchant_api, merchant) -> Token:
    reference = tokenize(merchant_api, merchant, "CT", **card()).json()["tokenUniqueReference"]
    return Token.objects.get(pk=reference)


def pay_token(payer: Payer, reference: str, kind: str = "DB", **fields):
    body = {
        "paymentType": kind,
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": mtid(),
        "card.token": reference,
        **({"amount": "10.00", "currency": "EUR"} if kind != "CV" else {}),
        **fields,
    }
    return payer.client.post("/pay/v3/payments", body, mtid=False)


@pytest.mark.parametrize("kind", ["PA", "DB", "CV"])
def test_an_active_token_pays(payer, token, kind):
    response = pay_token(payer, token.pk, kind)
    assert code(response) == "000.000.000"
    shown = response.json()["card"]
    assert shown["bin"] == token.token_bin and shown["last4Digits"] == token.token_pan_suffix
    assert shown["expiryMonth"] + shown["expiryYear"][2:] == token.token_expiry
    assert "420000" not in response.content.decode()  # never the funding card
    payment = Payment.objects.get(pk=response.json()["id"])
    assert payment.scheme_token_id == token.pk and payment.pan_fingerprint == token.pan_fingerprint
    inquiry = payer.get(payment.pk).json()
    assert inquiry["card"]["last4Digits"] == token.token_pan_suffix


@pytest.mark.parametrize(("action", "suspender"), [("suspend", "CARDHOLDER"), ("deactivate", "")])
def test_a_suspended_or_deactivated_token_is_refused(payer, token, action, suspender):
    services.token_set_status(
        reference=token.pk, action=action, actor="staff:test", suspender=suspender
    )
    response = pay_token(payer, token.pk)
    assert response.status_code == 200 and code(response) == "700.150.300"
    payment = Payment.objects.get(pk=response.json()["id"])
    assert not payment.successful and payment.captured_amount == 0


def test_an_inactive_token_is_refused(merchant_api, merchant, payer):
    reference = tokenize(merchant_api, merchant, "CT", **card(AUTH_CARD)).json()[
        "tokenUniqueReference"
    ]
    assert code(pay_token(payer, reference)) == "700.150.300"


def test_an_unknown_or_another_merchants_token_is_not_found(payer, token):
    unknown = pay_token(payer, "DTKN" + "9" * 60)
    assert unknown.status_code == 404 and code(unknown) == "700.150.100"
    other = MerchantFactory()
    other_payer = Payer(
        SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other
    )
    response = pay_token(other_payer, token.pk)
    assert response.status_code == 404 and code(response) == "700.150.100"
    assert not Payment.objects.exists()


def test_a_token_is_one_source_of_card_data(payer, token):
    response = pay_token(
        payer, token.pk, **{"card.number": "4200000000000000", "card.expiryMonth": "12"}
    )
    assert response.status_code == 400
    assert {"card.number", "card.expiryMonth"} <= set(param_errors(response))
    assert "4200000000000000" not in response.content.decode()


def test_a_token_is_not_taken_by_a_credit(payer, token):
    response = pay_token(payer, token.pk, kind="CD")
    assert response.status_code == 400 and "card.token" in param_errors(response)


def test_a_token_payment_can_be_refunded(payer, token):
    paid = pay_token(payer, token.pk).json()["id"]
    assert code(payer.ref("RF", paid, "4.00")) == "000.000.000"
