"""The network is asked outside any database transaction: a payment is claimed IN_FLIGHT first,
finalized after the answer; a retry of a request in flight answers "in progress" without asking
the network again; the janitor resolves what a lost answer left in flight."""

from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from payments.connectors import simulator
from payments.models import Payment, PaymentState
from payments.services import payment_resolve_in_flight
from tests.conftest import code
from tests.payments.conftest import VISA, mtid

LOST, SILENT, SLOW = simulator.LOST_CARD, simulator.SILENT_CARD, simulator.SLOW_CARD
NOW = timedelta(0)  # the janitor's `older_than` in tests: every row in flight is due


@pytest.fixture(autouse=True)
def _a_short_wait_for_what_never_answers(settings):
    """Over the ISO 8583 link (the PostgreSQL run) a lost or silent card's answer is waited for
    the connector's timeout: one second here, not the production twenty."""
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 1.0


@pytest.fixture
def network_log(tmp_path, settings):
    """The requests the simulated network received, by kind and reference."""
    path = tmp_path / "network.log"
    path.touch()
    settings.PAYMENTS_SIMULATOR_LOG = str(path)

    def received(kind: str = "", reference: str = "") -> list[str]:
        lines = path.read_text().splitlines()
        return [line for line in lines if line.startswith(kind) and line.endswith(reference)]

    return received


def resolve(**kwargs):
    return payment_resolve_in_flight(older_than=NOW, **kwargs)


@pytest.mark.django_db(transaction=True)
def test_the_network_is_never_asked_inside_a_transaction(payer, monkeypatch):
    seen = []
    original_authorize = simulator.SimulatorConnector.authorize
    original_follow_up = simulator.SimulatorConnector.follow_up

    def authorize(self, request):
        seen.append(("authorize", connection.in_atomic_block))
        return original_authorize(self, request)

    def follow_up(self, request):
        seen.append(("follow-up", connection.in_atomic_block))
        return original_follow_up(self, request)

    monkeypatch.setattr(simulator.SimulatorConnector, "authorize", authorize)
    monkeypatch.setattr(simulator.SimulatorConnector, "follow_up", follow_up)
    pa = payer.pay("PA", "20.00").json()["id"]
    assert code(payer.ref("CP", pa, "5.00")) == "000.000.000"
    db = payer.pay("DB").json()["id"]
    assert code(payer.ref("RF", db, "1.00")) == "000.000.000"
    assert seen == [
        ("authorize", False),
        ("follow-up", False),
        ("authorize", False),
        ("follow-up", False),
    ]


def test_a_lost_answer_leaves_the_payment_in_flight_and_says_so(payer, network_log):
    response = payer.pay("DB", number=LOST)
    data = response.json()
    assert response.status_code == 200
    assert data["result"]["code"] == "000.200.100"
    payment = Payment.objects.get(pk=data["id"])
    assert payment.state == PaymentState.IN_FLIGHT and payment.in_flight_since is not None
    assert not payment.successful and payment.captured_amount == 0
    assert payer.get(data["id"]).json()["result"]["code"] == "000.200.100"


