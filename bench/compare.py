"""The platform's hot paths beside minimal references, in one sitting (issue 21).

    .venv/bin/python bench/compare.py --pairs payment,token,jwe,purchase,onus --rounds 3 \\
        --duration 15 --workers 2 --concurrency 4

Each pair is the platform's path (A) and a reference for the same work (B), each served by
gunicorn with config/gunicorn.conf.py (sync workers, preload, access log off), on the same
PostgreSQL server, driven by the same Python load generator (keep-alive http.client threads in
this process). Rounds alternate A B A B ...; every round has its warm-up, then its measured
window, in which the CPU of each party is read from /proc.

- payment:  DB payments (`POST /pay/v3/payments`, simulator card) vs the reference's DRF view
            that validates four fields and INSERTs one row (`POST /pay`), same form body;
- token:    `POST /oauth2/token` (client credentials, a fresh ES256 client assertion each) vs the
            reference's PyJWT view (verify, INSERT the jti, sign an ES256 access token);
- jwe:      one JWE round trip through the issuer API (`transaction/BalanceInquiry`, or
            --jwe-operation OOBResultInquiry) vs the reference's jwcrypto view (bearer JWT,
            RSA-OAEP-256/A128GCM request decrypted, answer encrypted);
- purchase: issuer `transaction/Purchase` through the JWE API, alone (no reference: absolute
            throughput and statements per request);
- onus:     DB payments on the platform's own issuer cards (on-us) vs DB payments on the
            simulator's test card, both on the platform.

The references live in bench/reference/ (a tiny Django project, its own database, by default
`reference_bh`). Before the load, the statements each path runs are counted in-process
(CaptureQueriesContext), and the reference views are checked (bench/reference/selfcheck.py).
Prints a table (throughput ratio A/B per round and its median, p50/p99, CPU ms per request of
the server and of PostgreSQL, statements per request) and writes
bench/results/compare-<timestamp>.json. See "compare.py: the project beside its references" in
bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

# Run as a script, bench/ is first on sys.path and "payments" would name the bench script, not
# the Django app: the project root goes first instead.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench import _load, _server  # noqa: E402 - after the sys.path fix above
from bench import issuer as issuer_bench  # noqa: E402
from bench import payments as payments_bench  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cardplatform_bench_bh"
DEFAULT_REFERENCE_URL = "postgres://postgres@127.0.0.1:5432/reference_bh"
REFERENCE_KEYS_FILE = _server.RESULTS_DIR / "reference-keys.json"
PAIR_NAMES = ("payment", "token", "jwe", "purchase", "onus")
JWE_OPERATIONS = {  # operation: (scope, expected result.code)
    "BalanceInquiry": ("TRANSACTION", "000.000.100"),
    "OOBResultInquiry": ("CHECK_OOB", "000.000.100"),
}
PAYMENT_SUCCESS = "000.000.000"
REQUEST_POOL = 64  # distinct JWE requests reused round robin (jwe pair: nothing single-use)
ASSERTION_LIFETIME_S = 290  # the platform accepts at most 300 s between iat and exp
HEALTH_TIMEOUT_S = 60.0


# --- the ratio math -----------------------------------------------------------------------------


def ratio(a: float, b: float) -> float | None:
    """A / B, or None when B did nothing."""
    return round(a / b, 3) if b > 0 else None


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 3) if present else None


def side_summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over a side's rounds (and the sums of requests and errors)."""

    def med(key: str, group: str | None = None) -> float | None:
        return median([(r[group] if group else r).get(key) for r in rounds])

    return {
        "rounds": len(rounds),
        "requests": sum(r["requests"] for r in rounds),
        "errors": sum(r["errors"] for r in rounds),
        "throughput_per_s": med("throughput_per_s"),
        "p50_ms": med("p50_ms"),
        "p99_ms": med("p99_ms"),
        "server_cpu_ms": med("server", "cpu_ms_per_request"),
        "postgres_cpu_ms": med("postgres", "cpu_ms_per_request"),
        "client_cpu_ms": med("client", "cpu_ms_per_request"),
    }


