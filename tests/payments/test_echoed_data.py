"""What a payment's answer echoes of its request is what was sent (found by the Schemathesis
run: cardholder-history dates and times came back in ISO form, not the formats they were sent
in and the OpenAPI document gives)."""

import pytest

from payments.models import Payment
from tests.conftest import code

pytestmark = pytest.mark.django_db

HISTORY = {
    "customParameters[AccountDate]": "20240131",
    "customParameters[PreOrderDate]": "19000101",
    "customParameters[ReqAuthTimestamp]": "202401311230",
    "customParameters[PriorAuthTimestamp]": "190001010000",
    "customParameters[ReqAuthMethod]": "02",
    "customParameters[SHOPPER_orderNo]": "42",
}


def test_custom_parameters_are_echoed_and_kept_as_sent(payer):
    paid = payer.pay("DB", **HISTORY)
    assert code(paid) == "000.000.000", paid.content
    sent = {name.removeprefix("customParameters[")[:-1]: value for name, value in HISTORY.items()}
    assert paid.json()["customParameters"] == sent
    assert payer.get(paid.json()["id"]).json()["customParameters"] == sent
    stored = Payment.objects.get(pk=paid.json()["id"]).data
    assert {name: stored[name] for name in HISTORY} == HISTORY


def test_other_group_values_keep_their_formats(payer):
    paid = payer.pay(
        "DB",
        **{
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
            "customer.birthDate": "1990-02-28",
            "cart.items[0].name": "Pen",
            "cart.items[0].price": "10.50",
            "cart.items[0].tax": "19.5",
        },
    )
    assert code(paid) == "000.000.000", paid.content
    stored = Payment.objects.get(pk=paid.json()["id"]).data
    assert stored["customer.birthDate"] == "1990-02-28"
    assert stored["cart.items[0].price"] == "10.50"
    assert stored["cart.items[0].tax"] == "19.5"
    assert payer.get(paid.json()["id"]).json()["customer"]["birthDate"] == "1990-02-28"


def test_the_migration_rewrites_what_earlier_payments_kept(payer):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("payments.migrations.0006_echoed_history_formats")
    paid = payer.pay("DB", **HISTORY)
    payment = Payment.objects.get(pk=paid.json()["id"])
    payment.data.update(
        {
            "customParameters[AccountDate]": "2024-01-31",
            "customParameters[ReqAuthTimestamp]": "2024-01-31T12:30:00+00:00",
        }
    )
    payment.save(update_fields=["data"])
    migration.as_sent(apps, None)
    payment.refresh_from_db()
    assert {name: payment.data[name] for name in HISTORY} == HISTORY