def test_a_retry_of_a_request_in_flight_answers_in_progress_and_asks_nothing(payer, network_log):
    reference = mtid()
    first = payer.pay("DB", number=LOST, merchantTransactionId=reference)
    again = payer.pay("DB", number=LOST, merchantTransactionId=reference)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["result"]["code"] == "000.200.100"
    assert len(network_log("authorize")) == 1
    other = payer.pay("DB", "11.00", number=LOST, merchantTransactionId=reference)
    assert code(other) == "800.110.100"


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_the_janitor_finalizes_an_approval_whose_answer_was_lost(payer, network_log):
    payment_id = payer.pay("DB", "12.00", number=LOST).json()["id"]
    outcome = resolve()
    assert (outcome.resolved, outcome.reversed) == (1, 0)
    payment = Payment.objects.get(pk=payment_id)
    assert payment.state == PaymentState.DONE and payment.successful
    assert payment.captured_amount == Decimal("12.00")
    answer = payer.get(payment_id).json()
    assert answer["result"]["code"] == "000.000.000"
    assert answer["resultDetails"]["AuthCode"] == payment.auth_code != ""
    assert len(network_log("authorize", payment_id)) == 1  # asked, never authorized again
    # The retry now replays the final answer.
    assert resolve().resolved == 0


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_the_janitor_reverses_an_authorization_the_network_cannot_account_for(payer, network_log):
    payment_id = payer.pay("PA", "30.00", number=SILENT).json()["id"]
    outcome = resolve()
    assert (outcome.resolved, outcome.reversed) == (0, 1)
    payment = Payment.objects.get(pk=payment_id)
    assert payment.state == PaymentState.DONE and not payment.successful
    assert payment.result_code == "900.100.301"  # no answer in time; reversed (issue 32)
    reversal = Payment.objects.get(referenced=payment)
    assert (reversal.payment_type, reversal.transaction_source) == ("RV", "TIMEOUT")
    assert reversal.successful and reversal.amount == Decimal("30.00")
    assert reversal.merchant_transaction_id == f"TIMEOUT{payment_id[:25]}"
    assert payment.reversed_amount == Decimal("30.00") and payment.reversing_amount == 0
    assert network_log("follow-up RV", reversal.pk)


def test_a_payment_the_janitor_reversed_answers_so_with_its_reversal(payer, network_log):
    """Not "uncertain: reverse it" once it is reversed (issue 32): 900.100.301 with the
    reversal's id; a reversal asked again is refused, as the payment says why."""
    payment_id = payer.pay("DB", "30.00", number=SILENT).json()["id"]
    assert resolve().reversed == 1
    reversal = Payment.objects.get(referenced_id=payment_id)
    for answer in (payer.get(payment_id).json(), Payment.objects.get(pk=payment_id).response_body):
        assert answer["result"]["code"] == "900.100.301"
        assert answer["result"]["description"].startswith("no answer from the network in time")
        assert answer["resultDetails"]["ReversalId"] == reversal.pk
    again = payer.ref("RV", payment_id, amount=None, transactionSource="TIMEOUT")
    assert code(again) == "700.400.300"


def test_a_timeout_reversal_the_merchant_sends_settles_it_too(payer, network_log, monkeypatch):
    """The janitor could not reverse (the network was down then): the merchant's own RV with
    transactionSource TIMEOUT, as 900.100.300's description asks, makes it 900.100.301."""
    from payments.services import janitor

    monkeypatch.setattr(janitor, "_reverse", lambda payment: None)
    payment_id = payer.pay("DB", "30.00", number=SILENT).json()["id"]
    resolve()
    assert code(payer.get(payment_id)) == "900.100.300"
    reversal = payer.ref("RV", payment_id, amount=None, transactionSource="TIMEOUT")
    assert code(reversal) == "000.000.000"
    answer = payer.get(payment_id).json()
    assert answer["result"]["code"] == "900.100.301"
    assert answer["resultDetails"]["ReversalId"] == reversal.json()["id"]


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_the_janitor_leaves_payments_younger_than_the_connector_timeout(payer):
    payment_id = payer.pay("DB", number=LOST).json()["id"]
    assert payment_resolve_in_flight().resolved == 0  # 20 s timeout: not due yet
    assert Payment.objects.get(pk=payment_id).state == PaymentState.IN_FLIGHT


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_a_capture_in_flight_holds_its_amount_until_the_janitor_settles_it(payer):
    pa = payer.pay("PA", "100.00", number=LOST)
    assert code(pa) == "000.200.100"
    assert resolve().resolved == 1  # the PA's lost answer: approved
    pa_id = pa.json()["id"]
    capture = payer.ref("CP", pa_id, "60.00")  # the CP's answer is lost too (same card)
    assert code(capture) == "000.200.100"
    original = Payment.objects.get(pk=pa_id)
    assert (original.capturing_amount, original.captured_amount) == (Decimal("60.00"), 0)
    assert code(payer.ref("CP", pa_id, "50.00")) == "700.400.100"  # 60.00 is held
    assert code(payer.ref("RV", pa_id, amount=None, transactionSource="CARDHOLDER")) == (
        "700.400.300"
    )
    assert resolve().resolved == 1
    original.refresh_from_db()
    assert (original.capturing_amount, original.captured_amount) == (0, Decimal("60.00"))
    assert code(payer.ref("CP", pa_id, "40.00")) == "000.200.100"