def pair_summary(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    """Each round's throughput ratio A/B (round i of A against round i of B, measured next to
    each other), their median and spread, and each side's medians."""
    ratios = [
        ratio(x["throughput_per_s"], y["throughput_per_s"]) for x, y in zip(a, b, strict=False)
    ]
    present = [r for r in ratios if r is not None]
    return {
        "ratios": ratios,
        "ratio_median": median(ratios),
        "ratio_min": min(present) if present else None,
        "ratio_max": max(present) if present else None,
        "a": side_summary(a),
        "b": side_summary(b) if b else None,
    }


# --- servers and PostgreSQL ---------------------------------------------------------------------


def database_name(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        # As gunicorn binds: connections of an earlier run left in TIME_WAIT do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class Running:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    database_url: str


def start_server(
    name: str,
    *,
    port: int,
    database_url: str,
    workers: int,
    env: dict[str, str],
    app: str,
    log: Path,
) -> Running:
    if not port_free(port):
        raise RuntimeError(f"port {port} is in use: pass another --port")
    process = _server.start_gunicorn(
        database_url=database_url, workers=workers, port=port, log_path=log, env=env, app=app
    )
    try:
        _server.wait_healthy(port, process, HEALTH_TIMEOUT_S)
    except RuntimeError as exc:
        _server.stop_process(process)
        raise RuntimeError(f"{name}: {exc}\n{log.read_text()[-3000:]}") from None
    print(f"{name}: gunicorn pid {process.pid} on 127.0.0.1:{port}, {workers} workers; log {log}")
    return Running(name, port, process, database_url)


class CpuSampler:
    """CPU seconds of one side's processes over the measured window, read from /proc every
    SAMPLE_S: the side's gunicorn master and workers, and its PostgreSQL processes (the backends
    connected to its database, the server's background processes such as the WAL writer and
    the checkpointer, and the postmaster); other databases' backends (other people's tests on a
    shared machine) are left out.

    Sampling, rather than a snapshot at each end, keeps what a process spent before it ended
    inside the window: gunicorn restarts each worker after max_requests (config/gunicorn.conf.py,
    about 10,000 requests: several times a round at reference speeds), and its PostgreSQL
    backend ends with it. A process that starts in the window counts from zero."""

    SAMPLE_S = 0.25

    def __init__(self, master_pid: int, database_url: str) -> None:
        import psycopg

        self.master = master_pid
        params = payments_bench._pg_params(database_url)
        self.database = params.pop("dbname")
        # One connection for the window (to the maintenance database, so not counted as ours).
        self.conn = psycopg.connect(dbname="postgres", connect_timeout=5, **params)
        self.conn.autocommit = True
        self.first: dict[str, dict[int, float]] = {"server": {}, "postgres": {}}
        self.last: dict[str, dict[int, float]] = {"server": {}, "postgres": {}}
        self.samples = 0

    def postgres_pids(self) -> set[int]:
        with self.conn.cursor() as cur:
            cur.execute(
                "SELECT pid, datname, backend_type FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid()"
            )
            rows = cur.fetchall()
        ours = {
            pid
            for pid, datname, kind in rows
            if datname == self.database
            or (datname is None and kind not in ("client backend", "autovacuum worker"))
        }
        for pid in list(ours)[:1]:  # the postmaster: the parent of every backend
            stat = payments_bench._proc_stat(pid)
            if stat is not None:
                ours.add(stat[0])
        return ours

    def sample(self) -> None:
        groups = {
            "server": {self.master, *_server.worker_pids(self.master)},
            "postgres": self.postgres_pids(),
        }
        for group, pids in groups.items():
            for pid in pids:
                stat = payments_bench._proc_stat(pid)
                if stat is None:
                    continue
                if pid not in self.first[group]:
                    # Present at the first sample: its baseline; born later: from zero.
                    self.first[group][pid] = stat[2] if self.samples == 0 else 0.0
                self.last[group][pid] = stat[2]
        self.samples += 1

    def run_until(self, end_at: float) -> None:
        """Sample now and every SAMPLE_S until `end_at`, then a last time."""
        while True:
            self.sample()
            left = end_at - time.time()
            if left <= 0:
                break
            time.sleep(min(self.SAMPLE_S, left))
        self.sample()
        self.conn.close()

    def seconds(self, group: str) -> float:
        return sum(v - self.first[group][pid] for pid, v in self.last[group].items())

    def workers_seen(self) -> int:
        return len(self.first["server"]) - 1


# --- the load generator -------------------------------------------------------------------------


Check = Callable[[int, str, bytes, int], str | None]  # (status, media, body, n) -> error or None


@dataclass
class Side:
    """One side of a pair for one round: where to post what, and how to tell success."""

    label: str
    server: Running
    path: str
    headers: dict[str, str]
    bodies: list[Iterator[str]]  # one source per client; a finite one may run out
    check: Check
    statements: dict[str, Any] | None = None


class Loader(_load.KeepAliveClient):
    """One client thread of a round (bench/_load.py's keep-alive client)."""

    def __init__(self, side: Side, source: Iterator[str]) -> None:
        super().__init__(side.server.port)
        self.side, self.source = side, source
        self.lat: list[float] = []
        self.exhausted = False

    def run(self, measure_at: float, end_at: float, stop: threading.Event) -> None:
        for count in itertools.count():
            now = time.time()
            if now >= end_at or stop.is_set():
                break
            body = next(self.source, None)
            if body is None:
                self.exhausted = True
                break
            record = now >= measure_at
            started = time.perf_counter()
            try:
                status, media, data = self.post(self.side.path, body, self.side.headers)
            except (OSError, http.client.HTTPException) as exc:
                self.error(record, repr(exc))
                continue
            elapsed_ms = (time.perf_counter() - started) * 1000
            problem = self.side.check(status, media, data, count)
            if problem is not None:
                self.error(record, problem)
            elif record:
                self.lat.append(elapsed_ms)
        self.close()


def run_round(side: Side, *, warmup: float, duration: float) -> dict[str, Any]:
    """Warm-up, then the measured window: latencies of the requests started in it, the CPU of
    the side's gunicorn (master + workers), of its PostgreSQL processes and of this process."""
    loaders = [Loader(side, source) for source in side.bodies]
    stop = threading.Event()
    start_at = time.time() + 0.2
    measure_at, end_at = start_at + warmup, start_at + warmup + duration

    def body(loader: Loader) -> None:
        time.sleep(max(0.0, start_at - time.time()))
        try:
            loader.run(measure_at, end_at, stop)
        except Exception as exc:  # noqa: BLE001 - reported, never silently lost
            loader.errors += 1
            loader.error_samples.append(f"client crashed: {exc!r}")

    threads = [threading.Thread(target=body, args=(lo,), daemon=True) for lo in loaders]
    try:
        for thread in threads:
            thread.start()
        time.sleep(max(0.0, measure_at - 0.2 - time.time()))
        sampler = CpuSampler(side.server.process.pid, side.server.database_url)
        time.sleep(max(0.0, measure_at - time.time()))
        # Every process of the machine at both ends (the context: other processes, idle, the
        # load generator); the side's own figures from the sampler in between.
        before = payments_bench.cpu_snapshot(side.server.process.pid, [os.getpid()])
        sampler.run_until(end_at)
        after = payments_bench.cpu_snapshot(side.server.process.pid, [os.getpid()])
        load = (
            Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
        )
        for thread in threads:
            thread.join(timeout=max(0.0, end_at - time.time()) + 2 * _load.REQUEST_TIMEOUT_S + 5)
    finally:
        stop.set()
    cpu = payments_bench.cpu_usage(before, after, duration)
    cpu["server"] = round(sampler.seconds("server") / duration, 3)
    cpu["postgres_ours"] = round(sampler.seconds("postgres") / duration, 3)
    cpu["workers_seen"] = sampler.workers_seen()
    every = [v for lo in loaders for v in lo.lat]
    stats = payments_bench.summarize(every)
    errors = sum(lo.errors for lo in loaders)
    outcome: dict[str, Any] = {
        "side": side.label,
        "requests": len(every),
        "throughput_per_s": round(len(every) / duration, 1),
        **{k: v for k, v in stats.items() if k != "count"},
        "errors": errors,
        "error_samples": [s for lo in loaders for s in lo.error_samples][: _load.MAX_ERROR_SAMPLES],
        "clients_out_of_material": sum(1 for lo in loaders if lo.exhausted),
        "connections_opened": sum(lo.connects for lo in loaders),
        "cpu_cores_used": cpu,
        "loadavg": load,
    }
    if every:
        per = duration * 1000 / len(every)
        outcome["cpu_ms_per_request"] = {
            "server": round(cpu["server"] * per, 2),
            "postgres": round(cpu["postgres_ours"] * per, 2),
            "postgres_all": round(cpu["postgres"] * per, 2),
            "client": round(cpu["client"] * per, 2),
        }
    else:
        outcome["cpu_ms_per_request"] = {}
    return outcome


# --- request material (made before each round; the same code for both sides) -------------------


def form_token_bodies(
    ec_key: Any, kid: str, *, client_id: str, audience: str, scope: str, count: int
) -> list[str]:
    """Client-credentials bodies, each with a fresh ES256 client assertion (PyJWT)."""
    import jwt

    now = int(time.time())
    return [
        urlencode(
            {
                "grant_type": "client_credentials",
                "client_id": client_id,
                "scope": scope,
                "client_assertion_type": issuer_bench.ASSERTION_TYPE,
                "client_assertion": jwt.encode(
                    {
                        "iss": client_id,
                        "sub": client_id,
                        "aud": audience,
                        "iat": now,
                        "exp": now + ASSERTION_LIFETIME_S,
                        "jti": uuid.uuid4().hex,
                    },
                    ec_key,
                    algorithm="ES256",
                    headers={"kid": kid, "typ": "JWT"},
                ),
            }
        )
        for _ in range(count)
    ]


def split(items: list[str], parts: int) -> list[Iterator[str]]:
    """Single-use material dealt out to `parts` clients."""
    return [iter(items[i::parts]) for i in range(parts)]


def cycling(items: list[str], parts: int) -> list[Iterator[str]]:
    """Reusable material, each client starting elsewhere in the pool."""
    return [
        itertools.cycle(items[i % len(items) :] + items[: i % len(items)]) for i in range(parts)
    ]


def payment_bodies(base: str, parts: int) -> list[Iterator[str]]:
    def source() -> Iterator[str]:
        while True:
            yield f"{base}&merchantTransactionId={uuid.uuid4().hex}"

    return [source() for _ in range(parts)]


def onus_bodies(bases: list[str], parts: int) -> list[Iterator[str]]:
    def source(start: int) -> Iterator[str]:
        for i in itertools.count(start):
            yield f"{bases[i % len(bases)]}&merchantTransactionId={uuid.uuid4().hex}"

    return [source(i * 7) for i in range(parts)]


def check_payment(status: int, media: str, data: bytes, n: int) -> str | None:
    try:
        code = json.loads(data)["result"]["code"]
    except (ValueError, KeyError, TypeError):
        code = "unparsable"
    if status != 200 or code != PAYMENT_SUCCESS:
        return f"HTTP {status} code {code} {data[:200]!r}"
    return None


def check_token(status: int, media: str, data: bytes, n: int) -> str | None:
    if status != 200 or b'"access_token"' not in data:
        return f"HTTP {status} {data[:200]!r}"
    return None


def check_jwe(rsa_key: Any, expected: str, every: int) -> Check:
    """A 200 JWE answer; every `every`-th is decrypted with the client's key and its result.code
    checked (decrypting all would spend the load generator's CPU on RSA)."""
    from issuer.protocol import jwe

    def check(status: int, media: str, data: bytes, n: int) -> str | None:
        if status != 200:
            return f"HTTP {status} {data[:200]!r}"
        if not media.startswith("application/jose") or not data.startswith(b"eyJ"):
            return f"not a JWE: {media} {data[:100]!r}"
        if n % every == 0:
            _header, answer = jwe.decrypt(data.decode(), lambda kid: rsa_key)
            if answer.get("result", {}).get("code") != expected:
                return f"result {answer.get('result')}"
        return None

    return check


# --- the pairs ----------------------------------------------------------------------------------


@dataclass
class Context:
    args: argparse.Namespace
    seed: dict[str, Any]
    project: Running | None = None
    reference: Running | None = None
    project_statements: dict[str, Any] = field(default_factory=dict)
    reference_statements: dict[str, Any] = field(default_factory=dict)

    def client_keys(self) -> tuple[Any, str, Any]:
        """(EC private key for PyJWT, its kid, RSA private JWK) of the bench requestor."""
        import jwt

        from issuer.protocol.client import split_keys

        ec = next(k for k in self.seed["private_jwks"]["keys"] if k["kty"] == "EC")
        return (
            jwt.PyJWK(ec, algorithm="ES256").key,
            ec["kid"],
            split_keys(self.seed["private_jwks"])[1],
        )

    def material_count(self, rate: int) -> int:
        """Single-use bodies per client for a round at up to `rate` requests per second."""
        a = self.args
        return max(1, int((a.warmup + a.duration + 1) * rate / a.concurrency)) * a.concurrency


def _payment_base(seed: dict[str, Any], card: dict[str, str]) -> str:
    creds = seed["merchant"]
    return urlencode(
        {
            "entityId": creds["entity_id"],
            "entityType": creds["entity_type"],
            "merchant.id": creds["merchant_id"],
            "amount": payments_bench.AMOUNT,
            "currency": "EUR",
            "paymentType": "DB",
            **card,
        }
    )


def _form_headers(token: str = "") -> dict[str, str]:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _post_form(port: int, path: str, body: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("POST", path, body=body, headers=_form_headers())
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def access_token(ctx: Context, server: Running, scope: str) -> str:
    """An access token from the server's token endpoint (the same flow for both sides)."""
    ec, kid, _rsa = ctx.client_keys()
    body = form_token_bodies(
        ec,
        kid,
        client_id=issuer_bench.CLIENT_ID,
        scope=scope,
        count=1,
        audience=f"http://127.0.0.1:{server.port}/oauth2/token",
    )[0]
    status, data = _post_form(server.port, "/oauth2/token", body)
    if status != 200:
        raise RuntimeError(f"{server.name}: token endpoint answered {status}: {data[:300]!r}")
    return str(json.loads(data)["access_token"])


def issuer_encryption_key(seed: dict[str, Any]) -> tuple[str, Any]:
    from jwcrypto import jwk

    for data in seed["issuer_jwks"]["keys"]:
        if data.get("kty") == "RSA" and data.get("use", "enc") == "enc":
            return str(data["kid"]), jwk.JWK(**data)
    raise RuntimeError("the issuer's JWK set has no RSA encryption key")


def reference_encryption_key() -> tuple[str, Any]:
    from jwcrypto import jwk

    private = json.loads(REFERENCE_KEYS_FILE.read_text())["encryption_key"]
    public = jwk.JWK(**private).export_public(as_dict=True)
    return str(private["kid"]), jwk.JWK(**public)


def jwe_payload(ctx: Context, i: int) -> dict[str, Any]:
    if ctx.args.jwe_operation == "OOBResultInquiry":
        return {"authenticationId": ctx.seed["authentication_id"]}
    cards = ctx.seed["cards"]
    return {"cardReference": cards[i % len(cards)]}


def make_sides(ctx: Context, pair: str) -> list[Side]:
    """The sides of a pair for one round, A first, with fresh material."""
    from issuer.protocol import jwe

    a, seed, n = ctx.args, ctx.seed, ctx.args.concurrency
    project, reference = ctx.project, ctx.reference
    assert project is not None
    ps, rs = ctx.project_statements, ctx.reference_statements
    if pair in ("payment", "onus"):
        simulator = _payment_base(seed, payments_bench.CARD)
        headers = _form_headers(seed["merchant"]["token"])
        if pair == "payment":
            assert reference is not None
            return [
                Side(
                    "project DB payment",
                    project,
                    "/pay/v3/payments",
                    headers,
                    payment_bodies(simulator, n),
                    check_payment,
                    ps.get("payment"),
                ),
                Side(
                    "reference INSERT",
                    reference,
                    "/pay",
                    headers,
                    payment_bodies(simulator, n),
                    check_payment,
                    rs.get("payment"),
                ),
            ]
        onus = [_payment_base(seed, card) for card in seed["onus_cards"]]
        return [
            Side(
                "on-us DB",
                project,
                "/pay/v3/payments",
                headers,
                onus_bodies(onus, n),
                check_payment,
                ps.get("onus"),
            ),
            Side(
                "simulator DB",
                project,
                "/pay/v3/payments",
                headers,
                payment_bodies(simulator, n),
                check_payment,
                ps.get("payment"),
            ),
        ]
    ec, kid, rsa = ctx.client_keys()
    if pair == "token":
        assert reference is not None
        count = ctx.material_count(a.token_rate_cap)
        sides = []
        for label, server, statements in (
            ("project /oauth2/token", project, ps.get("token")),
            ("reference PyJWT", reference, rs.get("token")),
        ):
            bodies = form_token_bodies(
                ec,
                kid,
                client_id=issuer_bench.CLIENT_ID,
                scope="TRANSACTION",
                count=count,
                audience=f"http://127.0.0.1:{server.port}/oauth2/token",
            )
            sides.append(
                Side(
                    label,
                    server,
                    "/oauth2/token",
                    _form_headers(),
                    split(bodies, n),
                    check_token,
                    statements,
                )
            )
        return sides
    if pair == "jwe":
        assert reference is not None
        scope, expected = JWE_OPERATIONS[a.jwe_operation]
        group = "authentication" if a.jwe_operation == "OOBResultInquiry" else "transaction"
        sides = []
        for label, server, path, (key_id, key), statements in (
            (
                f"project {a.jwe_operation}",
                project,
                f"/issuer/v1/{group}/{a.jwe_operation}",
                issuer_encryption_key(seed),
                ps.get("jwe"),
            ),
            ("reference jwcrypto", reference, "/jwe", reference_encryption_key(), rs.get("jwe")),
        ):
            pool = [jwe.encrypt(jwe_payload(ctx, i), key, key_id) for i in range(REQUEST_POOL)]
            headers = {
                "Content-Type": "application/jose",
                "Authorization": f"Bearer {access_token(ctx, server, scope)}",
            }
            sides.append(
                Side(
                    label,
                    server,
                    path,
                    headers,
                    cycling(pool, n),
                    check_jwe(rsa, expected, a.verify_every),
                    statements,
                )
            )
        return sides
    if pair == "purchase":
        key_id, key = issuer_encryption_key(seed)
        cards = seed["cards"]
        pool = [
            jwe.encrypt(
                {
                    "cardReference": cards[i % len(cards)],
                    "requestorReference": uuid.uuid4().hex,
                    "amount": "1.00",
                    "currency": "EUR",
                    "channel": "ECOMMERCE",
                    "merchantName": "Bench Shop",
                },
                key,
                key_id,
            )
            for i in range(ctx.material_count(a.purchase_rate_cap))
        ]
        bearer = access_token(ctx, project, "TRANSACTION")
        headers = {"Content-Type": "application/jose", "Authorization": f"Bearer {bearer}"}
        return [
            Side(
                "project Purchase",
                project,
                "/issuer/v1/transaction/Purchase",
                headers,
                split(pool, n),
                check_jwe(rsa, issuer_bench.PURCHASE_SUCCESS, a.verify_every),
                ps.get("purchase"),
            ),
        ]
    raise ValueError(f"unknown pair {pair!r}")


# --- statements per request (in-process, before the load) --------------------------------------


def count_statements(
    call: Callable[[], tuple[int, bytes]], ok: Callable[[int, bytes], bool]
) -> dict[str, Any]:
    """Run `call` twice (the first warms the per-process caches) and count the second's SQL:
    `statements` as executed (savepoints included), `entries` as the debug cursor lists them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call()
    executed: list[str] = []

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(sql)
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(wrapper):
        status, body = call()
    return {
        "statements": len(executed),
        "entries": len(captured.captured_queries),
        "answered": status,
        "ok": ok(status, body),
    }


def project_statements(ctx: Context, pairs: list[str]) -> dict[str, Any]:
    """The SQL of one request of each path, through Django's test Client in this process. In
    gunicorn add one `SELECT 1` per request (CONN_HEALTH_CHECKS; the test Client skips it)."""
    from django.test import Client

    from issuer.protocol import jwe

    seed, client = ctx.seed, Client()
    ec, kid, rsa = ctx.client_keys()
    form = "application/x-www-form-urlencoded"
    auth = {"HTTP_AUTHORIZATION": f"Bearer {seed['merchant']['token']}"}
    counted: dict[str, Any] = {}

    def pay(base: str) -> Callable[[], tuple[int, bytes]]:
        def call() -> tuple[int, bytes]:
            body = f"{base}&merchantTransactionId={uuid.uuid4().hex}"
            response = client.post("/pay/v3/payments", body, content_type=form, **auth)  # type: ignore[arg-type]
            return response.status_code, response.content

        return call

    def paid(status: int, body: bytes) -> bool:
        return check_payment(status, "", body, 1) is None

    def token_call(scope: str) -> Callable[[], tuple[int, bytes]]:
        from django.conf import settings

        def call() -> tuple[int, bytes]:
            body = form_token_bodies(
                ec,
                kid,
                client_id=issuer_bench.CLIENT_ID,
                scope=scope,
                count=1,
                audience=settings.ISSUER_BASE_URL.rstrip("/") + "/oauth2/token",
            )[0]
            response = client.post("/oauth2/token", body, content_type=form)
            return response.status_code, response.content

        return call

    if "payment" in pairs or "onus" in pairs:
        counted["payment"] = count_statements(pay(_payment_base(seed, payments_bench.CARD)), paid)
    if "onus" in pairs:
        counted["onus"] = count_statements(pay(_payment_base(seed, seed["onus_cards"][0])), paid)
    if "token" in pairs:
        counted["token"] = count_statements(
            token_call("TRANSACTION"), lambda s, b: check_token(s, "", b, 1) is None
        )
    key_id, key = issuer_encryption_key(seed)

    def api(
        path: str, scope: str, payload: Callable[[], dict[str, Any]]
    ) -> Callable[[], tuple[int, bytes]]:
        status, data = token_call(scope)()
        bearer = json.loads(data)["access_token"] if status == 200 else ""

        def call() -> tuple[int, bytes]:
            response = client.post(
                path,
                jwe.encrypt(payload(), key, key_id),
                content_type="application/jose",
                HTTP_AUTHORIZATION=f"Bearer {bearer}",
            )
            return response.status_code, response.content

        return call

    if "jwe" in pairs:
        scope, expected = JWE_OPERATIONS[ctx.args.jwe_operation]
        group = "authentication" if ctx.args.jwe_operation == "OOBResultInquiry" else "transaction"
        check = check_jwe(rsa, expected, 1)
        counted["jwe"] = count_statements(
            api(f"/issuer/v1/{group}/{ctx.args.jwe_operation}", scope, lambda: jwe_payload(ctx, 0)),
            lambda s, b: check(s, "application/jose", b, 0) is None,
        )
    if "purchase" in pairs:
        check = check_jwe(rsa, issuer_bench.PURCHASE_SUCCESS, 1)
        counted["purchase"] = count_statements(
            api(
                "/issuer/v1/transaction/Purchase",
                "TRANSACTION",
                lambda: {
                    "cardReference": seed["cards"][0],
                    "requestorReference": uuid.uuid4().hex,
                    "amount": "1.00",
                    "currency": "EUR",
                    "channel": "ECOMMERCE",
                    "merchantName": "Bench Shop",
                },
            ),
            lambda s, b: check(s, "application/jose", b, 0) is None,
        )
    return counted


# --- setup --------------------------------------------------------------------------------------


def reference_keys(seed: dict[str, Any]) -> None:
    """The reference server's keys (EC P-256, RSA 3072 like the issuer's), made once for the
    bench requestor's public keys; made again when the requestor's keys changed."""
    from bench.reference import keys
    from issuer.protocol.client import public_jwks

    client = public_jwks(seed["private_jwks"])
    if REFERENCE_KEYS_FILE.exists():
        content = json.loads(REFERENCE_KEYS_FILE.read_text())
        if (
            content.get("client_jwks") == client
            and content.get("client_id") == issuer_bench.CLIENT_ID
        ):
            return
    _server.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    keys.write(REFERENCE_KEYS_FILE, keys.make(client, client_id=issuer_bench.CLIENT_ID))


def reference_selfcheck(database_url: str) -> dict[str, Any]:
    """bench/reference/selfcheck.py against the reference's database: migrates it, checks the
    views and counts their statements."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.reference.selfcheck",
            "--database-url",
            database_url,
            "--keys",
            str(REFERENCE_KEYS_FILE),
            "--client-keys",
            str(issuer_bench.REQUESTOR_FILE),
            "--client-id",
            issuer_bench.CLIENT_ID,
        ],
        cwd=_server.ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "LOG_LEVEL": "ERROR"},
    )
    try:
        outcome: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(
            f"reference selfcheck failed:\n{done.stdout}\n{done.stderr[-3000:]}"
        ) from None
    if not outcome.get("ok"):
        raise RuntimeError(f"reference selfcheck failed: {json.dumps(outcome['checks'], indent=2)}")
    return outcome


