"""The platform waiting on a card network: gunicorn's sync and gthread workers against the
network host of the ISO 8583 link at several latencies, in one sitting.

    .venv/bin/python bench/network.py --rounds 2 --models sync,gthread,gthread-t32 \
        --simulator sync --open-loop 200            # the recorded matrix (about 20 minutes)
    .venv/bin/python bench/network.py --latencies 200 --clients 128 --duration 5   # one cell

What it does:
1. The bench database and merchant of bench/payments.py (same --database-url, same keys).
2. One network host (`manage.py network_host`, --latency-ms L, jitter +-20 %), started again on
   the same port for each latency (every link reconnects on its next request).
3. One gunicorn per model, all at once on ports of their own, each with the production conf
   (config/gunicorn.conf.py) and --workers processes: `sync` (one request per process, the
   conf before issue 34) and `gthread` (--threads per process; variants such as
   `gthread-t32-si5`, see start_server), each over the link (PAYMENTS_NETWORK_URL); the models
   named by --simulator also on the in-process simulator (rows "sim-...", latency 0 only). Each
   server's PostgreSQL connections carry its own application_name, so they are counted apart
   (mind PostgreSQL's max_connections: a gthread server holds up to 40).
4. For each latency, each client count, each model in turn (alternated, so a drift of the
   machine touches every model alike): --clients keep-alive connections in a closed loop (each
   sends its next DB when the last is answered), --warmup then --duration seconds measured.
   DB payments of 10.00 EUR on the approved test card; anything but HTTP 200 and 000.000.000 is
   an error.
5. Open loop (--open-loop MS): the network at that latency, payments arrive at a fixed rate
   (Poisson), 60 % of the gthread node's best closed-loop throughput at 0 ms in this sitting,
   each on a free connection or a new one; latency from its scheduled arrival (no coordinated
   omission). The gthread server only: sync workers cannot keep up with that rate.
6. Prints per cell payments/s, p50/p99 ms, errors, server (gunicorn) and PostgreSQL CPU ms per
   payment, the most PostgreSQL connections the server held (sampled every 0.2 s); writes
   bench/results/network-<timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench._server import (  # noqa: E402
    RESULTS_DIR,
    free_port,
    start_gunicorn,
    start_network_host,
    stop_process,
    wait_healthy,
    wait_workers,
)
from bench.payments import (  # noqa: E402
    CARD,
    DEFAULT_DATABASE_URL,
    _pg_params,
    _proc_stat,
    cpu_snapshot,
    cpu_usage,
    django_setup,
    ensure_database,
    migrate_and_seed,
    percentile,
)

SUCCESS = "000.000.000"
REQUEST_TIMEOUT_S = 60.0


# --- the load ------------------------------------------------------------------------------------


class Load:
    """Keep-alive HTTP/1.1 clients on one event loop, posting DB payments."""

    def __init__(self, port: int, creds: dict[str, Any]) -> None:
        self.port = port
        base = {
            "entityId": creds["entity_id"],
            "entityType": creds["entity_type"],
            "merchant.id": creds["merchant_id"],
            "amount": "10.00",
            "currency": "EUR",
            "paymentType": "DB",
            **CARD,
        }
        self.body = urlencode(base)
        self.token = creds["token"]
        self.latencies: list[float] = []
        self.errors = 0
        self.error_samples: list[str] = []
        self.recording = False

    def _request(self) -> bytes:
        body = f"{self.body}&merchantTransactionId={uuid.uuid4().hex}".encode()
        head = (
            f"POST /pay/v3/payments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {self.token}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        return head + body

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port)

    async def _one(
        self,
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None,
        since: float,
        record: bool | None = None,
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """One payment on `conn` (opened when None); answers the connection to reuse. Recorded
        when `record`, or (None) when it ends inside the measured window."""
        try:
            if conn is None:
                conn = await self._connect()
            reader, writer = conn
            writer.write(self._request())
            status_line = await asyncio.wait_for(reader.readline(), REQUEST_TIMEOUT_S)
            length, close = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and "close" in value.lower():
                    close = True
            data = await reader.readexactly(length)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self._error(f"{exc!r}", record)
            if conn is not None:
                conn[1].close()
            return None
        elapsed = (time.perf_counter() - since) * 1000
        status = status_line.split(b" ", 2)[1:2]
        try:
            code = json.loads(data)["result"]["code"]
        except (ValueError, KeyError, TypeError):
            code = "unparsable"
        if status != [b"200"] or code != SUCCESS:
            self._error(f"HTTP {status} {code}", record)
        elif self.recording if record is None else record:
            self.latencies.append(elapsed)
        if close:
            writer.close()
            return None
        return conn

    def _error(self, what: str, record: bool | None) -> None:
        if self.recording if record is None else record:
            self.errors += 1
            if len(self.error_samples) < 5:
                self.error_samples.append(what)

    async def closed_loop(self, clients: int, warmup: float, duration: float) -> None:
        end = time.monotonic() + warmup + duration

        async def client() -> None:
            conn = None
            while time.monotonic() < end:
                conn = await self._one(conn, time.perf_counter())
            if conn is not None:
                conn[1].close()

        async def window() -> None:
            await asyncio.sleep(warmup)
            self.recording = True
            await asyncio.sleep(duration)
            self.recording = False

        await asyncio.gather(window(), *(client() for _ in range(clients)))

    async def open_loop(self, rate: float, warmup: float, duration: float) -> None:
        idle: list[Any] = []
        tasks: set[asyncio.Task[None]] = set()
        rng = random.Random(5)  # noqa: S311 - arrival times, not secrets

        async def arrival(scheduled: float, record: bool) -> None:
            conn = idle.pop() if idle else None
            conn = await self._one(conn, scheduled, record)
            if conn is not None:
                idle.append(conn)

        start = time.perf_counter()
        at = start
        while at - start < warmup + duration:
            at += rng.expovariate(rate)  # Poisson arrivals
            delay = at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(arrival(at, at - start >= warmup))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT_S)
        for _, writer in idle:
            writer.close()


# --- the parties ---------------------------------------------------------------------------------


class PgConnections:
    """Samples, every 0.2 s, the most connections each application name holds."""

    def __init__(self, database_url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(**_pg_params(database_url), autocommit=True)
        self.most: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.most = {}
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, int]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        return dict(self.most)

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            rows = self.conn.execute(
                "SELECT application_name, count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() GROUP BY 1"
            ).fetchall()
            for name, count in rows:
                self.most[name] = max(self.most.get(name, 0), count)


def start_host(port: int, latency_ms: float, log: Path) -> subprocess.Popen[bytes]:
    return start_network_host(
        port=port, log_path=log, latency_ms=latency_ms, jitter_ms=latency_ms * 0.2
    )


def cell(
    args: argparse.Namespace,
    server: dict[str, Any],
    creds: dict[str, Any],
    pg: PgConnections,
    host: subprocess.Popen[bytes] | None,
    *,
    clients: int = 0,
    rate: float = 0.0,
) -> dict[str, Any]:
    load = Load(server["port"], creds)
    result: dict[str, Any] = {}

    def measure() -> None:
        time.sleep(args.warmup)
        pg.start()
        before = cpu_snapshot(server["process"].pid, [os.getpid()])
        host_before = _proc_stat(host.pid)[2] if host else 0.0  # type: ignore[index]
        time.sleep(args.duration)
        after = cpu_snapshot(server["process"].pid, [os.getpid()])
        host_after = _proc_stat(host.pid)[2] if host else 0.0  # type: ignore[index]
        result["cpu"] = cpu_usage(before, after, args.duration)
        result["cpu"]["host"] = round((host_after - host_before) / args.duration, 2)
        result["pg_connections"] = pg.stop().get(server["name"], 0)

    meter = threading.Thread(target=measure, daemon=True)
    meter.start()
    if rate:
        asyncio.run(load.open_loop(rate, args.warmup, args.duration))
    else:
        asyncio.run(load.closed_loop(clients, args.warmup, args.duration))
    meter.join(30)
    done = len(load.latencies)
    ordered = sorted(load.latencies)
    cpu = result.get("cpu", {})
    per = 1000 * args.duration / done if done else 0.0
    return {
        "model": server["name"],
        "clients": clients,
        "rate": rate,
        "payments_per_s": round(done / args.duration, 1),
        "p50_ms": round(percentile(ordered, 50), 1),
        "p99_ms": round(percentile(ordered, 99), 1),
        "errors": load.errors,
        "error_samples": load.error_samples,
        "server_cpu_ms": round(cpu.get("gunicorn", 0) * per, 2),
        "pg_cpu_ms": round(cpu.get("postgres", 0) * per, 2),
        "pg_connections": result.get("pg_connections", 0),
        "cpu": cpu,
    }


def start_server(
    args: argparse.Namespace, name: str, model: str, network_url: str, stamp: str
) -> dict[str, Any]:
    """`model`: the worker class, with variants after dashes: `gthread-t16-w3-ka0-p4-si20` is 16
    threads, 3 processes, keep-alive 0 s, a pool of 4 and a GIL switch interval of 20 ms (the
    arguments' values, and Python's 5 ms, otherwise)."""
    worker_class, *variants = model.split("-")
    options = {"t": args.threads, "w": args.workers, "ka": args.keepalive, "p": args.pool, "si": 0}
    # (si 0: the conf's own switch interval)
    for variant in variants:
        letters = variant.rstrip("0123456789")
        options[letters] = int(variant[len(letters) :])
    port = free_port()
    log = RESULTS_DIR / f"gunicorn-network-{stamp}-{name}.log"
    url = f"{args.database_url}?application_name={name}"
    env = {
        "GUNICORN_WORKER_CLASS": worker_class,
        "GUNICORN_THREADS": str(options["t"]),
        "PAYMENTS_NETWORK_URL": network_url,
        "PAYMENTS_NETWORK_ECHO_SECONDS": "30",
        "DB_POOL_MAX_SIZE": str(options["p"]),
        "GUNICORN_KEEPALIVE": str(options["ka"]),
        **({"GUNICORN_SWITCH_INTERVAL_MS": str(options["si"])} if options["si"] else {}),
    }
    proc = start_gunicorn(database_url=url, workers=options["w"], port=port, log_path=log, env=env)
    wait_healthy(port, proc, 60)
    wait_workers(proc, options["w"], 60)
    return {"name": name, "port": port, "process": proc}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latencies", default="0,50,200,500", help="ms, comma-separated")
    parser.add_argument("--clients", default="32,128,256", help="closed-loop connections")
    parser.add_argument(
        "--models", default="sync,gthread", help="worker classes, with variants: gthread-t16-ka0"
    )
    parser.add_argument("--workers", type=int, default=5, help="processes per server")
    parser.add_argument("--threads", type=int, default=16, help="threads per gthread process")
    parser.add_argument("--keepalive", type=int, default=5, help="gthread's keep-alive seconds")
    parser.add_argument("--pool", type=int, default=8, help="DB_POOL_MAX_SIZE per process")
    parser.add_argument("--rounds", type=int, default=1, help="the matrix this many times")
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--simulator", default="", help="models also run on the in-process simulator (0 ms)"
    )
    parser.add_argument("--open-loop", type=float, default=0.0, help="its latency in ms (0: none)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args(argv)
    latencies = [float(x) for x in args.latencies.split(",")]
    client_counts = [int(x) for x in args.clients.split(",")]
    models = args.models.split(",")

    ensure_database(args.database_url, fresh=False)
    django_setup(args.database_url)
    creds = migrate_and_seed()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    host_port = free_port()
    host_log = RESULTS_DIR / f"network-host-{stamp}.log"
    network_url = f"iso8583://127.0.0.1:{host_port}"
    servers: list[dict[str, Any]] = []
    host: subprocess.Popen[bytes] | None = None
    rows: list[dict[str, Any]] = []
    pg = PgConnections(args.database_url)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for model in models:
            servers.append(start_server(args, f"link-{model}", model, network_url, stamp))
        for model in filter(None, args.simulator.split(",")):
            servers.append(start_server(args, f"sim-{model}", model, "", stamp))
        print(f"servers: {', '.join(s['name'] for s in servers)}; {args.workers} workers each")
        host = start_host(host_port, 0, host_log)
        for server in servers:  # every process and thread past its first requests, unrecorded
            asyncio.run(Load(server["port"], creds).closed_loop(64, 0, 4))
        for round_ in range(1, args.rounds + 1):
            for latency in latencies:
                stop_process(host, timeout=5)
                host = start_host(host_port, latency, host_log)
                _links_back(servers, creds)
                for clients in client_counts:
                    for server in servers:
                        if server["name"].startswith("sim-") and latency:
                            continue
                        row = cell(args, server, creds, pg, host, clients=clients)
                        row["latency_ms"], row["round"] = latency, round_
                        rows.append(row)
                        _print(row)
        if args.open_loop:
            node = next((s["name"] for s in servers if s["name"].startswith("link-gthread")), "")
            capacity = max(
                (r["payments_per_s"] for r in rows
                 if r["model"] == node and r["latency_ms"] == 0),
                default=0.0,
            )  # fmt: skip
            if capacity:
                stop_process(host, timeout=5)
                host = start_host(host_port, args.open_loop, host_log)
                _links_back(servers, creds)
                for server in servers:
                    if server["name"] != node:  # sync workers could not keep up: a queue
                        continue
                    row = cell(args, server, creds, pg, host, rate=round(0.6 * capacity, 1))
                    row["latency_ms"] = args.open_loop
                    rows.append(row)
                    _print(row)
    except KeyboardInterrupt:
        print("interrupted")
        return 130
    finally:
        for server in servers:
            stop_process(server["process"], timeout=10)
        stop_process(host, timeout=5)
    if args.rounds > 1:
        _medians(rows)
    out = RESULTS_DIR / f"network-{stamp}.json"
    out.write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
    print(f"written {out}")
    return 0


def _links_back(servers: list[dict[str, Any]], creds: dict[str, Any]) -> None:
    """After the host restarted: every process's link reconnected (a link that found the host
    gone probes every second), then a few unrecorded payments on each server."""
    time.sleep(2.5)
    for server in servers:
        asyncio.run(Load(server["port"], creds).closed_loop(32, 0, 1.5))


def _medians(rows: list[dict[str, Any]]) -> None:
    """The median of each cell over the rounds (throughput, latencies, CPU)."""
    cells: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        cells.setdefault((row["model"], row["latency_ms"], row["clients"], row["rate"]), []).append(
            row
        )
    print("\nmedians over the rounds:")
    for same in cells.values():
        median = dict(same[0])
        for name in ("payments_per_s", "p50_ms", "p99_ms", "server_cpu_ms", "pg_cpu_ms"):
            median[name] = statistics.median(r[name] for r in same)
        median["errors"] = sum(r["errors"] for r in same)
        median["pg_connections"] = max(r["pg_connections"] for r in same)
        median["error_samples"] = []
        _print(median)


def _print(row: dict[str, Any]) -> None:
    loop = f"rate {row['rate']:g}/s" if row["rate"] else f"{row['clients']:>3} clients"
    cpu = row["cpu"]
    print(
        f"{row['model']:<13} {row['latency_ms']:>4.0f} ms {loop:<14} "
        f"{row['payments_per_s']:>7.1f}/s p50 {row['p50_ms']:>7.1f} p99 {row['p99_ms']:>7.1f} "
        f"err {row['errors']:>3} server {row['server_cpu_ms']:>5.2f} pg {row['pg_cpu_ms']:>5.2f} "
        f"ms/pay pgconn {row['pg_connections']:>2} host {cpu.get('host', 0):.2f} "
        f"other {cpu.get('other', 0):.2f}",
        flush=True,
    )
    if row["error_samples"]:
        print("   errors:", row["error_samples"][:3], flush=True)


if __name__ == "__main__":
    sys.exit(main())
