"""A cluster on one machine loses a web node, a Celery worker and PgBouncer under load (issue 36).

bench/_cluster.py starts, on loopback ports of their own: the ISO 8583 network host, PgBouncer
in transaction mode (Debian's 1.18) in front of the test database, two web nodes (gunicorn, the
production conf, two processes each, `DB_TRANSACTION_POOLING=true`: nothing prepared), HAProxy
running deploy/haproxy/haproxy.cfg in front of them, two Celery workers and one beat (the leader
lease scheduler) on a Redis of the test's own. Clients go through HAProxy only.

1. Four clients pay (debits, captures on a preauthorization each, refunds of their debits) and
   one deactivates tokens (each a notification to the merchant) without a pause. One web node is
   killed (SIGKILL to its whole process group) mid-burst, then one Celery worker. HAProxy takes
   the dead node out by its /healthz check; what it answers of its own (a request the node died
   holding) is the JSON envelope, 800.800.800 with Retry-After.
2. The clients retry whatever got no final answer with the same merchantTransactionId; the
   janitor is sent as beat sends it. Afterwards every payment is final and counted once, each
   answer the same as stored; every notification is acknowledged once (DELIVERED, one 200
   attempt) and received, a duplicate only with the same event id; the merchant's report
   (getReport, through HAProxy) has exactly the approved payments, and its totals are the
   network host's own log's.
3. The killed node is started again and HAProxy takes it back. PgBouncer is stopped mid-burst
   (its immediate shutdown: every connection dropped) and started again: meanwhile every answer
   is 503 800.800.800 with Retry-After, nothing is half-written, and service comes back without
   restarting a node (the same gunicorn processes).

Figures printed (`-s`) and kept in docs/operations.md, "A cluster on one machine".
"""

import http.client
import json
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.db import connection
from stdnum import luhn

from bench._cluster import HAProxy, cluster, kill_group, missing_components
from bench._server import gunicorn
from core.models import DeliveryAttempt, OutboxMessage, OutboxStatus
from payments.models import Payment, PaymentState, ReversalAdvice
from tests.conftest import url_of_test_database
from tests.core.workers import LOOPBACK_RECEIVERS, Receiver
from tests.factories import MerchantFactory
from tests.faults.tools import (
    Answer,
    RedisServer,
    closing_all,
    database_address,
    debit,
    redis_server_or_skip,
    send,
    send_task,
    wait_until,
)
from tests.payments.conftest import VISA, card
from tokenization.models import Token

pytestmark = [pytest.mark.postgres, pytest.mark.long, pytest.mark.django_db(transaction=True)]
PAY = "/pay/v3/payments"
APPROVED, IN_PROGRESS, UNAVAILABLE = "000.000.000", "000.200.100", "800.800.800"
TIMED_OUT = "900.100.300"
CLIENTS, TOKENS = 4, 16
AMOUNTS = {"DB": Decimal("10.00"), "CP": Decimal("1.00"), "RF": Decimal("2.00")}
REPORTED_AS = {"purchase": "DB", "capture": "CP", "refund": "RF"}
LINK_TIMEOUT_S = 3  # PAYMENTS_CONNECTOR_TIMEOUT_SECONDS: the janitor takes older payments in flight


@pytest.fixture(autouse=True)
def _a_cluster_can_run():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the nodes share the test database")
    if missing := missing_components():
        pytest.skip(f"needs Debian's {' and '.join(missing)} (.ci/run installs them)")
    redis_server_or_skip()


def visa(n: int) -> str:
    body = f"4200002{n:08d}"
    return body + luhn.calc_check_digit(body)


def final(answer: Answer) -> bool:
    return answer.status == 200 and answer.code != IN_PROGRESS


def settled(answer: Answer) -> bool:
    """Final, and not the janitor's timed-out answer of a moment: an authorization it booked
    900.100.300 answers 900.100.301 once its reversal is approved, right after."""
    return final(answer) and answer.code != TIMED_OUT


