"""The ISO 8583 link against the network host: the same decisions as the in-process simulator,
many requests in flight on one connection with answers in any order, a dropped connection, a
silent host (the echo takes the link down and brings it back), late answers never matched, no
card data in what the link logs, and payments through the API over the wire."""

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from decimal import Decimal

import pytest

from payments.connectors import iso_link, simulator
from payments.connectors.base import AuthRequest, ConnectorUnavailable, ReferenceRequest
from tests.conftest import code
from tests.payments.conftest import BAD_CVV, INVALID_CARD, NO_FUNDS, TIMEOUT, VISA
from tests.payments.network_host import RunningHost


def request(pan=VISA, reference="pay-1", **fields) -> AuthRequest:
    return AuthRequest(
        payment_type=fields.pop("payment_type", "DB"),
        amount=fields.pop("amount", Decimal("10.00")),
        currency=fields.pop("currency", "EUR"),
        brand="VISA",
        pan=pan,
        expiry_month="12",
        expiry_year="2034",
        cvv=fields.pop("cvv", "123"),
        billing_street=fields.pop("billing_street", "Main St 1"),
        billing_postcode=fields.pop("billing_postcode", "1010"),
        reference=reference,
        merchant_id="M0000001",
        **fields,
    )


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"pan": INVALID_CARD},
        {"pan": NO_FUNDS},
        {"pan": BAD_CVV},
        {"pan": TIMEOUT},
        {"billing_postcode": "00000"},
        {"billing_postcode": "99999", "cvv": ""},
        {"billing_street": ""},
        {"payment_type": "PA"},
        {"payment_type": "CV", "amount": None},
        {"payment_type": "CV", "amount": None, "currency": ""},  # a registration's, no field 49
        {"stored_credential": {"source": "MIT"}, "amount": Decimal("51.00")},
    ],
    ids=repr,
)
def test_the_link_answers_what_the_in_process_simulator_answers(network, changes):
    asked = request(**changes)
    over_the_wire = iso_link.Iso8583Connector().authorize(asked)
    in_process = simulator.SimulatorConnector().authorize(asked)
    assert over_the_wire.result == in_process.result
    for name in ("auth_code", "acquirer_response", "avs_response", "cvv_response",
                 "mac_response", "stan", "retrieval_ref_no", "acquirer_ref_no",
                 "network_reference", "clearing_institute"):  # fmt: skip
        assert getattr(over_the_wire, name) == getattr(in_process, name), name


@pytest.mark.parametrize("payment_type", ["CP", "RV", "RF", "PR"])
def test_follow_ups_go_over_the_link_too(network, payment_type):
    asked = ReferenceRequest(
        payment_type=payment_type,
        amount=Decimal("5.00"),
        currency="EUR",
        original_auth_code="ABC123",
        original_retrieval_ref_no="633221000042",
        reference=f"follow-{payment_type}",
        original_reference="pay-1",
        card_bin="420000",
        card_last4="0000",
        merchant_id="M0000001",
    )
    over_the_wire = iso_link.Iso8583Connector().follow_up(asked)
    in_process = simulator.SimulatorConnector().follow_up(asked)
    assert over_the_wire.approved and over_the_wire.result == in_process.result
    assert over_the_wire.auth_code == "ABC123"
    assert over_the_wire.retrieval_ref_no == "633221000042"  # the original's
    assert over_the_wire.network_reference == in_process.network_reference


def test_many_requests_share_one_connection_and_answers_find_their_request_in_any_order(
    settings,
):
    running = RunningHost(latency_ms=40, jitter_ms=35, seed=3)  # answers overtake each other
    settings.PAYMENTS_NETWORK_URL = running.url
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0
    try:
        connector = iso_link.Iso8583Connector()
        cards = [VISA, INVALID_CARD, NO_FUNDS, BAD_CVV] * 10
        with ThreadPoolExecutor(40) as pool:
            started = time.monotonic()
            answers = list(
                pool.map(lambda n: connector.authorize(request(cards[n], f"r{n}")), range(40))
            )
            took = time.monotonic() - started
        expected = [
            simulator.SimulatorConnector().authorize(request(cards[n], f"r{n}")) for n in range(40)
        ]
        assert [a.result for a in answers] == [e.result for e in expected]
        assert [a.stan for a in answers] == [e.stan for e in expected]
        assert len(running.host._writers) == 1  # one connection carried all forty
        assert took < 40 * 0.04  # in flight together, not one after the other
    finally:
        iso_link.close_links()
        running.stop()


