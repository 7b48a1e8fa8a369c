"""Registrations (card on file): createRegistration, the stand-alone registration, reading,
deregistering, paying with a stored card, and who may reach a registration."""

import re

import pytest

from payments.models import Payment, Registration
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory
from tests.payments.conftest import INVALID_CARD, MASTER, Payer, card, mtid

pytestmark = pytest.mark.django_db

CIT = {"standingInstruction.source": "CIT", "standingInstruction.type": "UNSCHEDULED"}


def register(payer: Payer, number: str = "4200000000000000", **fields):
    body = {
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": mtid(),
        **card(number),
        **fields,
    }
    return payer.client.post("/pay/v3/registrations", body, mtid=False)


def pay_stored(payer: Payer, registration_id: str, kind="DB", amount="10.00", **fields):
    body = {
        "paymentType": kind,
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": fields.pop("merchantTransactionId", mtid()),
        "amount": amount,
        "currency": "EUR",
        **fields,
    }
    return payer.client.post(f"/pay/v3/registrations/{registration_id}/payments", body, mtid=False)


@pytest.fixture
def registration_id(payer):
    return register(payer).json()["registrationId"]


# --- createRegistration on a payment ---------------------------------------------------------


@pytest.mark.parametrize("kind", ["PA", "DB", "CV"])
def test_create_registration_stores_the_card_of_an_approved_payment(payer, kind):
    response = payer.pay(kind, "10.00" if kind != "CV" else None, createRegistration="true")
    assert code(response) == "000.000.000"
    registration_id = response.json()["registrationId"]
    assert re.fullmatch(r"[A-Za-z0-9]{32}", registration_id)
    stored = Registration.objects.get(pk=registration_id)
    assert (stored.card_bin, stored.card_last4, stored.card_holder) == (
        "420000",
        "0000",
        "Jane Doe",
    )
    assert (stored.card_expiry_month, stored.card_expiry_year) == ("12", "2034")
    assert stored.payment_brand == "VISA" and stored.status == "ACTIVE"
    assert stored.pan_ciphertext and "4200000000000000" not in stored.pan_ciphertext
    assert stored.created_by_id == response.json()["id"]
    payment = Payment.objects.get(pk=response.json()["id"])
    assert payment.registration_id == registration_id


def test_a_declined_payment_creates_no_registration(payer):
    response = payer.pay("DB", number=INVALID_CARD, createRegistration="true")
    assert code(response) == "800.100.151"
    assert "registrationId" not in response.json()
    assert not Registration.objects.exists()


def test_create_registration_false_stores_nothing(payer):
    response = payer.pay("DB", createRegistration="false")
    assert code(response) == "000.000.000" and "registrationId" not in response.json()
    assert not Registration.objects.exists()


@pytest.mark.parametrize("kind", ["CD"])
def test_create_registration_is_refused_on_other_types(payer, kind):
    response = payer.pay(kind, createRegistration="true")
    assert response.status_code == 400
    assert "createRegistration" in param_errors(response)
    assert not Payment.objects.exists()


def test_create_registration_replay_answers_the_same_registration(payer):
    ref = mtid()
    first = payer.pay("DB", createRegistration="true", merchantTransactionId=ref)
    again = payer.pay("DB", createRegistration="true", merchantTransactionId=ref)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["registrationId"] == first.json()["registrationId"]
    assert Registration.objects.count() == 1


# --- the stand-alone registration -------------------------------------------------------------


def test_a_stand_alone_registration_is_verified_and_stored(payer):
    customer = {"merchantCustomerId": "cust-0042", "givenName": "Jane", "surname": "Doe"}
    response = register(payer, MASTER, **{f"customer.{k}": v for k, v in customer.items()})
    assert response.status_code == 200 and code(response) == "000.000.000"
    data = response.json()
    stored = Registration.objects.get(pk=data["registrationId"])
    assert stored.merchant_customer_id == "cust-0042" and stored.payment_brand == "MASTER"
    verification = Payment.objects.get(pk=data["id"])
    assert verification.payment_type == "CV" and verification.amount is None
    assert verification.registration_id == stored.pk
    assert data["card"]["last4Digits"] == "5454"


def test_a_declined_card_is_not_stored(payer):
    response = register(payer, INVALID_CARD)
    assert code(response) == "800.100.151"
    assert "registrationId" not in response.json()
    assert not Registration.objects.exists()
    assert Payment.objects.get(pk=response.json()["id"]).payment_type == "CV"


@pytest.mark.parametrize("missing", ["card.number", "card.expiryMonth", "card.expiryYear"])
def test_a_stand_alone_registration_needs_the_card(payer, missing):
    response = register(payer, **{missing: None})
    assert response.status_code == 400 and missing in param_errors(response)
    assert not Payment.objects.exists()


def test_a_stand_alone_registration_refuses_a_payment_type(payer):
    response = register(payer, paymentType="DB")
    assert response.status_code == 400 and "paymentType" in param_errors(response)


def test_a_stand_alone_registration_checks_luhn(payer):
    response = register(payer, "4200000000000001")
    assert response.status_code == 400 and "card.number" in param_errors(response)
    assert "4200000000000001" not in response.content.decode()


# --- reading and deregistering ----------------------------------------------------------------


def test_a_registration_answers_its_masked_card(payer, registration_id):
    response = payer.client.get(f"/pay/v3/registrations/{registration_id}")
    assert response.status_code == 200 and code(response) == "000.000.100"
    data = response.json()
    assert data["registrationId"] == registration_id and data["status"] == "ACTIVE"
    assert data["card"] == {
        "bin": "420000",
        "last4Digits": "0000",
        "holder": "Jane Doe",
        "expiryMonth": "12",
        "expiryYear": "2034",
    }
    assert data["merchant"]["id"] == payer.merchant.merchant_id
    assert "createdAt" in data and "standingInstructions" not in data