@pytest.mark.in_process_network  # over the link it is repeated until given up (test_iso_link.py)
def test_a_capture_the_network_cannot_account_for_releases_its_amount(payer):
    pa_id = payer.pay("PA", "100.00", number=SILENT).json()["id"]
    Payment.objects.filter(pk=pa_id).update(
        state=PaymentState.DONE, successful=True, result_code="000.000.000", in_flight_since=None
    )  # as if the network had answered the PA: only the capture's answer goes missing
    assert code(payer.ref("CP", pa_id, "70.00")) == "000.200.100"
    assert Payment.objects.get(pk=pa_id).capturing_amount == Decimal("70.00")
    outcome = resolve()
    assert (outcome.resolved, outcome.reversed) == (0, 1)
    original = Payment.objects.get(pk=pa_id)
    assert (original.capturing_amount, original.captured_amount) == (0, 0)
    capture = Payment.objects.get(referenced_id=pa_id)
    assert capture.result_code == "900.100.300" and capture.state == PaymentState.DONE
    assert Payment.objects.get(pk=pa_id).capturable == Decimal("100.00")


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_the_command_resolves_and_prints_the_counts(payer):
    payer.pay("DB", number=LOST)
    payer.pay("DB", number=SILENT)
    payer.pay("DB", number=VISA)
    out, err = StringIO(), StringIO()
    call_command("resolve_in_flight", "--older-than", "0", stdout=out, stderr=err)
    assert "2 payment(s) in flight" in err.getvalue()
    assert out.getvalue().strip() == "resolved=1 reversed=1 skipped=0"


def test_the_janitor_is_on_beat():
    from django.conf import settings

    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "payments.resolve_in_flight" in schedule


def test_a_slow_answer_waits_for_its_gate(payer):
    with simulator.held() as gate:
        gate.release()
        assert code(payer.pay("DB", number=SLOW)) == "000.000.000"


def test_an_answer_written_under_the_lock_to_a_row_that_is_gone_fails_as_save_would(payer):
    """finish() writes a locked payment's answer with a prepared UPDATE (core.prepared): no row
    written is save(update_fields=...)'s DatabaseError, never a silent success."""
    from django.db import DatabaseError

    from payments.connectors.base import NetworkAnswer
    from payments.services import engine

    response = payer.pay("DB")
    payment = Payment.objects.get(pk=response.json()["id"])
    payment.pk = "0" * 32  # not a row of the table
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        engine.finish(payment, NetworkAnswer(engine.TRANSACTION_SUCCEEDED))
    assert not Payment.objects.filter(pk="0" * 32).exists()


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
@pytest.mark.django_db(transaction=True)
def test_no_pooled_connection_is_held_while_the_network_is_asked(payer, monkeypatch):
    """A payment's network call and the janitor's inquiry give the pooled connection back first
    (core.pools.give_back_for_a_wait): a thread waiting on the network holds none of
    PostgreSQL's connections (issue 34). SQLite has no pool: nothing is given back there."""
    held = []
    authorize, inquire = (
        simulator.SimulatorConnector.authorize,
        simulator.SimulatorConnector.inquire,
    )

    def authorizing(self, request):
        held.append(("authorize", connection.connection is not None))
        return authorize(self, request)

    def inquiring(self, request):
        held.append(("inquire", connection.connection is not None))
        return inquire(self, request)

    monkeypatch.setattr(simulator.SimulatorConnector, "authorize", authorizing)
    monkeypatch.setattr(simulator.SimulatorConnector, "inquire", inquiring)
    assert payer.pay("DB", number=LOST).json()["result"]["code"] == "000.200.100"
    assert payment_resolve_in_flight(older_than=NOW).resolved == 1
    pooled = connection.vendor == "postgresql" and connection.pool is not None
    assert held == [("authorize", not pooled), ("inquire", not pooled)]