def test_a_slow_answer_holds_up_no_other(network):
    connector = iso_link.Iso8583Connector()
    with simulator.held() as gate, ThreadPoolExecutor(2) as pool:
        slow = pool.submit(connector.authorize, request(simulator.SLOW_CARD, "slow"))
        assert gate.wait_for_callers(1, timeout=10)
        quick = connector.authorize(request(VISA, "quick"))
        assert quick.approved and not slow.done()
        gate.release()
        assert slow.result(timeout=10).approved


def test_a_request_the_network_never_answers_times_out(network, settings):
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    connector = iso_link.Iso8583Connector()
    for card in (simulator.LOST_CARD, simulator.SILENT_CARD):
        with pytest.raises(ConnectorUnavailable, match="no answer from the network in 0.3 s"):
            connector.authorize(request(card, f"never-{card}"))
    assert connector.authorize(request(VISA, "after")).approved  # the link is still up


def test_a_dropped_connection_fails_what_was_in_flight_at_once_and_is_reopened(network):
    connector = iso_link.Iso8583Connector()
    assert connector.authorize(request(VISA, "before")).approved
    with simulator.held() as gate, ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(connector.authorize, request(simulator.SLOW_CARD, "held"))
        assert gate.wait_for_callers(1, timeout=10)
        started = time.monotonic()
        network.call(network.host.close_connections)
        with pytest.raises(ConnectorUnavailable, match="connection to the network was lost"):
            in_flight.result(timeout=10)
        assert time.monotonic() - started < 2  # not the 5 s timeout
        gate.release()
    assert connector.authorize(request(VISA, "after")).approved  # a new connection
    assert network.host.answered >= 2


def test_a_late_answer_is_dropped_never_given_to_another_request(network, settings, caplog):
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    connector = iso_link.Iso8583Connector()
    with simulator.held() as gate:
        with pytest.raises(ConnectorUnavailable):
            connector.authorize(request(simulator.SLOW_CARD, "late"))
        with caplog.at_level(logging.WARNING, logger="payments.connectors.iso_link"):
            gate.release()
            deadline = time.monotonic() + 5
            while "nothing waits for" not in caplog.text and time.monotonic() < deadline:
                time.sleep(0.02)
    assert "nothing waits for (late)" in caplog.text
    assert connector.authorize(request(VISA, "next")).approved


def test_a_silent_host_takes_the_link_down_and_payments_are_refused_at_once(network, settings):
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0.2
    connector = iso_link.Iso8583Connector()
    assert connector.authorize(request(VISA, "up")).approved
    network.host.silent = True
    deadline = time.monotonic() + 5
    while not connector.link.down and time.monotonic() < deadline:
        time.sleep(0.05)
    assert connector.link.down
    started = time.monotonic()
    with pytest.raises(iso_link.NetworkDown):
        connector.authorize(request(VISA, "while-down"))
    assert time.monotonic() - started < 0.1  # refused, not waited out
    network.host.silent = False
    deadline = time.monotonic() + 5
    while connector.link.down and time.monotonic() < deadline:
        time.sleep(0.05)
    assert connector.authorize(request(VISA, "back")).approved


