"""Parallel captures and duplicates on PostgreSQL, with real threads (own connections)."""

from datetime import timedelta
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


def test_fifty_parallel_captures_held_in_the_network_never_over_capture():
    """Captures are in flight together (the network holds their answers): the reservations
    alone decide which fit; once released, the totals are exact."""
    from payments.connectors import simulator

    merchant = MerchantFactory()
    with simulator.held() as gate:
        pending = _in_thread(
            lambda: payer_for(merchant).pay("PA", "100.00", number=simulator.SLOW_CARD)
        )
        gate.wait_for_callers(1)
        gate.release()
        pa = pending.result()
    pa_id = pa.json()["id"]
    assert pa.json()["result"]["code"] == "000.000.000"

    with simulator.held() as gate:
        calls = [lambda: payer_for(merchant).ref("CP", pa_id, "10.00") for _ in range(50)]
        running = _in_thread(lambda: race(calls))
        assert gate.wait_for_callers(10)  # ten captures reserved their 10.00 and are held
        original = Payment.objects.get(pk=pa_id)
        assert original.capturing_amount == Decimal("100.00")
        assert original.captured_amount == 0
        gate.release()
        responses = running.result()
    codes = sorted(r.json()["result"]["code"] for r in responses)
    assert codes == ["000.000.000"] * 10 + ["700.400.100"] * 40
    original = Payment.objects.get(pk=pa_id)
    assert (original.captured_amount, original.capturing_amount) == (Decimal("100.00"), 0)


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_the_janitor_and_a_late_answer_finalize_a_payment_once():
    """The janitor resolves a payment whose answer is held; when the held answer arrives the
    request finds it final and answers what the janitor recorded."""
    from payments.connectors import simulator
    from payments.services import payment_resolve_in_flight

    merchant = MerchantFactory()
    with simulator.held() as gate:
        running = _in_thread(
            lambda: payer_for(merchant).pay("DB", "15.00", number=simulator.SLOW_CARD)
        )
        gate.wait_for_callers(1)
        payment = Payment.objects.get(merchant=merchant)
        assert payment.state == "IN_FLIGHT"
        assert payment_resolve_in_flight(older_than=timedelta(0)).resolved == 1
        gate.release()
        late = running.result()
    payment.refresh_from_db()
    assert payment.state == "DONE" and payment.captured_amount == Decimal("15.00")
    assert late.json()["result"]["code"] == "000.000.000"
    assert late.json()["id"] == payment.pk


def _in_thread(call):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def run():
        try:
            return call()
        finally:
            connections.close_all()

    pool = ThreadPoolExecutor(1)
    future = pool.submit(run)
    pool.shutdown(wait=False)
    return future


def test_two_mits_of_one_chain_at_once_never_both_pass_the_frequency_rule():
    """The first MIT is held at the network (in flight, counted on the chain); the second,
    claimed meanwhile, is measured from it and refused; only one is authorized."""
    from payments.connectors import simulator
    from payments.models import StandingInstruction
    from tests.payments.test_registrations import pay_stored

    merchant = MerchantFactory()
    payer = payer_for(merchant)
    with simulator.held() as gate:
        pending = _in_thread(
            lambda: payer_for(merchant).pay(
                "CV",
                None,
                number=simulator.SLOW_CARD,
                createRegistration="true",
                **{
                    "standingInstruction.source": "CIT",
                    "standingInstruction.type": "RECURRING",
                    "standingInstruction.frequency": "28",
                },
            )
        )
        gate.wait_for_callers(1)
        gate.release()
        setup = pending.result().json()
    registration = setup["registrationId"]
    initial_id = setup["standingInstruction"]["initialTransactionId"]
    mit = {
        "standingInstruction.source": "MIT",
        "standingInstruction.initialTransactionId": initial_id,
    }
    with simulator.held() as gate:
        running = _in_thread(lambda: race([lambda: pay_stored(payer, registration, **mit)] * 2))
        assert gate.wait_for_callers(1)
        assert StandingInstruction.objects.get().in_flight == 1
        gate.release()
        responses = running.result()
    codes = sorted(r.json()["result"]["code"] for r in responses)
    assert codes == ["000.000.000", "700.450.130"]
    chain = StandingInstruction.objects.get()
    assert (chain.authorizations, chain.in_flight) == (1, 0)
    mits = Payment.objects.filter(standing_instruction=chain).exclude(pk=chain.initial_payment_id)
    assert mits.count() == 1
