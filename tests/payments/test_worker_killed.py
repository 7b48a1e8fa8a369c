"""A gunicorn worker killed (SIGKILL) while the network holds its answer: the payment stays
IN_FLIGHT in the database, a retry answers "in progress" without asking the network again, and
the janitor resolves it; the network authorized once and the running totals are exact.

The simulator's slow card waits on a PostgreSQL advisory lock this test holds (a gate across
processes): the test knows the worker is inside the network call when the simulator has logged
the request, and never sleeps to guess. PostgreSQL only.
"""

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from bench._server import Server, gunicorn, post_form, wait_healthy
from payments.connectors import simulator
from payments.models import Payment, PaymentState
from payments.services import payment_resolve_in_flight
from tests.conftest import url_of_test_database
from tests.factories import MerchantFactory
from tests.payments.conftest import card, mtid

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
WAIT_S = 30.0


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")


@contextlib.contextmanager
def network_held() -> Iterator[Callable[[], None]]:
    """Hold the simulator's cross-process gate; yields `release`."""
    db = settings.DATABASES["default"]
    conn = psycopg.connect(
        dbname=db["NAME"],
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
    )
    conn.autocommit = True
    held = [True]

    def release() -> None:
        if held[0]:
            with conn.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [simulator.ADVISORY_LOCK_KEY])
            held[0] = False

    with conn.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [simulator.ADVISORY_LOCK_KEY])
    try:
        yield release
    finally:
        release()
        conn.close()


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Shop:
    def __init__(self, server: Server, merchant) -> None:
        self.server, self.merchant = server, merchant

    def post(self, path: str, fields: dict[str, str]) -> tuple[int, dict]:
        body = {
            "entityId": self.merchant.entity.entity_id,
            "entityType": "MERCHANT",
            "merchant.id": self.merchant.merchant_id,
            **fields,
        }
        return post_form(self.server.port, path, body, self.merchant.entity.plain_token)

    def in_background(self, path: str, fields: dict[str, str]) -> threading.Thread:
        def run() -> None:
            with contextlib.suppress(OSError):  # the worker is killed under it
                self.post(path, fields)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def kill_the_worker(self) -> None:
        [worker] = self.server.workers
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: self.server.workers not in ([], [worker]), "a new worker")
        wait_healthy(self.server.port, self.server.process, WAIT_S)


@pytest.mark.in_process_network  # the janitor asks the simulator (ISO 8583 has no inquiry)
def test_a_worker_killed_in_the_network_call(tmp_path: Path, settings, server_keys):
    network_log = tmp_path / "network.log"
    network_log.touch()
    settings.PAYMENTS_SIMULATOR_LOG = str(network_log)
    env = {
        **server_keys,
        "PAYMENTS_SIMULATOR_GATE": "advisory-lock",
        "PAYMENTS_SIMULATOR_LOG": str(network_log),
    }

    def received(kind: str) -> list[str]:
        return [line for line in network_log.read_text().splitlines() if line.startswith(kind)]

    merchant = MerchantFactory()
    with gunicorn(
        database_url=url_of_test_database(),
        workers=1,
        log_path=tmp_path / "gunicorn.log",
        env=env,
    ) as server:
        shop = Shop(server, merchant)

        # A debit: the worker dies while the network holds the answer.
        debit = {
            "paymentType": "DB",
            "amount": "25.00",
            "currency": "EUR",
            "merchantTransactionId": mtid(),
            **card(simulator.SLOW_CARD),
        }
        with network_held() as release:
            shop.in_background("/pay/v3/payments", debit)
            wait_until(lambda: received("authorize"), "the authorization at the network")
            payment = Payment.objects.get(merchant=merchant)
            assert payment.state == PaymentState.IN_FLIGHT
            shop.kill_the_worker()

            status, retry = shop.post("/pay/v3/payments", debit)
            assert status == 200 and retry["id"] == payment.pk
            assert retry["result"]["code"] == "000.200.100"
            release()

        assert payment_resolve_in_flight(older_than=timedelta(0)).resolved == 1
        payment.refresh_from_db()
        assert payment.state == PaymentState.DONE and payment.successful
        assert payment.captured_amount == Decimal("25.00")
        assert received("authorize") == [f"authorize {payment.pk}"]  # authorized once
        status, replay = shop.post("/pay/v3/payments", debit)
        assert replay["result"]["code"] == "000.000.000" and replay["id"] == payment.pk

        # A capture: the reservation survives the worker and the janitor settles it.
        status, pa = shop.post(
            "/pay/v3/payments",
            {
                "paymentType": "PA",
                "amount": "100.00",
                "currency": "EUR",
                "merchantTransactionId": mtid(),
                **card(simulator.SLOW_CARD),
            },
        )
        assert pa["result"]["code"] == "000.000.000"
        capture = {"paymentType": "CP", "amount": "40.00", "currency": "EUR"}
        with network_held() as release:
            shop.in_background(
                f"/pay/v3/payments/{pa['id']}", {**capture, "merchantTransactionId": mtid()}
            )
            wait_until(lambda: received("follow-up CP"), "the capture at the network")
            shop.kill_the_worker()
            original = Payment.objects.get(pk=pa["id"])
            assert (original.capturing_amount, original.captured_amount) == (Decimal("40.00"), 0)
            status, over = shop.post(
                f"/pay/v3/payments/{pa['id']}",
                {**capture, "amount": "70.00", "merchantTransactionId": mtid()},
            )
            assert over["result"]["code"] == "700.400.100"  # 40.00 is still held
            release()
        assert payment_resolve_in_flight(older_than=timedelta(0)).resolved == 1
        original.refresh_from_db()
        assert (original.capturing_amount, original.captured_amount) == (0, Decimal("40.00"))
        status, rest = shop.post(
            f"/pay/v3/payments/{pa['id']}",
            {**capture, "amount": "60.00", "merchantTransactionId": mtid()},
        )
        assert rest["result"]["code"] == "000.000.000"
        original.refresh_from_db()
        assert original.captured_amount == Decimal("100.00")
        # The killed capture and the last one; the refused one never reached the network.
        assert len(received("follow-up CP")) == 2