def test_a_link_down_comes_back_within_a_second_of_the_network(network, settings):
    """The host goes away (the link is down: payments refused at once) and comes back on the
    same port: the link probes every second while down, not every echo interval."""
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 30
    connector = iso_link.Iso8583Connector()
    assert connector.authorize(request(VISA, "before")).approved
    port = network.port
    network.stop()
    with pytest.raises(ConnectorUnavailable):
        connector.authorize(request(VISA, "lost"))  # the connection is gone
    with pytest.raises(iso_link.NetworkDown):
        connector.authorize(request(VISA, "down"))
    assert connector.link.down
    back = RunningHost(port=port, bitmap="binary")
    try:
        deadline = time.monotonic() + 5
        while connector.link.down and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not connector.link.down  # well before the 30 s echo
        assert connector.authorize(request(VISA, "after")).approved
    finally:
        iso_link.close_links()
        back.stop()


def test_no_host_listening_is_a_prompt_network_down(settings):
    settings.PAYMENTS_NETWORK_URL = "iso8583://127.0.0.1:9"  # discard: nothing listens
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0
    try:
        with pytest.raises(iso_link.NetworkDown, match="cannot reach the network"):
            iso_link.Iso8583Connector().authorize(request())
    finally:
        iso_link.close_links()


def test_the_link_logs_no_card_data(network, settings, caplog):
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    connector = iso_link.Iso8583Connector()
    with caplog.at_level(logging.DEBUG):
        connector.authorize(request(VISA, "logged"))
        with pytest.raises(ConnectorUnavailable) as raised:
            connector.authorize(request(simulator.LOST_CARD, "lost"))
    assert "network link: sent" in caplog.text and "network link: received" in caplog.text
    assert "420000******0000" in caplog.text  # the trace shows the PAN masked
    for secret in (VISA, simulator.LOST_CARD, "3412"):
        assert secret not in caplog.text and secret not in str(raised.value)


@pytest.mark.django_db(transaction=True)
def test_payments_through_the_api_go_over_the_link(network, payer, network_log_path):
    pa = payer.pay("PA", "20.00")
    assert code(pa) == "000.000.000", pa.json()
    answer = pa.json()
    assert answer["resultDetails"]["AcquirerResponse"] == "00"
    captured = payer.ref("CP", answer["id"], "5.00")
    assert code(captured) == "000.000.000"
    declined = payer.pay("DB", number=NO_FUNDS)
    assert declined.json()["resultDetails"]["AcquirerResponse"] == "51"
    received = network_log_path.read_text().splitlines()
    assert f"authorize {answer['id']}" in received
    assert f"follow-up CP {captured.json()['id']}" in received
    assert network.host.answered >= 3


def test_the_request_dataclass_hides_card_data():
    shown = repr(replace(request(), cvv="987"))
    assert VISA not in shown and "987" not in shown


@pytest.mark.django_db(transaction=True)
def test_stan_and_rrn_are_the_acquirers_assigned_at_the_claim_and_sent(network, payer):
    from payments.models import Payment

    first = payer.pay("DB").json()
    second = payer.pay("DB").json()
    stans = [int(p["additionalData"]["TraceAuditNo"]) for p in (first, second)]
    assert stans[1] == stans[0] % 999999 + 1  # one sequence
    for answer in (first, second):
        payment = Payment.objects.get(pk=answer["id"])
        claimed = payment.created_at
        day = f"{claimed.year % 10}{claimed.timetuple().tm_yday:03d}"
        assert payment.stan == answer["additionalData"]["TraceAuditNo"]
        assert payment.retrieval_ref_no[:4] == day and payment.retrieval_ref_no[6:] == payment.stan


def test_the_in_process_simulator_answers_the_claims_stan_and_rrn(payer):
    """The STAN and RRN are the acquirer's whichever network answers (issue 34): the in-process
    simulator echoes the ones the claim assigned, as the link sends them."""
    from payments.models import Payment

    answer = payer.pay("DB").json()
    payment = Payment.objects.get(pk=answer["id"])
    claimed = payment.created_at
    assert answer["additionalData"]["TraceAuditNo"] == payment.stan
    assert answer["additionalData"]["RetrievalRefNo"] == payment.retrieval_ref_no
    day = f"{claimed.year % 10}{claimed.timetuple().tm_yday:03d}"
    assert payment.retrieval_ref_no[:4] == day and payment.retrieval_ref_no[6:] == payment.stan