def prepare(args: argparse.Namespace) -> Context:
    pairs = args.pairs
    needs_reference = any(p in pairs for p in ("payment", "token", "jwe"))
    payments_bench.ensure_database(args.database_url, fresh=args.fresh)
    if needs_reference:
        payments_bench.ensure_database(args.reference_database_url, fresh=args.fresh)
    issuer_bench.django_setup(args.database_url, args.port)
    print("migrating and seeding the platform's bench database ...")
    seed: dict[str, Any] = {"merchant": payments_bench.migrate_and_seed()}
    seed.update(issuer_bench.migrate_and_seed())
    if "onus" in pairs:
        seed["onus_cards"] = payments_bench.onus_cards()
    ctx = Context(args, seed)
    if needs_reference:
        reference_keys(seed)
        check = reference_selfcheck(args.reference_database_url)
        ctx.reference_statements = {
            name: {"statements": n, "entries": n} for name, n in check["statements"].items()
        }
        seed["reference_database"] = check["database"]
    print(
        "statements per request, counted in-process (gunicorn adds CONN_HEALTH_CHECKS' SELECT 1 "
        "per request on both sides):"
    )
    ctx.project_statements = project_statements(ctx, pairs)
    for side, counts in (
        ("platform", ctx.project_statements),
        ("reference", ctx.reference_statements),
    ):
        print(
            f"  {side}: "
            + ", ".join(
                f"{name} {c['statements']}"
                + (
                    f" (+{c['entries'] - c['statements']} BEGIN/COMMIT)"
                    if c["entries"] > c["statements"]
                    else ""
                )
                for name, c in counts.items()
            )
        )
    failed = [name for name, c in ctx.project_statements.items() if not c["ok"]]
    if failed:
        raise RuntimeError(
            f"the statement-count pass failed for {failed}: {ctx.project_statements}"
        )
    from django.conf import settings
    from django.db import connections

    db = settings.DATABASES["default"]
    seed["project_database"] = {
        "engine": db["ENGINE"],
        "conn_max_age": db.get("CONN_MAX_AGE"),
        "conn_health_checks": db.get("CONN_HEALTH_CHECKS"),
    }
    reference_db = seed.get("reference_database")
    if reference_db and any(reference_db[k] != seed["project_database"][k] for k in reference_db):
        print(f"warning: the databases differ: {seed['project_database']} vs {reference_db}")
    connections.close_all()  # gunicorn and the load open their own
    return ctx


