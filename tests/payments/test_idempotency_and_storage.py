"""Payment idempotency, and that no table holds a PAN or a CVV."""

from django.db import connection

from core.cards import decrypt_pan
from payments.models import Payment
from tests.conftest import code
from tests.payments.conftest import mtid

PAN, CVV = "4200000000000000", "987"


def test_same_reference_same_parameters_replays(payer):
    ref = mtid()
    first = payer.pay("DB", merchantTransactionId=ref)
    second = payer.pay("DB", merchantTransactionId=ref)
    assert second["Idempotent-Replayed"] == "true"
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["result"] == first.json()["result"]
    assert Payment.objects.count() == 1


def test_same_reference_other_parameters_is_refused(payer):
    ref = mtid()
    payer.pay("DB", merchantTransactionId=ref)
    response = payer.pay("DB", "11.00", merchantTransactionId=ref)
    assert response.status_code == 200 and code(response) == "800.110.100"
    assert Payment.objects.count() == 1


def test_a_decline_is_replayed_too(payer):
    ref = mtid()
    first = payer.pay("DB", number="4000000000009995", merchantTransactionId=ref)
    second = payer.pay("DB", number="4000000000009995", merchantTransactionId=ref)
    assert code(first) == code(second) == "800.100.203"
    assert Payment.objects.count() == 1


def test_a_referenced_operation_carries_its_own_reference(payer):
    ref = mtid()
    pa = payer.pay("PA", "10.00", merchantTransactionId=ref).json()["id"]
    response = payer.ref("CP", pa, "1.00", merchantTransactionId=ref)
    assert code(response) == "800.110.100"


def assert_no_table_holds_the_pan_or_the_cvv() -> None:
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - table names from the schema
            dump = repr(cursor.fetchall())
            assert PAN not in dump, table
            assert f"'{CVV}'" not in dump and f'"{CVV}"' not in dump, table


def test_no_table_holds_the_pan_or_the_cvv(payer):
    data = payer.pay("DB", **{"card.number": PAN, "card.cvv": CVV}).json()
    payment = Payment.objects.get(pk=data["id"])
    assert decrypt_pan(payment.pan_ciphertext) == PAN  # encrypted, and recoverable by the vault
    assert_no_table_holds_the_pan_or_the_cvv()


def test_no_table_holds_the_pan_or_the_cvv_of_a_stored_card(payer):
    """Card on file: a registration, a CIT and an MIT with the stored card, a deregistration."""
    data = payer.pay(
        "DB",
        createRegistration="true",
        **{"card.number": PAN, "card.cvv": CVV, "standingInstruction.source": "CIT"},
    ).json()
    registration = data["registrationId"]
    payer.client.post(
        f"/pay/v3/registrations/{registration}/payments",
        {
            "paymentType": "DB",
            "merchant.id": payer.merchant.merchant_id,
            "amount": "5.00",
            "currency": "EUR",
            "standingInstruction.source": "MIT",
            "standingInstruction.initialTransactionId": data["standingInstruction"][
                "initialTransactionId"
            ],
            "merchantTransactionId": mtid(),
        },
        mtid=False,
    )
    second = payer.client.post(
        "/pay/v3/registrations",
        {"merchant.id": payer.merchant.merchant_id, "card.number": PAN, "card.cvv": CVV}
        | {"card.expiryMonth": "12", "card.expiryYear": "2034", "merchantTransactionId": mtid()},
        mtid=False,
    ).json()["registrationId"]
    payer.client.delete(f"/pay/v3/registrations/{second}")
    assert_no_table_holds_the_pan_or_the_cvv()


def test_pan_and_cvv_are_not_logged(payer, caplog):
    import logging

    with caplog.at_level(logging.DEBUG):
        payer.pay("DB", **{"card.number": PAN, "card.cvv": CVV})
        payer.pay("DB", **{"card.number": "4200000000000001", "card.cvv": CVV})  # a 400
    assert PAN not in caplog.text and "4200000000000001" not in caplog.text