class Burst:
    """CLIENTS threads paying and one deactivating tokens through HAProxy until `stop()`. Each
    payment thread makes debits, a capture of 1.00 on its own preauthorization every fourth
    request, and a refund of 2.00 of one of its approved debits every fourth."""

    def __init__(self, port: int, merchant, preauthorizations: list[str], tokens: list[str]):  # type: ignore[no-untyped-def]
        self.port, self.merchant = port, merchant
        self.answers: list[Answer] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._tokens = list(tokens)
        self._threads = [
            threading.Thread(target=self._pay, args=(pa,), daemon=True) for pa in preauthorizations
        ] + [threading.Thread(target=self._deactivate, daemon=True)]

    def start(self) -> "Burst":
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def _record(self, answer: Answer) -> Answer:
        with self._lock:
            self.answers.append(answer)
        return answer

    def _pay(self, preauthorization: str) -> None:
        approved: list[str] = []
        n = 0
        while not self._stop.is_set():
            n += 1
            mtid = uuid.uuid4().hex
            if n % 4 == 1:
                path = f"{PAY}/{preauthorization}"
                fields = {"paymentType": "CP", "amount": "1.00", "currency": "EUR"}
            elif n % 4 == 3 and approved:
                path = f"{PAY}/{approved.pop(0)}"
                fields = {"paymentType": "RF", "amount": "2.00", "currency": "EUR"}
            else:
                path, fields = PAY, debit()
            answer = self._record(
                send(self.port, self.merchant, path, {**fields, "merchantTransactionId": mtid})
            )
            if path == PAY and (answer.status, answer.code) == (200, APPROVED):
                approved.append(answer.payment_id)

    def _deactivate(self) -> None:
        while self._tokens and not self._stop.wait(0.15):
            reference = self._tokens.pop(0)
            fields = {
                "token.Type": "DT",
                "tokenUniqueReferences": reference,
                "causedBy": "CARDHOLDER",
                "merchantTransactionId": uuid.uuid4().hex,
            }
            self._record(send(self.port, self.merchant, "/pay/v3/tokenize", fields))

    def snapshot(self) -> list[Answer]:
        with self._lock:
            return list(self.answers)


def settle_answers(port: int, merchant, answers: list[Answer], queue: str, broker: str):  # type: ignore[no-untyped-def]
    """Retry each request that got no final answer, with its own merchantTransactionId, as a
    client does after a 5xx or "in progress"; the janitor is sent as beat sends it once the
    payments in flight are old enough. Returns the final answer of every request, by mtid."""
    last: dict[str, Answer] = {}
    for answer in answers:
        last[answer.mtid] = answer
    janitor_sent = 0.0
    deadline = time.monotonic() + 60
    while pending := [a for a in last.values() if not settled(a)]:
        assert time.monotonic() < deadline, f"never final: {pending[:3]}"
        if any(a.code == IN_PROGRESS for a in pending) and time.monotonic() > janitor_sent + 5:
            if not janitor_sent:
                time.sleep(LINK_TIMEOUT_S + 0.5)  # until what is in flight is the janitor's
            send_task(broker, queue, "payments.resolve_in_flight")
            janitor_sent = time.monotonic()
        for answer in pending:
            path, fields = answer.request
            last[answer.mtid] = send(port, merchant, path, fields)
        time.sleep(0.2)
    return last


def network_log(path: Path) -> Counter[tuple[str, str]]:
    """What the network host was asked, as its log has it: ("authorize", id) for a DB or PA,
    (CP, RF or RV, id) for a follow-up; how many times each."""
    asked: Counter[tuple[str, str]] = Counter()
    for line in path.read_text().splitlines():
        words = line.split()  # "authorize <id>", "follow-up CP <id>"
        asked[("authorize" if words[0] == "authorize" else words[1], words[-1])] += 1
    return asked


def payment_answers(answers: dict[str, Answer]) -> dict[str, Answer]:
    return {m: a for m, a in answers.items() if a.request[0].startswith(PAY)}


