"""Strictness on amounts (issue 32): a taxAmount larger than the amount is refused (200.300.404
naming taxAmount, nothing written), and a payment above the maximum per payment that bank staff
set for its merchant or for the platform, in its currency, is refused with 100.550.312 (stored,
HTTP 200) before the network is asked; the lower of the two levels counts. A fresh platform
refuses 9,999,999,999.99 EUR (the limits its migration seeds)."""

import importlib
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps

from merchants.models import AmountLimit
from merchants.services import amount_limit_set
from payments.models import Payment
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory
from tests.merchants.test_admin import change_form_data, change_url, text
from tests.payments.conftest import Payer
from tests.payments.test_checkouts import create as create_checkout
from tests.payments.test_registrations import CIT, pay_stored, register

pytestmark = pytest.mark.django_db
ABOVE = "100.550.312"


@pytest.fixture(autouse=True)
def _no_seeded_limits() -> None:
    """Each test sets the limits it is about (a migrated database has the seeded ones)."""
    AmountLimit.objects.all().delete()


# --- taxAmount ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["DB", "PA", "CD"])
def test_a_tax_amount_above_the_amount_is_refused(payer: Payer, kind: str) -> None:
    response = payer.pay(kind, "10.00", taxAmount="10.01")
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert param_errors(response) == {"taxAmount": "must not be greater than amount (10.00)"}
    assert not Payment.objects.exists()


def test_a_tax_amount_up_to_the_amount_is_accepted(payer: Payer) -> None:
    assert code(payer.pay("DB", "10.00", taxAmount="10.00")) == "000.000.000"
    assert code(payer.pay("DB", "10.00", taxAmount="0.00")) == "000.000.000"


def test_the_stored_card_and_checkout_paths_refuse_it_too(payer: Payer) -> None:
    registration = register(payer).json()["registrationId"]
    stored = pay_stored(payer, registration, amount="5.00", taxAmount="6.00")
    assert stored.status_code == 400 and "taxAmount" in param_errors(stored)
    checkout = create_checkout(payer, amount="5.00", taxAmount="6.00")
    assert checkout.status_code == 400 and "taxAmount" in param_errors(checkout)


# --- the maximum per payment ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["DB", "PA", "CD"])
def test_a_payment_above_the_platforms_limit_is_refused_before_the_network(
    payer: Payer, kind: str
) -> None:
    amount_limit_set(merchant=None, currency="EUR", max_amount=Decimal("1000.00"), changed_by="t")
    assert code(payer.pay(kind, "1000.00")) == "000.000.000"

    refused = payer.pay(kind, "1000.01")

    assert refused.status_code == 200 and code(refused) == ABOVE
    assert "maximum per payment" in refused.json()["result"]["description"]
    payment = Payment.objects.get(pk=refused.json()["id"])
    assert payment.result_code == ABOVE and not payment.successful
    assert payment.network_reference in ("", None)  # the network was never asked
    assert code(payer.get(payment.pk)) == ABOVE


def test_the_lower_of_the_merchants_and_the_platforms_limit_counts(payer: Payer) -> None:
    merchant = payer.merchant
    amount_limit_set(merchant=None, currency="EUR", max_amount=Decimal("500.00"), changed_by="t")
    amount_limit_set(
        merchant=merchant, currency="EUR", max_amount=Decimal("200.00"), changed_by="t"
    )
    assert code(payer.pay("DB", "200.00")) == "000.000.000"
    assert code(payer.pay("DB", "200.01")) == ABOVE
    amount_limit_set(
        merchant=merchant, currency="EUR", max_amount=Decimal("900.00"), changed_by="t"
    )
    assert code(payer.pay("DB", "500.00")) == "000.000.000"
    assert code(payer.pay("DB", "500.01")) == ABOVE  # the platform's is lower now


def test_another_currency_and_another_merchant_are_not_limited(payer: Payer, participator) -> None:  # type: ignore[no-untyped-def]
    other = MerchantFactory(participator=participator)
    other_payer = Payer(
        SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other
    )
    amount_limit_set(
        merchant=payer.merchant, currency="EUR", max_amount=Decimal("10.00"), changed_by="t"
    )
    assert code(payer.pay("DB", "50.00", currency="USD")) == "000.000.000"
    assert code(other_payer.pay("DB", "50.00")) == "000.000.000"
    assert code(payer.pay("DB", "50.00")) == ABOVE


def test_a_card_verification_moves_no_money_and_has_no_limit(payer: Payer) -> None:
    amount_limit_set(merchant=None, currency="EUR", max_amount=Decimal("1.00"), changed_by="t")
    assert code(payer.pay("CV", "5.00")).startswith("000.")


def test_a_stored_card_payment_is_limited_too(payer: Payer) -> None:
    registration = register(payer).json()["registrationId"]
    amount_limit_set(merchant=None, currency="EUR", max_amount=Decimal("20.00"), changed_by="t")
    cvv = {"card.cvv": "123"}
    assert code(pay_stored(payer, registration, amount="20.00", **CIT, **cvv)) == "000.000.000"
    assert code(pay_stored(payer, registration, amount="20.01", **CIT, **cvv)) == ABOVE


def test_a_fresh_platform_refuses_ten_billion_euros(payer: Payer) -> None:
    migration = importlib.import_module("merchants.migrations.0008_amount_limits")
    migration.seed_platform_limits(apps, None)
    assert AmountLimit.objects.filter(merchant=None, currency="EUR").get().max_amount == Decimal(
        "1000000.00"
    )
    for kind in ("DB", "CD"):
        assert code(payer.pay(kind, "9999999999.99")) == ABOVE


# --- bank staff set them in the admin -------------------------------------------------------------


def test_staff_set_a_merchants_limit_on_its_page(admin_client: Any, payer: Payer) -> None:
    merchant = payer.merchant
    data = change_form_data(admin_client.get(change_url(merchant)))
    data.update(
        {
            "amount_limits-TOTAL_FORMS": "1",
            "amount_limits-0-currency": "EUR",
            "amount_limits-0-max_amount": "300.00",
        }
    )
    saved = admin_client.post(change_url(merchant), data, follow=True)
    assert saved.status_code == 200
    limit = AmountLimit.objects.get(merchant=merchant)
    assert (limit.currency, limit.max_amount, limit.changed_by) == (
        "EUR",
        Decimal("300.00"),
        "staff:admin",
    )
    assert code(payer.pay("DB", "300.01")) == ABOVE


def test_staff_keep_the_platforms_limits(admin_client: Any, payer: Payer) -> None:
    url = "/admin/merchants/platformamountlimit/add/"
    refused = admin_client.post(url, {"currency": "JPY", "max_amount": "1000.50"})
    assert refused.status_code == 200 and "JPY has 0 decimals" in text(refused)
    assert not AmountLimit.objects.exists()
    added = admin_client.post(url, {"currency": "EUR", "max_amount": "250.00"}, follow=True)
    assert added.status_code == 200
    limit = AmountLimit.objects.get(merchant=None)
    assert (limit.max_amount, limit.changed_by) == (Decimal("250.00"), "staff:admin")
    listing = text(admin_client.get("/admin/merchants/platformamountlimit/"))
    assert "250.00" in listing
    assert code(payer.pay("DB", "250.01")) == ABOVE
    admin_client.post(
        f"/admin/merchants/platformamountlimit/{limit.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert not AmountLimit.objects.exists()
    assert code(payer.pay("DB", "250.01")) == "000.000.000"
