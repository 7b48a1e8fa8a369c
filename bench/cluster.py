"""One web node against two behind HAProxy and PgBouncer, in one sitting (issue 36).

    .venv/bin/python bench/cluster.py --rounds 3                # the recorded run (about 3 min)
    .venv/bin/python bench/cluster.py --latency-ms 200 --clients 128

What it does:
1. The bench database and merchant of bench/payments.py (same --database-url, same keys).
2. The cluster of bench/_cluster.py: the network host (--latency-ms), PgBouncer in transaction
   mode, two web nodes through it (gunicorn, production conf, --workers processes each),
   HAProxy in front of them (deploy/haproxy/haproxy.cfg); and, beside them, two more nodes of
   the same size straight to PostgreSQL, as before this issue (the references).
3. Four set-ups, alternated in each round so a drift of the machine touches each alike:
   `direct` (the reference node, no HAProxy, no PgBouncer), `direct-unprepared` (another such
   node with DB_PREPARE_THRESHOLD=0, as behind PgBouncer 1.18), `haproxy-1` (HAProxy with web2
   disabled on its admin socket: one node through HAProxy and PgBouncer), `haproxy-2` (both).
   --clients keep-alive connections in a closed loop posting DB payments (bench/network.py's
   load), --warmup then --duration seconds measured.
4. Prints per cell payments/s, p50/p99, errors; CPU ms per payment of the web nodes, of HAProxy
   and PgBouncer together, and of PostgreSQL (every postgres process of the machine: run it on a
   quiet one); and the most connections PostgreSQL held for the
   set-up (sampled every 0.2 s by application_name: the set-up's name for a reference node,
   `cluster` for PgBouncer's). Writes bench/results/cluster-<timestamp>.json.

On 2 cores a second node adds no CPU: what it shows is what the extra hops cost per payment and
that PostgreSQL's connections stay at PgBouncer's pool however many threads the nodes run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench._cluster import cluster, cpu_seconds, group_pids, postgres_pids  # noqa: E402
from bench._server import (  # noqa: E402
    RESULTS_DIR,
    free_port,
    start_gunicorn,
    stop_process,
    wait_healthy,
    wait_workers,
)
from bench.network import Load, PgConnections  # noqa: E402
from bench.payments import (  # noqa: E402
    DEFAULT_DATABASE_URL,
    _pg_params,
    django_setup,
    ensure_database,
    migrate_and_seed,
    percentile,
)

SETUPS = ("direct", "direct-unprepared", "haproxy-1", "haproxy-2")


def measure(
    args: argparse.Namespace, port: int, creds: dict[str, Any], pg: PgConnections,
    groups: dict[str, list[int]], application: str,
) -> dict[str, Any]:  # fmt: skip
    """One closed-loop cell against `port`; CPU of each group of pids over the window."""
    load = Load(port, creds)
    spent: dict[str, float] = {}

    def meter() -> None:
        time.sleep(args.warmup)
        pg.start()
        before = {name: cpu_seconds(pids) for name, pids in groups.items()}
        before["postgres"] = cpu_seconds(postgres_pids())
        time.sleep(args.duration)
        after = {name: cpu_seconds(pids) for name, pids in groups.items()}
        after["postgres"] = cpu_seconds(postgres_pids())
        spent.update({name: after[name] - before[name] for name in after})
        spent["pg_connections"] = pg.stop().get(application, 0)

    thread = threading.Thread(target=meter, daemon=True)
    thread.start()
    asyncio.run(load.closed_loop(args.clients, args.warmup, args.duration))
    thread.join(30)
    done = len(load.latencies)
    ordered = sorted(load.latencies)
    per = 1000 / done if done else 0.0
    return {
        "payments_per_s": round(done / args.duration, 1),
        "p50_ms": round(percentile(ordered, 50), 1),
        "p99_ms": round(percentile(ordered, 99), 1),
        "errors": load.errors,
        "error_samples": load.error_samples,
        "web_cpu_ms": round(spent.get("web", 0) * per, 2),
        "proxies_cpu_ms": round(spent.get("proxies", 0) * per, 2),
        "pg_cpu_ms": round(spent.get("postgres", 0) * per, 2),
        "pg_connections": int(spent.get("pg_connections", 0)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn processes per node")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="the network's")
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args(argv)

    ensure_database(args.database_url, fresh=False)
    django_setup(args.database_url)
    creds = migrate_and_seed()
    params = _pg_params(args.database_url)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    logs = RESULTS_DIR / f"cluster-{stamp}"
    rows: list[dict[str, Any]] = []
    pg = PgConnections(args.database_url)
    with cluster(
        upstream=(params["host"], params["port"]),
        database=f"{params['dbname']}?application_name=cluster",
        logs=logs,
        nodes=2,
        workers_per_node=args.workers,
        latency_ms=args.latency_ms,
    ) as nodes:
        assert nodes.haproxy is not None
        references = {}  # the reference nodes, straight to PostgreSQL: setup -> (port, process)
        for setup, threshold in (("direct", "5"), ("direct-unprepared", "0")):
            port = free_port()
            references[setup] = port, start_gunicorn(
                database_url=f"{args.database_url}?application_name={setup}",
                workers=args.workers, port=port, log_path=logs / f"{setup}.log",
                env={"PAYMENTS_NETWORK_URL": nodes.env["PAYMENTS_NETWORK_URL"],
                     "DB_PREPARE_THRESHOLD": threshold},
            )  # fmt: skip
        try:
            for port, process in references.values():
                wait_healthy(port, process, 60)
                wait_workers(process, args.workers, 60)
            print(
                f"nodes of {args.workers} processes; network at {args.latency_ms:g} ms; "
                f"{args.clients} clients; logs in {logs}",
                flush=True,
            )
            proxies = nodes.haproxy.pids() + nodes.pgbouncer.pids()
            for target in [port for port, _ in references.values()] + [nodes.port]:
                asyncio.run(Load(target, creds).closed_loop(32, 0, 3))  # past the first requests
            for round_ in range(1, args.rounds + 1):
                for setup in SETUPS:
                    if setup in references:
                        target, process = references[setup]
                        groups, app = {"web": group_pids(process.pid)}, setup
                    else:
                        both = setup == "haproxy-2"
                        nodes.haproxy.command(f"{'enable' if both else 'disable'} server web/web2")
                        web = nodes.nodes[0].pids() + (nodes.nodes[1].pids() if both else [])
                        target, groups, app = (
                            nodes.port,
                            {"web": web, "proxies": proxies},
                            "cluster",
                        )
                    row = {"setup": setup, "round": round_}
                    row.update(measure(args, target, creds, pg, groups, app))
                    rows.append(row)
                    _print(row)
        finally:
            for _, process in references.values():
                stop_process(process, timeout=10)
    if args.rounds > 1:
        print("\nmedians over the rounds:")
        for setup in SETUPS:
            same = [r for r in rows if r["setup"] == setup]
            median = {"setup": setup, "round": "median", "error_samples": []}
            for name in ("payments_per_s", "p50_ms", "p99_ms", "web_cpu_ms", "proxies_cpu_ms",
                         "pg_cpu_ms"):  # fmt: skip
                median[name] = statistics.median(r[name] for r in same)
            median["errors"] = sum(r["errors"] for r in same)
            median["pg_connections"] = max(r["pg_connections"] for r in same)
            _print(median)
    out = RESULTS_DIR / f"cluster-{stamp}.json"
    out.write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
    print(f"written {out}")
    return 0


def _print(row: dict[str, Any]) -> None:
    print(
        f"{row['setup']:<17} {row['payments_per_s']:>7.1f}/s p50 {row['p50_ms']:>6.1f} "
        f"p99 {row['p99_ms']:>6.1f} err {row['errors']:>3}  ms/payment: web "
        f"{row['web_cpu_ms']:>5.2f} haproxy+pgbouncer {row['proxies_cpu_ms']:>4.2f} "
        f"pg {row['pg_cpu_ms']:>5.2f}  pg connections {row['pg_connections']:>3}",
        flush=True,
    )
    if row["error_samples"]:
        print("   errors:", row["error_samples"][:3], flush=True)


if __name__ == "__main__":
    sys.exit(main())
