"""PostgreSQL out of reach for a few seconds under payment load (issue 22, "Survive it").

gunicorn (the production conf, 4 workers) reaches the test database through a TCP proxy the test
controls (tests/faults/tools.py): the machine's PostgreSQL is never touched. Two clients post
debits and one captures against a preauthorization without a pause; two debits on the
simulator's slow card are being answered by the network when the proxy cuts every connection and
refuses new ones. The cut lasts until those two are answered and every client has been refused
at least once; then the proxy lets connections through again.

What a client sees: every answer is the JSON envelope, 200 with the payment's result or 503 with
800.800.800; none is a traceback, an HTML page or a dropped connection. What is stored: every
payment is final with its answer stored, or IN_FLIGHT with nothing answered (the two slow debits,
whose network answer came while the database was away); a 503 left nothing or an IN_FLIGHT row,
or, when the cut came between PostgreSQL's commit and its acknowledgement, the whole payment,
which the client's retry replays;
the amount the captures in flight hold on the preauthorization is theirs exactly. Service resumes
by itself (the same gunicorn workers: Django's connection health checks drop the dead
connections and open new ones), a retry of a slow debit answers "in progress", and the janitor
resolves every payment in flight, after which the totals are exact and the retry replays the
approval. The figures are printed (`-s`) and kept in docs/operations.md, "Faults".
"""

import time
import uuid
from collections import Counter
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection

from bench._server import gunicorn
from payments.connectors.simulator import SLOW_CARD
from payments.models import Payment, PaymentState
from payments.services import payment_resolve_in_flight
from tests.factories import MerchantFactory
from tests.faults.tools import (
    Answer,
    PaymentLoad,
    TcpProxy,
    closing_all,
    database_address,
    database_url,
    debit,
    in_background,
    send,
    wait_until,
)
from tests.payments.conftest import card

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
PATH = "/pay/v3/payments"
APPROVED, IN_PROGRESS, UNAVAILABLE = "000.000.000", "000.200.100", "800.800.800"
SLOW_SECONDS = 3  # the network's answer to the slow card: the cut comes while they wait for it


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the test cuts its connections")


def ok(answer: Answer) -> bool:
    return (answer.status, answer.code) == (200, APPROVED)


def refused(answer: Answer) -> bool:
    return (answer.status, answer.code) == (503, UNAVAILABLE)


