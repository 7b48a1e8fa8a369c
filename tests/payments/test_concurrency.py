"""Parallel captures and duplicates on PostgreSQL, with real threads (own connections)."""

from decimal import Decimal

import pytest
from django.db import connection

from merchants.models import Merchant
from payments.models import Payment
from tests.conftest import SpecClient
from tests.factories import MerchantFactory
from tests.merchants.test_concurrency import race
from tests.payments.conftest import Payer, mtid

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")


def payer_for(merchant: Merchant) -> Payer:
    return Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )


def test_parallel_captures_never_exceed_the_pa():
    merchant = MerchantFactory()
    pa = payer_for(merchant).pay("PA", "100.00").json()["id"]
    responses = race([lambda: payer_for(merchant).ref("CP", pa, "10.00") for _ in range(16)])
    codes = sorted(r.json()["result"]["code"] for r in responses)
    assert codes == ["000.000.000"] * 10 + ["700.400.100"] * 6
    assert Payment.objects.get(pk=pa).captured_amount == Decimal("100.00")


def test_parallel_refunds_never_exceed_the_debit():
    merchant = MerchantFactory()
    db = payer_for(merchant).pay("DB", "50.00").json()["id"]
    responses = race([lambda: payer_for(merchant).ref("RF", db, "10.00") for _ in range(8)])
    successes = [r for r in responses if r.json()["result"]["code"] == "000.000.000"]
    assert len(successes) == 5
    assert Payment.objects.get(pk=db).refunded_amount == Decimal("50.00")


def test_concurrent_duplicates_create_one_payment():
    merchant = MerchantFactory()
    ref = mtid()
    responses = race(
        [lambda: payer_for(merchant).pay("DB", merchantTransactionId=ref) for _ in range(8)]
    )
    assert Payment.objects.filter(merchant=merchant).count() == 1
    assert len({r.json()["id"] for r in responses}) == 1
    assert sum(r.get("Idempotent-Replayed") != "true" for r in responses) == 1
