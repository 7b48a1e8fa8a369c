"""Parallel captures of one PA through gunicorn's sync workers: real processes, real HTTP.

tests/payments/test_concurrency.py races threads inside one process; here four gunicorn workers
(config/gunicorn.conf.py: preload, gc.freeze after fork) each hold their own PostgreSQL
connection, as in production. Sixteen CPs of 10.00 against a PA of 100.00 must capture exactly
100.00: ten succeed, six are refused with 700.400.100 (the PA row lock decides).

Skipped on SQLite (one writer at a time); needs DATABASE_URL pointing at PostgreSQL.
"""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from threading import Barrier

import pytest
from django.db import connection

from bench._server import gunicorn, post_form
from payments.models import Payment
from tests.conftest import SpecClient, code, url_of_test_database
from tests.factories import MerchantFactory
from tests.payments.conftest import card, mtid

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 4
CAPTURES = 16
HEALTH_TIMEOUT_S = 30.0
REQUEST_TIMEOUT_S = 20.0


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")


def test_parallel_captures_through_gunicorn_never_exceed_the_preauthorization(
    tmp_path, server_keys
):
    merchant = MerchantFactory()
    entity = merchant.entity
    api = SpecClient(entity.plain_token, entity.entity_id, "MERCHANT")
    pa = api.post(
        "/pay/v3/payments",
        {
            "paymentType": "PA",
            "merchant.id": merchant.merchant_id,
            "merchantTransactionId": mtid(),
            "amount": "100.00",
            "currency": "EUR",
            **card(),
        },
        mtid=False,
    )
    assert code(pa) == "000.000.000", pa.content  # committed: transaction=True
    pa_id = pa.json()["id"]

    capture = {
        "entityId": entity.entity_id,
        "entityType": "MERCHANT",
        "merchant.id": merchant.merchant_id,
        "paymentType": "CP",
        "amount": "10.00",
        "currency": "EUR",
    }
    barrier = Barrier(CAPTURES)

    def fire(port: int) -> tuple[int, dict]:
        barrier.wait(timeout=REQUEST_TIMEOUT_S)  # all sixteen leave together
        return post_form(
            port,
            f"/pay/v3/payments/{pa_id}",
            {**capture, "merchantTransactionId": mtid()},
            entity.plain_token,
        )

    server = gunicorn(
        database_url=url_of_test_database(),
        workers=WORKERS,
        log_path=tmp_path / "gunicorn.log",
        env=server_keys,
        health_timeout=HEALTH_TIMEOUT_S,
    )
    with server as running, ThreadPoolExecutor(CAPTURES) as pool:
        answers = list(pool.map(fire, [running.port] * CAPTURES, timeout=2 * REQUEST_TIMEOUT_S))

    assert [status for status, _ in answers] == [200] * CAPTURES, answers
    codes = Counter(body["result"]["code"] for _, body in answers)
    assert codes == {"000.000.000": 10, "700.400.100": 6}, answers
    original = Payment.objects.get(pk=pa_id)
    assert original.captured_amount == Decimal("100.00")
    captures = Payment.objects.filter(referenced=original, payment_type="CP", successful=True)
    assert captures.count() == 10
    assert {p.id for p in captures} == {
        body["id"] for _, body in answers if body["result"]["code"] == "000.000.000"
    }