# --- the run ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, ctx: Context) -> dict[str, Any]:
    _server.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    rounds: dict[str, list[dict[str, Any]]] = {}
    started = time.time()
    try:
        ctx.project = start_server(
            "platform",
            port=args.port,
            database_url=args.database_url,
            workers=args.workers,
            app="config.wsgi",
            log=_server.RESULTS_DIR / f"gunicorn-compare-{stamp}.log",
            env={
                "ISSUER_KEYS_DIR": str(issuer_bench.KEYS_DIR),
                "ISSUER_BASE_URL": f"http://127.0.0.1:{args.port}",
            },
        )
        if any(p in args.pairs for p in ("payment", "token", "jwe")):
            ref_port = args.port + 1
            ctx.reference = start_server(
                "reference",
                port=ref_port,
                database_url=args.reference_database_url,
                workers=args.workers,
                app="bench.reference.wsgi",
                log=_server.RESULTS_DIR / f"gunicorn-reference-{stamp}.log",
                env={
                    "DJANGO_SETTINGS_MODULE": "bench.reference.settings",
                    "REFERENCE_KEYS_FILE": str(REFERENCE_KEYS_FILE),
                    "REFERENCE_BASE_URL": f"http://127.0.0.1:{ref_port}",
                },
            )
        for pair in args.pairs:
            rounds[pair] = []
            for number in range(1, args.rounds + 1):
                for position, side in enumerate(make_sides(ctx, pair)):
                    outcome = run_round(side, warmup=args.warmup, duration=args.duration)
                    outcome.update(
                        pair=pair, round=number, position="AB"[position], statements=side.statements
                    )
                    rounds[pair].append(outcome)
                    cpu = outcome["cpu_ms_per_request"]
                    print(
                        f"  {pair} round {number} {outcome['position']} {side.label:24s} "
                        f"{outcome['throughput_per_s']:8.1f}/s  p50 {outcome['p50_ms']:7.2f}  "
                        f"p99 {outcome['p99_ms']:7.2f} ms  server {cpu.get('server', 0):5.2f}  "
                        f"pg {cpu.get('postgres', 0):5.2f} ms/req  errors {outcome['errors']}  "
                        f"load {' '.join(outcome['loadavg'])}",
                        flush=True,
                    )
                    for sample in outcome["error_samples"][:3]:
                        print(f"      error: {sample}")
                    if outcome["clients_out_of_material"]:
                        print("      clients ran out of single-use bodies: raise the rate cap")
    except KeyboardInterrupt:
        _load.interrupted()
        raise
    finally:
        for server in (ctx.reference, ctx.project):
            if server is not None:
                _server.stop_process(server.process)
    return report(args, ctx, rounds, stamp, time.time() - started)