def test_payments_survive_the_database_going_away(tmp_path: Path, server_keys):
    merchant = MerchantFactory()
    network_log = tmp_path / "network.log"
    network_log.touch()
    env = {
        **server_keys,
        "PAYMENTS_SIMULATOR_LOG": str(network_log),
        "PAYMENTS_SIMULATOR_SLOW_SECONDS": str(SLOW_SECONDS),
    }
    proxy = TcpProxy(database_address())
    with (
        closing_all(proxy.close),
        gunicorn(
            database_url=database_url(port=proxy.port),
            workers=4,
            log_path=tmp_path / "gunicorn.log",
            env=env,
        ) as server,
    ):
        workers = sorted(server.workers)
        preauthorization = send(
            server.port,
            merchant,
            PATH,
            {
                "paymentType": "PA",
                "amount": "1000.00",
                "currency": "EUR",
                "merchantTransactionId": uuid.uuid4().hex,
                **card(),
            },
        )
        assert ok(preauthorization), preauthorization

        def capture() -> dict[str, str]:
            return {
                "paymentType": "CP",
                "amount": "1.00",
                "currency": "EUR",
                "merchantTransactionId": uuid.uuid4().hex,
            }

        debits = PaymentLoad(server.port, merchant, clients=2).start()
        captures = PaymentLoad(
            server.port,
            merchant,
            clients=1,
            path=f"{PATH}/{preauthorization.payment_id}",
            body=capture,
        ).start()
        loads = (debits, captures)
        try:
            wait_until(lambda: all(load.count(ok) >= 3 for load in loads), "payments before")

            # Two debits the network is answering when the database goes away.
            slow = [debit(SLOW_CARD) for _ in range(2)]
            held = [in_background(lambda b=b: send(server.port, merchant, PATH, b)) for b in slow]
            mtids = [body["merchantTransactionId"] for body in slow]

            def at_the_network() -> bool:
                claimed = Payment.objects.filter(merchant_transaction_id__in=mtids)
                sent = network_log.read_text().split()
                return claimed.count() == 2 and all(p.pk in sent for p in claimed)

            wait_until(at_the_network, "the slow debits at the network")
            cut_at = time.monotonic()
            proxy.cut()
            wait_until(
                lambda: (
                    all(not thread.is_alive() for thread, _ in held)
                    and all(load.count(refused, since=cut_at) >= 1 for load in loads)
                ),
                "the slow debits answered and every client refused",
            )
            restored_at = time.monotonic()
            proxy.restore()
            wait_until(
                lambda: all(load.count(ok, since=restored_at) >= 3 for load in loads),
                "payments after the database is back",
            )
        finally:
            for load in loads:
                load.stop()
        assert sorted(server.workers) == workers  # resumed without a restart

        held_answers = [out[0] for _, out in held]
        answers = debits.snapshot() + captures.snapshot() + held_answers
        # Every client got the envelope: an approval or the 503 of the outage.
        assert all(a.json for a in answers), [a.error for a in answers if not a.json][:5]
        seen = Counter((a.status, a.code) for a in answers)
        assert set(seen) <= {(200, APPROVED), (503, UNAVAILABLE)}, seen
        assert all(refused(a) for a in held_answers), held_answers

        # Nothing half-written: final with its answer stored, or in flight with none.
        payments = Payment.objects.filter(merchant=merchant)
        by_id = {p.pk: p for p in payments}
        by_mtid = {p.merchant_transaction_id: p for p in payments}
        for payment in payments:
            if payment.state == PaymentState.IN_FLIGHT:
                assert payment.response_body == {} and payment.in_flight_since is not None
            else:
                assert payment.state == PaymentState.DONE, payment.state
                assert payment.response_body["result"]["code"] == payment.result_code
                assert payment.in_flight_since is None
        lost_acks = []
        for answer in answers:
            if answer.status == 200:
                assert by_id[answer.payment_id].result_code == answer.code
                continue
            # A 503: nothing was stored, or the payment waits for the janitor, or the connection
            # dropped between PostgreSQL's commit and its acknowledgement, so the whole payment
            # is stored; no server can tell the last case apart, and the client's retry with
            # the same merchantTransactionId replays what was stored (below).
            stored = by_mtid.get(answer.mtid)
            if stored is not None and stored.state == PaymentState.DONE:
                lost_acks.append((stored, answer.request))
            else:
                assert stored is None or stored.state == PaymentState.IN_FLIGHT, stored
        assert len(lost_acks) <= len(loads), lost_acks  # at most one commit per client at the cut
        in_flight = payments.filter(state=PaymentState.IN_FLIGHT)
        assert {by_mtid[m].pk for m in mtids} <= set(in_flight.values_list("pk", flat=True))
        original = Payment.objects.get(pk=preauthorization.payment_id)
        cps = list(payments.filter(referenced=original))
        assert original.captured_amount == sum(
            (p.amount for p in cps if p.state == PaymentState.DONE and p.successful), Decimal(0)
        )
        assert original.capturing_amount == sum(
            (p.amount for p in cps if p.state == PaymentState.IN_FLIGHT), Decimal(0)
        )

        for stored, (path, fields) in lost_acks:  # the retry of an unacknowledged commit
            retry = send(server.port, merchant, path, fields)
            assert (retry.status, retry.code, retry.payment_id) == (
                200,
                stored.result_code,
                stored.pk,
            )

        # A retry of a slow debit: in progress, the network not asked again.
        for body in slow:
            retry = send(server.port, merchant, PATH, body)
            assert (retry.status, retry.code) == (200, IN_PROGRESS)
        waiting = in_flight.count()
        resolution = payment_resolve_in_flight(older_than=timedelta(0))
        assert (resolution.resolved, resolution.reversed, resolution.skipped) == (waiting, 0, 0)
        assert not payments.filter(state=PaymentState.IN_FLIGHT).exists()
        original.refresh_from_db()
        assert original.capturing_amount == 0
        assert original.captured_amount == sum(
            (p.amount for p in payments.filter(referenced=original, successful=True)), Decimal(0)
        )
        for body in slow:
            replay = send(server.port, merchant, PATH, body)
            assert ok(replay) and replay.payment_id == by_mtid[body["merchantTransactionId"]].pk
        authorized = network_log.read_text().split()
        assert all(authorized.count(by_mtid[m].pk) == 1 for m in mtids)  # asked once

    during = [a for a in answers if cut_at <= a.sent < restored_at]
    after = [a for a in answers if a.sent >= restored_at and ok(a)]
    resumed = min(a.answered for a in after) - restored_at
    print(
        f"\ndatabase cut {restored_at - cut_at:.1f} s under 3 clients and 2 debits at the network: "
        f"{sum(map(refused, during))} x 503 800.800.800, {sum(map(ok, during))} x 200 sent during "
        f"the cut; {len(answers)} answers in all ({dict(seen)}), 0 without the envelope; "
        f"{proxy.dropped} connections dropped, {proxy.refused} refused; {len(lost_acks)} commits "
        f"whose acknowledgement the cut lost (replayed on retry); first approval "
        f"{resumed:.2f} s after the restore; {waiting} payments in flight resolved by the "
        f"janitor ({resolution})"
    )