def test_deregistration_destroys_the_stored_card(payer, registration_id):
    response = payer.client.delete(f"/pay/v3/registrations/{registration_id}")
    assert response.status_code == 200 and code(response) == "000.000.100"
    assert response.json()["status"] == "DEREGISTERED" and "deregisteredAt" in response.json()
    stored = Registration.objects.get(pk=registration_id)
    assert stored.status == "DEREGISTERED"
    assert stored.pan_ciphertext == "" and stored.pan_fingerprint == ""
    assert stored.card_last4 == "0000"  # the row stays for the history


def test_a_second_deregistration_is_refused(payer, registration_id):
    payer.client.delete(f"/pay/v3/registrations/{registration_id}")
    again = payer.client.delete(f"/pay/v3/registrations/{registration_id}")
    assert again.status_code == 200 and code(again) == "100.150.202"


def test_a_payment_with_a_deregistered_registration_is_refused(payer, registration_id):
    payer.client.delete(f"/pay/v3/registrations/{registration_id}")
    response = pay_stored(payer, registration_id, **CIT, **{"card.cvv": "123"})
    assert response.status_code == 200 and code(response) == "100.150.202"
    payment = Payment.objects.get(pk=response.json()["id"])
    assert not payment.successful and payment.pan_ciphertext == ""
    assert response.json()["card"]["last4Digits"] == "0000"


def test_a_malformed_registration_id_is_a_parameter_error(payer):
    response = payer.client.get("/pay/v3/registrations/abc%00def")
    assert response.status_code == 400 and "id" in param_errors(response)


def test_an_unknown_registration_is_not_found(payer):
    response = payer.client.get(f"/pay/v3/registrations/{'a' * 32}")
    assert response.status_code == 404 and code(response) == "100.150.200"


# --- paying with a stored card ----------------------------------------------------------------


def test_a_cit_with_the_stored_card_and_its_cvv(payer, registration_id):
    response = pay_stored(payer, registration_id, **CIT, **{"card.cvv": "123"})
    assert code(response) == "000.000.000"
    data = response.json()
    assert data["registrationId"] == registration_id
    assert data["card"]["bin"] == "420000" and data["card"]["last4Digits"] == "0000"
    assert data["standingInstruction"]["source"] == "CIT"
    inquiry = payer.get(data["id"]).json()
    assert inquiry["registrationId"] == registration_id
    assert inquiry["card"]["last4Digits"] == "0000"


def test_the_card_number_is_refused_on_the_registrations_path(payer, registration_id):
    response = pay_stored(
        payer, registration_id, **CIT, **{"card.number": "4200000000000000", "card.cvv": "123"}
    )
    assert response.status_code == 400
    errors = param_errors(response)
    assert "registration's card is used" in errors["card.number"]
    assert "4200000000000000" not in response.content.decode()
    assert not Payment.objects.filter(payment_type="DB").exists()


def test_an_mit_may_not_carry_the_cvv(payer, registration_id):
    response = pay_stored(
        payer,
        registration_id,
        **{
            "standingInstruction.source": "MIT",
            "standingInstruction.initialTransactionId": "SIM1",
            "card.cvv": "123",
        },
    )
    assert response.status_code == 400 and "card.cvv" in param_errors(response)


def test_the_registrations_path_needs_a_source(payer, registration_id):
    response = pay_stored(payer, registration_id)
    assert response.status_code == 400
    assert "standingInstruction.source" in param_errors(response)


@pytest.mark.parametrize("kind", ["CD", "CV", "CP", "RF"])
def test_the_registrations_path_takes_pa_and_db_only(payer, registration_id, kind):
    response = pay_stored(payer, registration_id, kind=kind, **CIT, **{"card.cvv": "123"})
    assert response.status_code == 400 and "paymentType" in param_errors(response)


def test_registration_id_is_not_a_field_of_payments(payer, registration_id):
    response = payer.pay("DB", registrationId=registration_id)
    assert response.status_code == 400 and "registrationId" in param_errors(response)


# --- who reaches a registration ---------------------------------------------------------------


def _other_merchant_payer():
    other = MerchantFactory()
    client = SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT")
    return Payer(client, other)


def test_another_merchant_gets_404_on_every_registration_path(payer, registration_id):
    other = _other_merchant_payer()
    path = f"/pay/v3/registrations/{registration_id}"
    assert code(other.client.get(path)) == "100.150.200"
    assert other.client.get(path).status_code == 404
    assert other.client.delete(path).status_code == 404
    paid = pay_stored(other, registration_id, **CIT, **{"card.cvv": "123"})
    assert paid.status_code == 404 and code(paid) == "100.150.200"
    assert Registration.objects.get(pk=registration_id).status == "ACTIVE"
    assert not Payment.objects.filter(merchant=other.merchant).exists()


def test_another_participator_gets_404(other_api, registration_id):
    path = f"/pay/v3/registrations/{registration_id}"
    assert other_api.get(path).status_code == 404
    assert other_api.delete(path).status_code == 404


def test_the_merchants_channel_reaches_its_registrations(api, registration_id):
    response = api.get(f"/pay/v3/registrations/{registration_id}")
    assert response.status_code == 200 and response.json()["registrationId"] == registration_id


def test_a_merchant_cannot_pay_with_a_registration_under_another_merchant_id(
    channel_payer, payer, registration_id
):
    """The channel reaches two merchants; a registration of one cannot pay for the other."""
    second = MerchantFactory(participator=payer.merchant.participator)
    other = Payer(channel_payer.client, second)
    response = pay_stored(other, registration_id, **CIT, **{"card.cvv": "123"})
    assert response.status_code == 404 and code(response) == "100.150.200"