def report(
    args: argparse.Namespace,
    ctx: Context,
    rounds: dict[str, list[dict[str, Any]]],
    stamp: str,
    seconds: float,
) -> dict[str, Any]:
    summaries: dict[str, Any] = {}
    for pair, done in rounds.items():
        a = [r for r in done if r["position"] == "A"]
        b = [r for r in done if r["position"] == "B"]
        summary = pair_summary(a, b)
        summary["labels"] = [a[0]["side"] if a else "", b[0]["side"] if b else ""]
        summary["statements"] = [
            a[0]["statements"] if a else None,
            b[0]["statements"] if b else None,
        ]
        summaries[pair] = summary
    errors = sum(r["errors"] for done in rounds.values() for r in done)
    outcome = {
        "timestamp": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "settings": {k: v for k, v in vars(args).items()},
        "machine": {
            **payments_bench.machine_info(args.database_url),
            "cpu_model": _cpu_model(),
            "loadavg_at_end": Path("/proc/loadavg").read_text().split()[:3],
        },
        "databases": {
            "platform": ctx.seed.get("project_database"),
            "reference": ctx.seed.get("reference_database"),
        },
        "load_generator": "bench/compare.py: keep-alive http.client threads in one process",
        "seconds": round(seconds, 1),
        "errors": errors,
        "pairs": summaries,
        "rounds": rounds,
    }
    path = _server.RESULTS_DIR / f"compare-{stamp}.json"
    path.write_text(json.dumps(outcome, indent=2, default=str) + "\n")
    print()
    print(table(summaries, args))
    print(f"\nerrors {errors}; {seconds:.0f} s in all; result: {path}")
    return outcome