@pytest.mark.django_db(transaction=True)
def test_the_stan_goes_round_after_999999():
    from datetime import date

    from django.db import connection

    from payments.models import TraceCounter
    from payments.services import trace

    day = date(2026, 3, 1)
    trace.next_stan(day)  # the day's sequence (or row) exists from its first claim
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT setval('payments_stan_20260301', 999998)")
    else:
        TraceCounter.objects.filter(name="stan_20260301").update(value=999998)
    assert [trace.next_stan(day) for _ in range(3)] == ["999999", "000001", "000002"]


@pytest.mark.django_db(transaction=True)
def test_each_day_has_its_own_stan_sequence_and_old_days_are_dropped():
    """STAN from a sequence per day (issue 34): a new day starts at 000001 whatever the day
    before drew; the hourly purge drops the days no claim draws from any more (today's and
    yesterday's stay)."""
    from datetime import date

    from django.db import connection

    from payments.models import TraceCounter
    from payments.services import trace

    days = [date(2026, 4, 1), date(2026, 4, 2), date(2026, 4, 3)]
    assert [trace.next_stan(days[0]) for _ in range(3)] == ["000001", "000002", "000003"]
    assert trace.next_stan(days[1]) == "000001"
    assert trace.next_stan(days[0]) == "000004"
    assert trace.next_stan(days[2]) == "000001"

    assert trace.purge_trace_numbers(days[2]) >= 1  # 1 April's (and any older day's)
    assert trace.purge_trace_numbers(days[2]) == 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT relname FROM pg_class WHERE relkind = 'S'"
                " AND relname LIKE 'payments_stan_202604%%' ORDER BY relname"
            )
            left = [name for (name,) in cursor.fetchall()]
        assert left == ["payments_stan_20260402", "payments_stan_20260403"]
    else:
        left = sorted(
            TraceCounter.objects.filter(name__startswith="stan_202604").values_list(
                "name", flat=True
            )
        )
        assert left == ["stan_20260402", "stan_20260403"]
    assert trace.next_stan(days[0]) == "000001"  # a purged day would start again


def test_the_rrn_is_the_claims_year_digit_day_hour_and_stan():
    from datetime import UTC, datetime

    from payments.services import trace

    at = datetime(2026, 2, 1, 7, 5, tzinfo=UTC)
    assert trace.retrieval_ref_no("000042", at) == "603207000042"


