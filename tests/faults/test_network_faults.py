"""Faults on the ISO 8583 link (issue 34, section 5), with the network host and gunicorn as
processes of their own on PostgreSQL: answers late past the timeout, the link dropped with
payments in flight, the host silent, the host restarted, a gunicorn worker killed with payments
in flight, each while payments keep coming.

Afterwards the janitor and the advice sender run (as beat would): every payment is final
(approved, declined or reversed), none is charged twice, every reversal advice is acknowledged,
what the host approved and was not told to reverse is exactly what the platform booked, and the
merchant's transactions report agrees with the host's log.
"""

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from bench._server import free_port, gunicorn, start_network_host, stop_process
from config.celery import app
from core.business_day import business_day_of
from payments.models import Payment, PaymentState, ReversalAdvice
from payments.services import advices, payment_resolve_in_flight
from reconciliation import reports
from tests.conftest import url_of_test_database
from tests.factories import MerchantFactory
from tests.faults.tools import PaymentLoad, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.long, pytest.mark.django_db(transaction=True)]

TIMEOUT_S = 1.0  # the connector's timeout in the server: late answers come after it


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): workers write at once")


class Host:
    """`manage.py network_host` on a port of its own, its log of what it received."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.url = f"iso8583://127.0.0.1:{self.port}"
        self.log = tmp_path / "network.log"
        self.log.touch()
        self.output = tmp_path / "network-host.out"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, latency_ms: float = 30, jitter_ms: float = 10) -> None:
        self.process = start_network_host(
            port=self.port,
            log_path=self.output,
            latency_ms=latency_ms,
            jitter_ms=jitter_ms,
            seed=3,
            env={"PAYMENTS_SIMULATOR_LOG": str(self.log)},
        )

    def stop(self) -> None:
        stop_process(self.process, timeout=10)

    def signal(self, number: int) -> None:
        assert self.process is not None
        self.process.send_signal(number)

    def lines(self, kind: str) -> set[str]:
        prefix = f"{kind} "
        lines = self.log.read_text().splitlines()
        return {line.removeprefix(prefix) for line in lines if line.startswith(prefix)}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    running = Host(tmp_path)
    try:
        yield running
    finally:
        running.stop()


@contextlib.contextmanager
def load_during(server, merchant, seconds: float) -> Iterator[PaymentLoad]:
    """Payments from four clients while the block runs, and `seconds` more after it."""
    load = PaymentLoad(server.port, merchant, clients=4).start()
    try:
        yield load
        time.sleep(seconds)
    finally:
        load.stop()


def test_every_payment_ends_final_and_the_report_agrees_with_the_network(
    tmp_path: Path, settings, server_keys, host: Host
):
    host.start(latency_ms=TIMEOUT_S * 1000, jitter_ms=TIMEOUT_S * 400)  # half come too late
    merchant = MerchantFactory()
    env = {
        **server_keys,
        "PAYMENTS_NETWORK_URL": host.url,
        "PAYMENTS_CONNECTOR_TIMEOUT_SECONDS": str(TIMEOUT_S),
        "PAYMENTS_NETWORK_ECHO_SECONDS": "0.5",
        "GUNICORN_THREADS": "8",
    }
    answers = []
    with gunicorn(
        database_url=url_of_test_database(), workers=2, log_path=tmp_path / "web.log", env=env
    ) as server:
        # Half the answers late past the timeout.
        with load_during(server, merchant, 2.5) as load:
            pass
        answers += load.snapshot()
        host.stop()
        host.start()

        # The link dropped with payments in flight, twice; then the host silent for a while.
        with load_during(server, merchant, 1.0) as load:
            for _ in range(2):
                time.sleep(0.7)
                host.signal(signal.SIGUSR1)
            time.sleep(0.7)
            host.signal(signal.SIGUSR2)  # silent: the echo takes the links down
            time.sleep(2.0)
            host.signal(signal.SIGUSR2)  # answering again
        answers += load.snapshot()

        # The host restarted under load; then a worker killed with payments in flight.
        with load_during(server, merchant, 1.5) as load:
            time.sleep(0.7)
            host.stop()
            time.sleep(0.5)
            host.start()
            time.sleep(1.5)
            os.kill(server.workers[0], signal.SIGKILL)
        answers += load.snapshot()

    # As beat would: the janitor reverses what the network never answered, and the advices go
    # out (a worker at once: eager here) until the network has them all.
    settings.PAYMENTS_NETWORK_URL = host.url
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0
    previous, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        for _ in range(5):
            if not Payment.objects.filter(state=PaymentState.IN_FLIGHT).exists():
                break
            payment_resolve_in_flight(older_than=timedelta(0))
        later = timezone.now() + timedelta(days=1)
        wait_until(lambda: advices.send_owed(now=later).failed == 0, "every advice taken")
    finally:
        app.conf.task_always_eager = previous

    codes = {a.code for a in answers}
    payments = Payment.objects.filter(merchant=merchant)
    debits = {p.pk: p for p in payments.filter(payment_type="DB")}
    reversals = {p.pk: p for p in payments.filter(payment_type="RV")}
    assert len(debits) >= 40, f"too few payments to tell anything: {len(debits)}"
    # Each fault left its mark: some late or lost (reversed), some refused while down.
    assert "000.000.000" in codes and "000.200.100" in codes, codes
    assert "900.100.600" in codes, codes

    # Every payment is final; none is charged twice (one row per merchantTransactionId, and one
    # reversal at most per debit).
    assert not payments.filter(state=PaymentState.IN_FLIGHT).exists()
    assert len({p.merchant_transaction_id for p in debits.values()}) == len(debits)
    reversed_ids = [rv.referenced_id for rv in reversals.values()]
    assert len(reversed_ids) == len(set(reversed_ids))
    for rv in reversals.values():
        original = debits[rv.referenced_id]
        assert rv.successful and not original.successful
        assert original.result_code == "900.100.301"
    # Every reversal was told to the network and acknowledged.
    assert ReversalAdvice.objects.count() == len(reversals)
    assert not ReversalAdvice.objects.exclude(state="ACKNOWLEDGED").exists()

    # The host's log: what it approved (every card here is approved), what it was told to
    # reverse. Booked is exactly approved and not reversed; nothing declined at once reached it.
    approved = host.lines("authorize")
    told_to_reverse = {reversals[rv].referenced_id for rv in host.lines("follow-up RV")}
    assert told_to_reverse == set(reversed_ids)
    booked = {pk for pk, p in debits.items() if p.successful}
    assert booked == approved - told_to_reverse
    unreachable = {pk for pk, p in debits.items() if p.result_code == "900.100.600"}
    assert unreachable and not unreachable & approved

    # The merchant's transactions report says the same.
    days = {business_day_of(p.created_at) for p in debits.values()}
    records = [r for day in days for r in reports.transactions(merchant=merchant, day=day).all()]
    sales = [
        r for r in records if r["transactionType"] == "purchase" and r["transStatus"] == "Succeed"
    ]
    assert {r["backendTransId"] for r in sales} == booked
    assert sum(Decimal(r["transAmount"]) for r in sales) == Decimal("10.00") * len(booked)
    undone = [r for r in records if r["transactionType"] == "reversal"]
    assert {r["transStatus"] for r in undone} <= {"Succeed"} and len(undone) == len(reversals)
