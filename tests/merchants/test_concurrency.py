"""Concurrent duplicates on PostgreSQL, with real threads and their own connections.

Skipped on SQLite (one writer at a time, so nothing to race); .ci/run runs the suite on
PostgreSQL.
"""

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.db import connection, connections

from merchants.api.tables import MERCHANT_CREATE
from merchants.models import Merchant, MerchantStatusChange
from tests.conftest import SpecClient
from tests.factories import MerchantFactory, ParticipatorFactory
from tests.spec_requests import valid_body

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")


def race(calls):
    """Run the calls at the same instant, each in its own thread and DB connection."""
    barrier = Barrier(len(calls))

    def run(call):
        try:
            barrier.wait()
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def client_for(participator):
    return SpecClient(participator.plain_token, participator.entity_id, "PARTICIPATOR")


def test_same_merchant_id_with_different_references_creates_one_merchant():
    participator = ParticipatorFactory()
    body = valid_body(MERCHANT_CREATE, **{"merchant.id": "900000001"})
    calls = [
        lambda i=i: client_for(participator).post(
            "/pay/v3/merchant/create", {**body, "merchantTransactionId": f"race{i}"}, mtid=False
        )
        for i in range(THREADS)
    ]
    responses = race(calls)
    assert all(r.status_code == 200 for r in responses), [r.content for r in responses]
    codes = sorted(r.json()["result"]["code"] for r in responses)
    assert codes == ["000.000.100"] + ["200.300.405"] * (THREADS - 1)
    assert Merchant.objects.filter(merchant_id="900000001").count() == 1


def test_same_reference_and_parameters_create_once_and_replay():
    participator = ParticipatorFactory()
    body = {
        **valid_body(MERCHANT_CREATE, **{"merchant.id": "900000002"}),
        "merchantTransactionId": "same",
    }
    responses = race(
        [
            lambda: client_for(participator).post("/pay/v3/merchant/create", body, mtid=False)
            for _ in range(THREADS)
        ]
    )
    assert all(r.status_code == 200 for r in responses), [r.content for r in responses]
    # One request creates; every other one answers as its replay: same id, same result, even
    # those that lost the race on the merchant.id index before the replay record was committed.
    assert Merchant.objects.filter(merchant_id="900000002").count() == 1
    assert {r.json()["result"]["code"] for r in responses} == {"000.000.100"}
    assert len({r.json()["id"] for r in responses}) == 1
    assert sum(r.get("Idempotent-Replayed") != "true" for r in responses) == 1


def test_parallel_status_changes_each_leave_one_history_row():
    merchant = MerchantFactory()
    statuses = [
        "BLOCKED",
        "CLOSED",
        "BLOCKED",
        "TERMINATED",
        "BLOCKED",
        "CLOSED",
        "BLOCKED",
        "NORMAL",
    ]
    calls = [
        lambda s=s: client_for(merchant.participator).post(
            "/pay/v3/merchant/status/", {"merchant.id": merchant.merchant_id, "merchant.status": s}
        )
        for s in statuses
    ]
    responses = race(calls)
    assert all(r.status_code == 200 for r in responses)
    applied = [r for r in responses if r.json()["result"]["code"] == "000.000.100"]
    history = list(
        MerchantStatusChange.objects.filter(merchant=merchant)
        .exclude(from_status="")
        .order_by("id")
    )
    assert len(history) == len(applied)
    # The history is a chain: each row starts where the previous one ended (rows were locked).
    for before, after in zip(history, history[1:], strict=False):
        assert after.from_status == before.to_status
    merchant.refresh_from_db()
    assert merchant.status == history[-1].to_status