def test_the_connector_timeout_stays_below_the_web_workers_own():
    """A request waiting on the network must answer "in progress" before gunicorn kills its
    worker for taking too long (issue 34): the connector timeout (the default, unless this
    environment sets one) leaves the request room for its own work within
    config/gunicorn.conf.py's `timeout`."""
    import re
    from pathlib import Path

    from django.conf import settings

    conf = (Path(settings.BASE_DIR) / "config" / "gunicorn.conf.py").read_text()
    found = re.search(r"^timeout = (\d+)$", conf, re.M)
    assert found is not None
    assert int(found.group(1)) >= settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS + 5


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("PAYMENTS_NETWORK_URL", "http://127.0.0.1:8583", "must look like iso8583://host:port"),
        ("PAYMENTS_NETWORK_URL", "iso8583://user@127.0.0.1:8583", "must look like"),
        ("PAYMENTS_NETWORK_URL", "iso8583://127.0.0.1", "must name a port"),
        ("PAYMENTS_NETWORK_URL", "iso8583://127.0.0.1:99999", "must name a port"),
        ("PAYMENTS_NETWORK_BITMAP", "ebcdic", "must be binary or hex"),
        ("PAYMENTS_ACQUIRER_ID", "12AB", "must be 1 to 11 digits"),
    ],
)
def test_a_link_setting_that_cannot_work_stops_the_start(variable, value, said):
    """Refused when the process starts (`manage.py check`), naming the setting, rather than on
    the first payment."""
    import subprocess
    import sys
    from pathlib import Path

    from django.conf import settings

    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=Path(settings.BASE_DIR),
        env={**os.environ, variable: value, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert f"ImproperlyConfigured: {variable} {said}" in done.stderr


@pytest.mark.django_db(transaction=True)
def test_over_the_link_each_outcome_answers_its_code_and_stores_it(network, settings, payer):
    """What the API answers over the link, and what it wrote: an approval and a decline are
    final; an answer that never comes leaves the payment in flight ("in progress", HTTP 200) for
    the janitor, which reverses it; a network that cannot be reached declines it at once with
    900.100.600 (nothing was sent)."""
    from payments import results as payment_results
    from payments.models import Payment, PaymentState

    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    outcomes = {
        "approved": payer.pay("DB"),
        "declined": payer.pay("DB", number=NO_FUNDS),
        "lost": payer.pay("DB", number=simulator.LOST_CARD),
    }
    settings.PAYMENTS_NETWORK_URL = "iso8583://127.0.0.1:9"  # nothing listens: the link is down
    outcomes["unreachable"] = payer.pay("DB")
    expected = {
        "approved": ("000.000.000", PaymentState.DONE, True),
        "declined": (payment_results.DECLINED_INSUFFICIENT_FUNDS.code, PaymentState.DONE, False),
        "lost": ("000.200.100", PaymentState.IN_FLIGHT, False),
        "unreachable": (payment_results.NETWORK_UNAVAILABLE.code, PaymentState.DONE, False),
    }
    for name, response in outcomes.items():
        code_, state, successful = expected[name]
        assert response.status_code == 200, name
        assert code(response) == code_, name
        stored = Payment.objects.get(pk=response.json()["id"])
        assert (stored.result_code, stored.state, stored.successful) == (code_, state, successful)
    unreachable = Payment.objects.get(pk=outcomes["unreachable"].json()["id"])
    assert unreachable.auth_code == "" and unreachable.acquirer_response == ""  # nothing came back

    # ISO 8583 has no inquiry: the janitor cannot learn what became of the lost one, so it
    # reverses it on the acquirer's word (a 0420 advice owed, tests/payments/test_advices.py) and
    # it answers 900.100.301 with its reversal's id.
    from datetime import timedelta

    from payments.services import payment_resolve_in_flight

    settings.PAYMENTS_NETWORK_URL = network.url
    outcome = payment_resolve_in_flight(older_than=timedelta(0))
    assert (outcome.resolved, outcome.reversed) == (0, 1)
    answer = payer.get(outcomes["lost"].json()["id"]).json()
    assert answer["result"]["code"] == "900.100.301"
    assert answer["resultDetails"]["ReversalId"]


def test_a_link_that_never_came_up_probes_and_declines_at_once(settings):
    """A process that starts while the network is away (a worker recycled during an outage):
    its first request finds the network unreachable, and from then on requests are declined at
    once while the echo probes, instead of each trying to connect."""
    settings.PAYMENTS_NETWORK_URL = "iso8583://127.0.0.1:9"  # discard: nothing listens
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 30
    try:
        connector = iso_link.Iso8583Connector()
        with pytest.raises(iso_link.NetworkDown, match="cannot reach the network"):
            connector.authorize(request(VISA, "first"))
        assert connector.link.down and connector.link._echoing()
        with pytest.raises(iso_link.NetworkDown, match="the network link is down"):
            connector.authorize(request(VISA, "second"))
    finally:
        iso_link.close_links()


def test_a_follow_up_whose_answer_was_lost_is_sent_again_and_booked_as_the_network_booked_it(
    network, settings, payer, network_log_path
):
    """Found by the cluster test (tests/faults/test_cluster.py): a refund whose answer never
    came was booked as timed out here while the network had refunded. The janitor now sends a
    lost follow-up again as a repeat (0201, 0221) with its STAN and RRN unchanged: a refund the
    network took is answered as it was, and not done twice, even while the network is still
    working on the first; a capture it never saw is taken now."""
    from datetime import timedelta

    from payments.models import Payment, PaymentState
    from payments.services import payment_resolve_in_flight

    original = payer.pay("PA", amount="50.00").json()["id"]
    debit = payer.pay("DB", amount="20.00").json()["id"]

    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    network.host.latency_ms = 1500  # taken by the network, its answer too late for the link
    refund = payer.ref("RF", debit, amount="4.00")
    network.host.latency_ms = 0
    network.host.drop_rate = 1.0  # never reaches the network
    capture = payer.ref("CP", original, amount="5.00")
    network.host.drop_rate = 0.0
    for response in (refund, capture):
        assert (response.status_code, code(response)) == (200, "000.200.100")
    refund_id, capture_id = refund.json()["id"], capture.json()["id"]

    # The repeats, while the network still holds the refund (its answer 1.5 s after it came).
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 5.0
    outcome = payment_resolve_in_flight(older_than=timedelta(0))
    assert (outcome.resolved, outcome.reversed, outcome.skipped) == (2, 0, 0)
    assert network.host.seen["0201"] == network.host.seen["0221"] == 1
    log = network_log_path.read_text().split("\n")
    assert log.count(f"follow-up RF {refund_id}") == 1  # refunded once, by the network's log
    assert log.count(f"follow-up CP {capture_id}") == 1  # captured now
    for payment_id in (refund_id, capture_id):
        stored = Payment.objects.get(pk=payment_id)
        assert (stored.state, stored.result_code, stored.successful) == (
            PaymentState.DONE,
            "000.000.000",
            True,
        )
    assert Payment.objects.get(pk=debit).refunded_amount == Decimal("4.00")
    assert Payment.objects.get(pk=original).captured_amount == Decimal("5.00")
    assert code(payer.ref("RF", debit, amount="4.00")) == "000.000.000"  # a new refund: its own


def test_a_follow_up_the_network_never_answers_stays_in_flight_until_given_up(
    network, settings, payer, caplog
):
    """A refund whose repeats go unanswered may have been done by the network: it stays in
    flight with its amount reserved (no second refund can take it) and is repeated at each run,
    until PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS, when it is booked timed out with an error logged."""
    import logging
    from datetime import timedelta

    from django.utils import timezone

    from payments.models import Payment, PaymentState
    from payments.services import payment_resolve_in_flight

    debit = payer.pay("DB", amount="20.00").json()["id"]
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    network.host.silent = True  # takes nothing, answers nothing (the echo is off: the link is up)
    refund = payer.ref("RF", debit, amount="20.00")
    assert code(refund) == "000.200.100"
    refund_id = refund.json()["id"]

    outcome = payment_resolve_in_flight(older_than=timedelta(0))
    assert (outcome.resolved, outcome.reversed, outcome.skipped) == (0, 0, 1)
    assert network.host.seen["0201"] == 1
    assert Payment.objects.get(pk=refund_id).state == PaymentState.IN_FLIGHT
    assert Payment.objects.get(pk=debit).refunding_amount == Decimal("20.00")  # still held
    network.host.silent = False
    assert code(payer.ref("RF", debit, amount="20.00")) != "000.000.000"  # nothing left
    network.host.silent = True

    later = timezone.now() + timedelta(hours=settings.PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS, minutes=1)
    with caplog.at_level(logging.ERROR, logger="payments.services.janitor"):
        outcome = payment_resolve_in_flight(now=later, older_than=timedelta(0))
    assert (outcome.resolved, outcome.reversed, outcome.skipped) == (0, 1, 0)
    stored = Payment.objects.get(pk=refund_id)
    assert (stored.state, stored.result_code) == (PaymentState.DONE, "900.100.300")
    debited = Payment.objects.get(pk=debit)
    assert (debited.refunding_amount, debited.refunded_amount) == (0, 0)
    assert "never answered by the network" in caplog.text and refund_id in caplog.text