def _fmt(value: Any, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def table(summaries: dict[str, Any], args: argparse.Namespace) -> str:
    """The summary table: medians over the rounds; the ratio is the median of the per-round
    ratios A/B (each round of A against the B measured right after it)."""
    lines = [
        f"{args.rounds} round(s) per side, {args.duration:g} s each after {args.warmup:g} s "
        f"warm-up, {args.workers} gunicorn workers, {args.concurrency} clients; medians",
        f"{'pair':9s} {'side':26s} {'req/s':>8s} {'p50 ms':>7s} {'p99 ms':>7s} "
        f"{'server':>7s} {'PG':>6s} {'SQL':>4s} {'errors':>6s}   (CPU ms per request)",
    ]
    for pair, summary in summaries.items():
        for index, side in enumerate((summary["a"], summary["b"])):
            if side is None:
                continue
            statements = summary["statements"][index]
            lines.append(
                f"{pair if index == 0 else '':9s} {summary['labels'][index]:26s} "
                f"{_fmt(side['throughput_per_s']):>8s} {_fmt(side['p50_ms'], '.2f'):>7s} "
                f"{_fmt(side['p99_ms'], '.2f'):>7s} {_fmt(side['server_cpu_ms'], '.2f'):>7s} "
                f"{_fmt(side['postgres_cpu_ms'], '.2f'):>6s} "
                f"{_fmt(statements['statements'] if statements else None, 'd'):>4s} "
                f"{side['errors']:>6d}"
            )
        if summary["b"] is not None:
            each = ", ".join(_fmt(r, ".2f") for r in summary["ratios"])
            lines.append(
                f"{'':9s} ratio A/B {_fmt(summary['ratio_median'], '.2f')} (rounds: {each})"
            )
    return "\n".join(lines)


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return ""


# --- main ---------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Pairs: " + ", ".join(PAIR_NAMES) + ". See bench/README.md.",
    )
    parser.add_argument(
        "--pairs",
        default=",".join(PAIR_NAMES),
        help="comma-separated, run in this order (default: all)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds per side, A B A B ...")
    parser.add_argument("--duration", type=float, default=15.0, help="measured seconds a round")
    parser.add_argument("--warmup", type=float, default=3.0, help="unrecorded seconds first")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers, each side")
    parser.add_argument("--concurrency", type=int, default=4, help="client threads")
    parser.add_argument(
        "--database-url",
        default=DEFAULT_DATABASE_URL,
        help="the platform's bench database (created, migrated, seeded)",
    )
    parser.add_argument(
        "--reference-database-url",
        default=DEFAULT_REFERENCE_URL,
        help="the references' database (created, migrated)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8210,
        help="the platform's port; the reference listens on the next one",
    )
    parser.add_argument("--jwe-operation", choices=sorted(JWE_OPERATIONS), default="BalanceInquiry")
    parser.add_argument(
        "--verify-every", type=int, default=20, help="decrypt and check every n-th JWE answer"
    )
    parser.add_argument(
        "--token-rate-cap",
        type=int,
        default=2000,
        help="client assertions signed before a token round, per second",
    )
    parser.add_argument(
        "--purchase-rate-cap",
        type=int,
        default=400,
        help="Purchase requests encrypted before a round, per second",
    )
    parser.add_argument("--fresh", action="store_true", help="drop and recreate both databases")
    args = parser.parse_args(argv)
    args.pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    unknown = [p for p in args.pairs if p not in PAIR_NAMES]
    if unknown or not args.pairs or len(set(args.pairs)) != len(args.pairs):
        parser.error(f"--pairs takes distinct names among {', '.join(PAIR_NAMES)}")
    if not 1 <= args.rounds <= 50:
        parser.error("--rounds must be 1..50")
    if not 0 < args.duration <= 240 or not 0 <= args.warmup <= 30:
        # Pre-signed client assertions live 290 s: a round must fit in that.
        parser.error("--duration must be in (0, 240] and --warmup in [0, 30]")
    if not 1 <= args.concurrency <= 256 or not 1 <= args.workers <= 64:
        parser.error("--concurrency must be 1..256 and --workers 1..64")
    if not 1024 <= args.port <= 65534 or args.verify_every < 1:
        parser.error("--port must be 1024..65534 and --verify-every at least 1")
    if not 1 <= args.token_rate_cap <= 20000 or not 1 <= args.purchase_rate_cap <= 20000:
        parser.error("the rate caps must be 1..20000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.rounds < 3:
        print(f"note: {args.rounds} round(s) per side; the issue asks for at least three pairs")
    return _load.run_main(
        prepare=lambda: prepare(args),
        profile=None,
        load=lambda ctx: run(args, ctx),
    )


if __name__ == "__main__":
    sys.exit(main())