def report_rows(port: int, merchant) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    """The merchant's transaction report of today (getReport, through HAProxy), every page."""
    rows: list[dict[str, str]] = []
    page = 1
    while True:
        fields = {
            "reportType": "transaction",
            "date": datetime.now(UTC).strftime("%Y%m%d"),
            "merchantId": merchant.merchant_id,
            "page": str(page),
            "pageSize": "1000",
        }
        body = {"entityId": merchant.entity.entity_id, "entityType": "MERCHANT", **fields}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request(
            "POST",
            "/merch-web/download/getReport",
            body=urlencode(body),
            headers={
                "Authorization": f"Bearer {merchant.entity.plain_token}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        data = json.loads(conn.getresponse().read())
        conn.close()
        assert data["result"]["code"].startswith("000."), data
        rows += data.get("records", [])
        if len(rows) >= int(data["totalRecords"]):
            return rows
        page += 1


def unavailable_answer(port: int) -> tuple[int, str, str]:
    """A request sent by hand, to read its answer's headers: (status, code, Retry-After). An
    inquiry whose token is never checked: the database, or a node, is missing before that. The
    body must be the whole envelope."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/pay/v3/payments/0", headers={"Authorization": "Bearer x"})
        response = conn.getresponse()
        body = json.loads(response.read())
        assert {"id", "result", "buildNumber", "timestamp", "ndc"} <= set(body), body
        return response.status, body["result"]["code"], response.getheader("Retry-After") or ""
    finally:
        conn.close()


def test_the_cluster_loses_a_node_a_worker_and_pgbouncer(tmp_path: Path, server_keys):
    receiver = Receiver()
    merchant = MerchantFactory(notification_url=receiver.url)
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    queue = f"cluster-{uuid.uuid4().hex[:8]}"
    host_log = tmp_path / "network-host-payments.log"
    host_log.touch()
    env = {
        **server_keys,
        **LOOPBACK_RECEIVERS,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "NOTIFICATION_SWEEP_SECONDS": "2",
        "NOTIFICATION_LEASE_SECONDS": "3",
        "PAYMENTS_CONNECTOR_TIMEOUT_SECONDS": str(LINK_TIMEOUT_S),
        "BEAT_LEASE_SECONDS": "6",
        "PAYMENTS_ADVICE_SWEEP_SECONDS": "2",
    }
    with (
        closing_all(receiver.close, redis.stop),
        cluster(
            upstream=database_address(),
            database=settings.DATABASES["default"]["NAME"],
            logs=tmp_path,
            nodes=2,
            workers_per_node=2,
            redis_url=redis.url,
            celery_workers=2,
            beat=True,
            env=env,
            network_env={"PAYMENTS_SIMULATOR_LOG": str(host_log)},
        ) as nodes,
    ):
        haproxy = nodes.haproxy
        assert haproxy is not None
        port = nodes.port

        preauthorizations = []
        for _ in range(CLIENTS):
            pa = send(port, merchant, PAY, {**debit(amount="1000.00"), "paymentType": "PA"})
            assert (pa.status, pa.code) == (200, APPROVED), pa
            preauthorizations.append(pa.payment_id)
        for n in range(TOKENS):
            made = send(
                port, merchant, "/pay/v3/tokenize",
                {"token.Type": "CT", "merchantTransactionId": uuid.uuid4().hex, **card(visa(n))},
            )  # fmt: skip
            assert (made.status, made.code) == (200, "000.000.100"), made
        tokens = list(Token.objects.filter(merchant=merchant).values_list("pk", flat=True))
        assert len(tokens) == TOKENS

        # --- 1. a web node, then a worker, killed mid-burst ---------------------------------
        burst = Burst(port, merchant, preauthorizations, tokens).start()
        wait_until(lambda: len(burst.snapshot()) >= 60, "the burst under way")
        killed_at = time.monotonic()
        kill_group(nodes.nodes[0].process)
        taken_out = wait_until(lambda: haproxy.up() == ["web2"], "HAProxy taking web1 out")
        wait_until(lambda: len(burst.snapshot()) >= 200, "more of the burst on web2")
        kill_group(nodes.workers[0])
        worker_killed_at = time.monotonic()
        time.sleep(1.5)
        burst.stop()
        # HAProxy's log: nothing sent to the dead node once it was out, and web2 took the rest
        # (a request refused by web1 before that was sent again to web2: "+1" retries).
        after_down = haproxy.log.read_text().rsplit("Server web/web1 is DOWN", 1)[1]
        assert " platform web/web1 " not in after_down
        carried = after_down.count(" platform web/web2 ")
        redispatched = haproxy.log.read_text().count("/+1 ")

        answers = burst.snapshot()
        assert all(a.json for a in answers), [a for a in answers if not a.json][:3]
        statuses = Counter((a.status, a.code) for a in answers if not final(a))
        assert set(statuses) <= {(502, UNAVAILABLE), (503, UNAVAILABLE), (200, IN_PROGRESS)}, (
            statuses
        )
        settled = settle_answers(port, merchant, answers, queue, redis.url)
        payments_sent = payment_answers(settled)
        stored = {p.merchant_transaction_id: p for p in Payment.objects.filter(merchant=merchant)}
        # Every payment final and counted once, as answered.
        assert set(payments_sent) <= set(stored)
        janitor = {m for m, p in stored.items() if p.payment_type == "RV"}  # its reversals
        assert len(stored) - len(janitor) == len(payments_sent) + CLIENTS  # and the PAs
        assert not Payment.objects.exclude(state=PaymentState.DONE).exists()
        for mtid, answer in payments_sent.items():
            assert (answer.code, answer.payment_id) == (
                stored[mtid].result_code,
                stored[mtid].pk,
            ), mtid
        for pa in Payment.objects.filter(pk__in=preauthorizations):
            captured = Payment.objects.filter(referenced=pa, payment_type="CP", successful=True)
            assert pa.captured_amount == sum((c.amount for c in captured), Decimal(0))
            assert pa.capturing_amount == 0

        # Every notification acknowledged once, none lost.
        wait_until(
            lambda: not OutboxMessage.objects.exclude(status=OutboxStatus.DELIVERED).exists(),
            "every notification delivered",
            timeout=60,
        )
        messages = set(OutboxMessage.objects.values_list("pk", flat=True))
        received = Counter(r["body"]["eventId"] for r in receiver.requests)
        assert set(received) == messages
        acknowledged = Counter(
            DeliveryAttempt.objects.filter(http_status=200).values_list("message_id", flat=True)
        )
        assert set(acknowledged.values()) == {1} and set(acknowledged) == messages
        duplicates = sum(count - 1 for count in received.values())

        # The report's totals are the network's, once the network has been told of every
        # reversal the janitor made on its own word (an advice, sent until acknowledged).
        wait_until(
            lambda: not ReversalAdvice.objects.filter(state=ReversalAdvice.State.OWED).exists(),
            "every reversal advice acknowledged",
        )
        asked = network_log(host_log)
        assert set(asked.values()) == {1}  # the network asked once about each
        reversed_originals = set(
            Payment.objects.filter(pk__in=[ref for kind, ref in asked if kind == "RV"]).values_list(
                "referenced_id", flat=True
            )
        )
        net = {(kind, ref) for kind, ref in asked if kind != "RV" and ref not in reversed_originals}
        for ref in preauthorizations:
            net.discard(("authorize", ref))  # made before the burst, reported as authorization
        reported = [
            r
            for r in report_rows(port, merchant)
            if r["transStatus"] == "Succeed" and r["backendTransId"] not in preauthorizations
            and r["transactionType"] in REPORTED_AS
        ]  # fmt: skip
        missing = {ref for _, ref in net} - {r["backendTransId"] for r in reported}
        assert not missing, list(
            Payment.objects.filter(pk__in=missing).values_list(
                "pk", "payment_type", "state", "result_code", "created_at", "in_flight_since"
            )
        )
        assert {r["backendTransId"] for r in reported} == {ref for _, ref in net}
        for kind, network_kind in (("DB", "authorize"), ("CP", "CP"), ("RF", "RF")):
            total = sum(
                (Decimal(r["transAmount"]) for r in reported
                 if REPORTED_AS[r["transactionType"]] == kind),
                Decimal(0),
            )  # fmt: skip
            assert total == AMOUNTS[kind] * sum(1 for k, _ in net if k == network_kind), kind
        approved_total = sum((Decimal(r["transAmount"]) for r in reported), Decimal(0))
        first_results = Counter("approved" if final(a) else f"{a.status} {a.code}" for a in answers)

        # --- 2. the dead node back, then PgBouncer restarted mid-burst ---------------------
        nodes.restart(nodes.nodes[0], workers=2)
        rejoined = wait_until(lambda: haproxy.up() == ["web1", "web2"], "HAProxy taking web1 back")
        pids = sorted(nodes.web_pids())
        burst = Burst(port, merchant, preauthorizations, []).start()
        wait_until(lambda: len(burst.snapshot()) >= 40, "the second burst under way")
        nodes.pgbouncer.stop()
        down_at = time.monotonic()
        during = unavailable_answer(port)
        wait_until(
            lambda: (
                sum(a.code == UNAVAILABLE for a in burst.snapshot() if a.sent >= down_at) >= CLIENTS
            ),
            "every client refused",
        )
        nodes.pgbouncer.start()
        up_at = time.monotonic()
        wait_until(
            lambda: any(a.sent >= up_at and final(a) for a in burst.snapshot()), "service back"
        )
        back_after = min(a.answered for a in burst.snapshot() if a.sent >= up_at and final(a))
        time.sleep(1)
        burst.stop()
        assert sorted(nodes.web_pids()) == pids  # no node restarted
        assert haproxy.up() == ["web1", "web2"]  # and none taken out: /healthz, not /readyz

        answers2 = burst.snapshot()
        # HAProxy's own answer with no node to send to: the envelope, as a node's 503.
        for node in ("web1", "web2"):
            haproxy.command(f"disable server web/{node}")
        no_node = unavailable_answer(port)
        for node in ("web1", "web2"):
            haproxy.command(f"enable server web/{node}")
        assert no_node == (503, UNAVAILABLE, "1")
        assert during[:2] == (503, UNAVAILABLE) and int(during[2]) > 0  # with Retry-After
        assert all(a.json for a in answers2)
        outage = [a for a in answers2 if down_at <= a.sent < up_at]
        assert {(a.status, a.code) for a in outage if not final(a)} <= {
            (503, UNAVAILABLE),
            (200, IN_PROGRESS),
        }
        settled2 = settle_answers(port, merchant, answers2, queue, redis.url)
        sent2 = payment_answers(settled2)
        stored = {p.merchant_transaction_id: p for p in Payment.objects.filter(merchant=merchant)}
        assert set(sent2) <= set(stored)
        janitor = {m for m, p in stored.items() if p.payment_type == "RV"}  # its reversals
        assert len(stored) - len(janitor) == len(payments_sent) + len(sent2) + CLIENTS
        assert not Payment.objects.exclude(state=PaymentState.DONE).exists()
        for mtid, answer in sent2.items():
            assert (answer.code, answer.payment_id) == (stored[mtid].result_code, stored[mtid].pk)
        for pa in Payment.objects.filter(pk__in=preauthorizations):
            captured = Payment.objects.filter(referenced=pa, payment_type="CP", successful=True)
            assert pa.captured_amount == sum((c.amount for c in captured), Decimal(0))
            assert (pa.capturing_amount, pa.refunding_amount) == (0, 0)
        for refunded in Payment.objects.filter(merchant=merchant, payment_type="DB"):
            refunds = Payment.objects.filter(
                referenced=refunded, payment_type="RF", successful=True
            )
            assert refunded.refunded_amount == sum((r.amount for r in refunds), Decimal(0))

    print(
        f"\ncluster: {len(answers)} requests in the first burst ({dict(first_results)}); web1 "
        f"killed, out of HAProxy {taken_out:.2f} s later, web2 carried the {carried} requests "
        f"after it ({redispatched} sent to web1 meanwhile were refused by it and redispatched); "
        f"worker1 killed {worker_killed_at - killed_at:.1f} s after web1; "
        f"{len(payments_sent)} payments final and counted once, {len(messages)} notifications "
        f"acknowledged once ({duplicates} duplicate deliveries, same event id); report = network "
        f"log ({len(reported)} approved, {approved_total} EUR). web1 back in HAProxy "
        f"{rejoined:.2f} s after it answered /healthz. PgBouncer down {up_at - down_at:.1f} s: "
        f"{sum(a.code == UNAVAILABLE for a in outage)} x 503 800.800.800 (Retry-After "
        f"{during[2]}), first "
        f"approval {back_after - up_at:.2f} s after it came back, the same {len(pids)} gunicorn "
        f"processes; {len(sent2)} payments of the second burst final and counted once"
    )


def test_haproxy_takes_a_node_with_the_production_settings(tmp_path: Path, server_keys):
    """The check is sent as a client's request is: with the site's host name (HAPROXY_CHECK_HOST)
    and X-Forwarded-Proto https, a node with the production settings (DJANGO_ALLOWED_HOSTS of
    the site only, DJANGO_BEHIND_TLS_PROXY) answers it 200 and is taken in (sent as 127.0.0.1
    over plain HTTP, it was refused: 400, then 301 to https, and every node was out). A client's
    X-Forwarded-Proto is replaced by what HAProxy saw: plain HTTP is sent to https. What HAProxy
    refuses itself (a body too large, /metrics) is answered with the envelope too, and a card
    number in a request line is masked in its log."""
    env = {
        **server_keys,
        "DJANGO_ALLOWED_HOSTS": "pay.example.com",
        "DJANGO_BEHIND_TLS_PROXY": "true",
    }
    with gunicorn(
        database_url=url_of_test_database(),
        workers=1,
        log_path=tmp_path / "gunicorn.log",
        env=env,
        health_host="pay.example.com",
    ) as node:
        proxy = HAProxy([node.port, node.port], tmp_path / "haproxy.log", "pay.example.com")
        with closing_all(proxy.close):
            proxy.start()
            wait_until(lambda: proxy.up() == ["web1", "web2"], "HAProxy taking the node in")
            site = {"Host": "pay.example.com"}
            status, headers, _ = ask(
                proxy.port, "GET", "/healthz", {**site, "X-Forwarded-Proto": "https"}
            )
            assert status == 301  # the client said https, HAProxy saw plain HTTP
            assert headers["Location"] == "https://pay.example.com/healthz"
            # A body too large for the nodes is refused here, with the envelope.
            status, _, body = ask(
                proxy.port, "POST", "/pay/v3/payments", {**site, "Content-Length": "2097152"}
            )
            assert (status, json.loads(body)["result"]["code"]) == (413, "200.100.101")
            # /metrics does not exist here: it is scraped on the nodes' own addresses.
            status, _, body = ask(proxy.port, "GET", "/metrics", site)
            assert (status, json.loads(body)["result"]["code"]) == (404, "700.100.199")
            # A card number in the path or the query is masked in HAProxy's log.
            ask(proxy.port, "GET", f"/pay/v3/payments/{VISA}?card.number={VISA}", site)
            masked = "420000******0000?card.number=420000******0000"
            wait_until(lambda: masked in proxy.log.read_text(), "the request in HAProxy's log")
            assert VISA not in proxy.log.read_text()


def ask(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, Any, bytes]:
    """One request with exactly these headers (no body sent): status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()
