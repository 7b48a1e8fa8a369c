"""Payments load benchmark: gunicorn (config/gunicorn.conf.py) on PostgreSQL, driven over HTTP.

    .venv/bin/python bench/payments.py --duration 20 --concurrency 16 --workers 4
    .venv/bin/python bench/payments.py --profile 300      # where the time goes, in-process
    .venv/bin/python bench/payments.py --profile 2000 --onus 100   # the same for on-us DBs

Load mode: creates (or reuses) the database named by --database-url, migrates it, seeds one
participator and one merchant through merchants.services, starts gunicorn as a subprocess on a
free loopback port, waits for /healthz, then runs --concurrency client threads (optionally spread
over --client-procs processes) for --warmup + --duration seconds. The mix: 80 % DB, 15 % PA
followed by a CP of the full amount (two payments), 5 % RF of an earlier successful DB, all with
the approved test card. Any non-200 answer or a result.code other than 000.000.000 is an error.
Prints throughput, p50/p90/p99/max latency and errors, writes bench/results/<timestamp>.json,
and stops gunicorn at the end, also on Ctrl-C or SIGTERM.

Profile mode (--profile [N]): the same database and merchant, N DB payments through Django's test
Client in this process under cProfile (top 25 by cumulative time), plus the SQL statements each
payment type issues (captured with a debug cursor) and a few micro-timings. Each stage is given
twice: its wall time under the profiler (waits on PostgreSQL included), and its share of this
process's CPU (a second pass timed by `time.process_time`) applied to the CPU one payment takes
without the profiler. With --onus PERCENT, that share of the profiled DBs is paid with the
platform's own issuer cards.

See bench/README.md for the measured results on the reference machine.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import platform
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

# Run as a script, bench/ is first on sys.path and "payments" would name the bench script, not
# the Django app: the project root goes first instead.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench._load import (  # noqa: E402 - after the sys.path fix above
    MAX_ERROR_SAMPLES,
    REQUEST_TIMEOUT_S,
    KeepAliveClient,
    SetupError,
    interrupted,
    run_main,
    stop_all,
)
from bench._server import (  # noqa: E402
    RESULTS_DIR,
    free_port,
    start_gunicorn,
    use_bench_keys,
    wait_healthy,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cardplatform_bench"
PARTICIPATOR_ID = "BENCH001"
MERCHANT_ID = "99000001"
SUCCESS = "000.000.000"
CARD = {
    "card.number": "4200000000000000",
    "card.holder": "Jane Doe",
    "card.expiryMonth": "12",
    "card.expiryYear": "2034",
    "card.cvv": "123",
}
AMOUNT = "10.00"
KINDS = ("DB", "PA", "CP", "RF")
HEALTH_TIMEOUT_S = 60.0
MAX_ITERATIONS_PER_CLIENT = 5_000_000  # a hard bound besides the clock


# --- database and seed --------------------------------------------------------------------------


def _pg_params(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    return {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 5432,
        "user": unquote(parts.username or "postgres"),
        "password": unquote(parts.password or ""),
        "dbname": unquote(parts.path.lstrip("/")),
    }


def ensure_database(url: str, *, fresh: bool) -> None:
    """Create the database if it does not exist (drop it first with --fresh)."""
    import psycopg
    from psycopg import sql

    params = _pg_params(url)
    name = params.pop("dbname")
    conn = psycopg.connect(dbname="postgres", connect_timeout=10, **params)
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            if fresh:
                cur.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if cur.fetchone() is None:
                cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                print(f"created database {name}")
    finally:
        conn.close()


def django_setup(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_DEBUG"] = "false"
    use_bench_keys()
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()


def migrate_and_seed() -> dict[str, Any]:
    """Migrate, then make sure the bench participator and merchant exist; returns the merchant's
    credentials. An existing merchant keeps its token (read back from its vault copy), so two
    runs against one database do not revoke each other's token; it is rotated only when the copy
    cannot be read (other vault keys)."""
    from django.core.management import call_command
    from django.db import transaction

    from demo.management.commands.seed_demo import MERCHANT_VALUES
    from merchants.models import Entity, EntityType, Merchant
    from merchants.services import (
        entity_create,
        entity_rotate_token,
        entity_token_plaintext,
        merchant_create,
    )

    call_command("migrate", interactive=False, verbosity=0)
    with transaction.atomic():
        bank = Entity.objects.filter(entity_id=PARTICIPATOR_ID).first()
        if bank is None:
            bank, _ = entity_create(
                entity_type=EntityType.PARTICIPATOR, entity_id=PARTICIPATOR_ID, name="Bench Bank"
            )
        merchant = Merchant.objects.filter(merchant_id=MERCHANT_ID).first()
        if merchant is None:
            merchant, token = merchant_create(
                participator=bank,
                merchant_id=MERCHANT_ID,
                values={**MERCHANT_VALUES, "name": "Bench Shop GmbH", "business": "BENCH SHOP"},
                changed_by="bench",
            )
        else:
            try:
                token = entity_token_plaintext(entity=merchant.entity)
            except Exception:  # noqa: BLE001 - e.g. encrypted under a key no longer configured
                token = entity_rotate_token(entity=merchant.entity)
    return {
        "merchant_id": merchant.merchant_id,
        "entity_id": merchant.entity.entity_id,
        "entity_type": "MERCHANT",
        "token": token,
    }


ONUS_PRODUCT, ONUS_BIN, ONUS_CARDS = "BENCH-ONUS-EUR", "45980000", 64


_OTHER_KEYS = (
    f"the on-us cards of this database were made with other keys than "
    f"{RESULTS_DIR / 'bench-keys.json'} (was bench/results/ made anew?): run again with --fresh, "
    "which drops and recreates the bench database"
)


def onus_cards() -> list[dict[str, str]]:
    """The card fields of ONUS_CARDS ACTIVE prepaid cards of the platform's own issuer (made
    once, each loaded with ten million EUR, no 3-D Secure channel): payments on them go to the
    on-us connector (docs/closed-loop.md)."""
    from decimal import Decimal

    from cryptography.exceptions import InvalidTag

    from core import cards as core_cards
    from issuer.cards import money, services
    from issuer.cards.models import Card, CardProduct, KycStatus

    if not CardProduct.objects.filter(code=ONUS_PRODUCT).exists():
        services.product_create(
            code=ONUS_PRODUCT, name="Bench on-us", kind="prepaid", currency="EUR",
            bins=[ONUS_BIN], enabled={"transaction/Purchase": True},
        )  # fmt: skip
    fields = []
    for i in range(ONUS_CARDS):
        reference = f"bench_onus_{i:03d}"
        card = Card.objects.filter(client_id="bench", reference=reference).first()
        if card is None:
            card = services.card_apply(
                client_id="bench", product_code=ONUS_PRODUCT, form="VIRTUAL", actor="bench",
                customer_fields={"first_name": "Bench", "last_name": reference,
                                 "kyc_status": KycStatus.VERIFIED},
                reference=reference,
            )  # fmt: skip
            services.card_activate(card=card, actor="bench")
            request = money.Request(client_id="bench", requestor_reference=f"load-{reference}",
                                    digest="bench")  # fmt: skip
            money.load(request=request, card=card, amount=Decimal("10000000.00"), currency="EUR")
        # A database made with other bench keys (bench/results/ made anew, another clone): its
        # cards' numbers cannot be read (an unknown vault key id, another key), or their
        # fingerprints are another key's, and the payments would not go on-us.
        try:
            number = services.card_number(card=card)
        except (KeyError, InvalidTag) as exc:  # an unknown vault key id, another key
            raise SetupError(_OTHER_KEYS) from exc
        if core_cards.fingerprint(number) != card.pan_fingerprint:
            raise SetupError(_OTHER_KEYS)
        fields.append(
            {
                "card.number": number,
                "card.holder": "Bench Shopper",
                "card.expiryMonth": f"{card.expiry_month:02d}",
                "card.expiryYear": str(card.expiry_year),
                "card.cvv": services.card_cvv2(card=card),
            }
        )
    return fields


# --- gunicorn -----------------------------------------------------------------------------------


# --- CPU accounting from /proc (Linux) ----------------------------------------------------------


NAMES: dict[int, str] = {}


def _proc_stat(pid: int) -> tuple[int, str, float] | None:
    """(ppid, comm, cpu seconds) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), comm, (int(fields[11]) + int(fields[12])) / ticks


def cpu_snapshot(gunicorn_pid: int | None, client_pids: list[int]) -> dict[str, dict[int, float]]:
    groups: dict[str, dict[int, float]] = {
        "gunicorn": {},
        "postgres": {},
        "client": {},
        "other": {},
    }
    if not Path("/proc").is_dir():
        return groups
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        stat = _proc_stat(pid)
        if stat is None:
            continue
        ppid, comm, seconds = stat
        if gunicorn_pid is not None and gunicorn_pid in (pid, ppid):
            groups["gunicorn"][pid] = seconds
        elif comm.startswith("postgres"):
            groups["postgres"][pid] = seconds
        elif pid in client_pids:
            groups["client"][pid] = seconds
        else:
            groups["other"][pid] = seconds
            NAMES[pid] = comm
    try:
        lines = Path("/proc/stat").read_text().splitlines()
        cpu = [int(v) for v in lines[0].split()[1:9]]  # user .. steal, in clock ticks
        forks = next(int(line.split()[1]) for line in lines if line.startswith("processes "))
        # total, idle (+iowait), steal, processes forked since boot
        groups["_total"] = {0: sum(cpu), 1: cpu[3] + cpu[4], 2: cpu[7], 3: forks}
    except (OSError, IndexError, ValueError, StopIteration):
        pass
    return groups


def cpu_usage(
    before: dict[str, dict[int, float]], after: dict[str, dict[int, float]], seconds: float
) -> dict[str, Any]:
    """Cores used by each group over the window (1.0 = one core busy all the time)."""
    usage: dict[str, Any] = {}
    for group in ("gunicorn", "postgres", "client", "other"):
        spent = sum(v - before.get(group, {}).get(pid, 0.0) for pid, v in after[group].items())
        usage[group] = round(spent / seconds, 2)
    # Other processes that took CPU during the window (another test run would skew the numbers).
    others = sorted(
        ((v - before["other"].get(pid, 0.0), pid) for pid, v in after["other"].items()),
        reverse=True,
    )
    usage["other_top"] = [
        f"{NAMES.get(pid, '?')}[{pid}] {spent / seconds:.2f}" for spent, pid in others[:3] if spent
    ]
    if "_total" in before and "_total" in after:
        total, idle, steal, forks = (after["_total"][i] - before["_total"][i] for i in range(4))
        if total > 0:
            cores = os.cpu_count() or 1
            busy = (1 - idle / total) * cores
            usage["machine_busy_cores"] = round(busy, 2)
            usage["steal_cores"] = round(steal / total * cores, 2)
            # CPU of processes that started and ended inside the window (someone else's test
            # run, say): busy time no live process accounts for. Large values mean a noisy run.
            listed = sum(usage[g] for g in ("gunicorn", "postgres", "client", "other"))
            usage["unaccounted_cores"] = round(max(0.0, busy - listed - steal / total * cores), 2)
        usage["processes_forked"] = forks
    return usage


# --- load clients -------------------------------------------------------------------------------


class Client(KeepAliveClient):
    """One keep-alive HTTP client posting payments as the bench merchant."""

    def __init__(self, port: int, creds: dict[str, Any], seed: int):
        super().__init__(port)
        self.rng = random.Random(seed)  # noqa: S311 - a load mix, not a secret
        self.headers = {
            "Authorization": f"Bearer {creds['token']}",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        base = {
            "entityId": creds["entity_id"],
            "entityType": creds["entity_type"],
            "merchant.id": creds["merchant_id"],
            "amount": AMOUNT,
            "currency": "EUR",
        }
        self.initial = {kind: urlencode({**base, "paymentType": kind, **CARD}) for kind in KINDS}
        # On-us: the same requests on the issuer's own cards (--onus PERCENT of the initial ones).
        self.onus_share = float(creds.get("onus_percent", 0)) / 100
        self.onus = [
            {kind: urlencode({**base, "paymentType": kind, **fields}) for kind in ("DB", "PA")}
            for fields in creds.get("onus_cards", [])
        ]
        self.referenced = {kind: urlencode({**base, "paymentType": kind}) for kind in KINDS}
        self.lat: dict[str, list[float]] = {kind: [] for kind in KINDS}
        self.refundable: list[str] = []

    def pay(self, kind: str, record: bool, original: str | None = None) -> str | None:
        """Post one payment; returns its id when it succeeded, None otherwise."""
        mtid = uuid.uuid4().hex
        if original is None:
            initial = self.initial[kind]
            if self.onus and self.rng.random() < self.onus_share:
                initial = self.rng.choice(self.onus)[kind]
            path, body = "/pay/v3/payments", f"{initial}&merchantTransactionId={mtid}"
        else:
            path = f"/pay/v3/payments/{original}"
            body = f"{self.referenced[kind]}&merchantTransactionId={mtid}"
        started = time.perf_counter()
        try:
            status, _media, data = self.post(path, body, self.headers)
        except (OSError, http.client.HTTPException) as exc:
            self.error(record, f"{kind}: {exc!r}")
            return None
        elapsed_ms = (time.perf_counter() - started) * 1000
        payment_id = None
        try:
            answer = json.loads(data)
            code = answer["result"]["code"]
            if status == 200 and code == SUCCESS:
                payment_id = answer["id"]
        except (ValueError, KeyError, TypeError):
            code = "unparsable"
        if payment_id is None:
            self.error(record, f"{kind}: HTTP {status} code {code} {data[:300]!r}")
        elif record:
            self.lat[kind].append(elapsed_ms)
        return payment_id

    def run(self, measure_at: float, end_at: float, stop: Any) -> None:
        for _ in range(MAX_ITERATIONS_PER_CLIENT):
            now = time.time()
            if now >= end_at or stop.is_set():
                break
            record = now >= measure_at
            roll = self.rng.random()
            if roll < 0.80 or (roll >= 0.95 and not self.refundable):
                payment_id = self.pay("DB", record)
                if payment_id is not None and len(self.refundable) < 1000:
                    self.refundable.append(payment_id)
            elif roll < 0.95:
                pa = self.pay("PA", record)
                if pa is not None:
                    # The CP belongs to its PA: recorded if the PA was, even at the window's end.
                    self.pay("CP", record, original=pa)
            else:
                self.pay("RF", record, original=self.refundable.pop(0))
        self.close()

    def result(self) -> dict[str, Any]:
        return {"lat": self.lat, **self.counts()}


def run_threads(
    n: int, port: int, creds: dict[str, Any], start_at: float, measure_at: float, end_at: float,
    stop: Any, seed: int,
) -> list[dict[str, Any]]:  # fmt: skip
    clients = [Client(port, creds, seed * 1000 + i) for i in range(n)]

    def body(client: Client) -> None:
        delay = start_at - time.time()
        if delay > 0:
            time.sleep(delay)
        try:
            client.run(measure_at, end_at, stop)
        except Exception as exc:  # noqa: BLE001 - reported as an error, never silently lost
            client.errors += 1
            client.error_samples.append(f"client crashed: {exc!r}")

    threads = [threading.Thread(target=body, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    limit = time.time() + (end_at - time.time()) + 2 * REQUEST_TIMEOUT_S + 5
    for t in threads:
        t.join(timeout=max(0.0, limit - time.time()))
    return [c.result() for c in clients]


def client_process(
    n: int, port: int, creds: dict[str, Any], start_at: float, measure_at: float, end_at: float,
    stop: Any, seed: int, out: Any,
) -> None:  # fmt: skip
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop (stop event)
    out.put(run_threads(n, port, creds, start_at, measure_at, end_at, stop, seed))


# --- statistics ---------------------------------------------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    rank = max(0, min(len(sorted_values) - 1, int(round(q / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[rank]


def summarize(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "p50_ms": round(percentile(ordered, 50), 2),
        "p90_ms": round(percentile(ordered, 90), 2),
        "p99_ms": round(percentile(ordered, 99), 2),
        "max_ms": round(ordered[-1], 2) if ordered else 0.0,
        "mean_ms": round(sum(ordered) / len(ordered), 2) if ordered else 0.0,
    }


def machine_info(database_url: str) -> dict[str, Any]:
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    with contextlib.suppress(OSError, ValueError, IndexError):
        meminfo = Path("/proc/meminfo").read_text().splitlines()
        info["mem_total_mb"] = int(meminfo[0].split()[1]) // 1024
    with contextlib.suppress(Exception):
        import psycopg

        conn = psycopg.connect(connect_timeout=5, **_pg_params(database_url))
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT version()")
                version: Any = cur.fetchone()
                info["postgresql"] = version[0].split(" on ")[0]
                for name in ("synchronous_commit", "fsync", "shared_buffers", "max_connections"):
                    cur.execute(f"SHOW {name}")
                    shown: Any = cur.fetchone()
                    info[f"pg_{name}"] = shown[0]
        finally:
            conn.close()
    with contextlib.suppress(Exception):
        import gunicorn

        info["gunicorn"] = gunicorn.__version__
    return info


# --- load mode ----------------------------------------------------------------------------------


def run_load(args: argparse.Namespace, creds: dict[str, Any]) -> dict[str, Any]:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    port = args.port or free_port()
    log_path = RESULTS_DIR / f"gunicorn-{stamp}.log"
    gunicorn: subprocess.Popen[bytes] | None = None
    procs: list[Any] = []
    stop: Any = None
    try:
        gunicorn = start_gunicorn(
            database_url=args.database_url,
            workers=args.workers,
            port=port,
            access_log=args.access_log == "on",
            log_path=log_path,
        )
        started = time.monotonic()
        wait_healthy(port, gunicorn, HEALTH_TIMEOUT_S)
        print(
            f"gunicorn pid {gunicorn.pid} on 127.0.0.1:{port} with {args.workers} workers, "
            f"healthy after {time.monotonic() - started:.1f} s; log {log_path}"
        )
        start_at = time.time() + 1.0
        measure_at = start_at + args.warmup
        end_at = measure_at + args.duration
        results: list[dict[str, Any]] = []
        client_pids: list[int] = []
        if args.client_procs <= 1:
            stop = threading.Event()
            holder: list[list[dict[str, Any]]] = []
            runner = threading.Thread(
                target=lambda: holder.append(
                    run_threads(
                        args.concurrency, port, creds, start_at, measure_at, end_at, stop, 1
                    )
                ),
                daemon=True,
            )
            runner.start()
        else:
            ctx = multiprocessing.get_context("spawn")
            stop = ctx.Event()
            queue = ctx.Queue()
            shares = [
                args.concurrency // args.client_procs
                + (1 if i < args.concurrency % args.client_procs else 0)
                for i in range(args.client_procs)
            ]
            for i, share in enumerate(s for s in shares if s):
                proc = ctx.Process(
                    target=client_process,
                    args=(share, port, creds, start_at, measure_at, end_at, stop, i + 1, queue),
                    daemon=True,
                )
                proc.start()
                procs.append(proc)
            client_pids = [p.pid for p in procs if p.pid]
        print(
            f"load: {args.concurrency} clients ({max(1, args.client_procs)} process(es)), "
            f"warm-up {args.warmup:g} s, measuring {args.duration:g} s"
        )
        time.sleep(max(0.0, measure_at - time.time()))
        before = cpu_snapshot(gunicorn.pid, [os.getpid(), *client_pids])
        time.sleep(max(0.0, end_at - time.time()))
        after = cpu_snapshot(gunicorn.pid, [os.getpid(), *client_pids])
        cpu = cpu_usage(before, after, args.duration)
        collect_by = time.time() + 2 * REQUEST_TIMEOUT_S + 10
        if args.client_procs <= 1:
            runner.join(timeout=max(0.0, collect_by - time.time()))
            results = holder[0] if holder else []
        else:
            for _ in procs:
                with contextlib.suppress(Exception):
                    results.extend(queue.get(timeout=max(0.1, collect_by - time.time())))
    except KeyboardInterrupt:
        interrupted()
        raise
    finally:
        stop_all(stop, procs, gunicorn)
    return report(args, creds, results, cpu, stamp, port)


def report(
    args: argparse.Namespace,
    creds: dict[str, Any],
    results: list[dict[str, Any]],
    cpu: dict[str, Any],
    stamp: str,
    port: int,
) -> dict[str, Any]:
    per_kind = {kind: [v for r in results for v in r["lat"][kind]] for kind in KINDS}
    every = [v for values in per_kind.values() for v in values]
    errors = sum(r["errors"] for r in results)
    samples = [s for r in results for s in r["error_samples"]][:MAX_ERROR_SAMPLES]
    if len(results) != args.concurrency:
        errors += args.concurrency - len(results)
        samples.append(f"only {len(results)} of {args.concurrency} clients reported")
    overall = summarize(every)
    outcome = {
        "timestamp": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "concurrency": args.concurrency,
            "workers": args.workers,
            "client_procs": max(1, args.client_procs),
            "access_log": args.access_log,
            "database_url": args.database_url,
            "port": port,
            "mix": {"DB": 0.80, "PA+CP": 0.15, "RF": 0.05},
            "onus_percent": args.onus,
        },
        "machine": machine_info(args.database_url),
        "payments": len(every),
        "throughput_per_s": round(len(every) / args.duration, 1),
        **{k: v for k, v in overall.items() if k != "count"},
        "errors": errors,
        "error_samples": samples,
        "per_type": {kind: summarize(values) for kind, values in per_kind.items()},
        "connections_opened": sum(r["connects"] for r in results),
        "cpu_cores_used": cpu,
        "target": {"throughput_per_s": 500, "p99_ms": 20},
    }
    # CPU milliseconds each payment costs (gunicorn workers, PostgreSQL, this load generator):
    # steadier than throughput when other processes share the machine.
    if every:
        outcome["cpu_ms_per_payment"] = {
            group: round(cpu[group] * args.duration * 1000 / len(every), 2)
            for group in ("gunicorn", "postgres", "client")
            if group in cpu
        }
    outcome["target_met"] = (
        outcome["throughput_per_s"] >= 500 and outcome["p99_ms"] < 20 and errors == 0
    )
    path = RESULTS_DIR / f"{stamp}-w{args.workers}-c{args.concurrency}.json"
    path.write_text(json.dumps(outcome, indent=2) + "\n")
    print()
    print(
        f"workers={args.workers} concurrency={args.concurrency} "
        f"client_procs={max(1, args.client_procs)} duration={args.duration:g}s"
    )
    print(
        f"payments {outcome['payments']}  throughput {outcome['throughput_per_s']}/s  "
        f"p50 {outcome['p50_ms']} ms  p90 {outcome['p90_ms']} ms  p99 {outcome['p99_ms']} ms  "
        f"max {outcome['max_ms']} ms  errors {errors}"
    )
    for kind, stats in outcome["per_type"].items():
        print(
            f"  {kind}: {stats['count']:6d}  p50 {stats['p50_ms']:7.2f}  p99 {stats['p99_ms']:7.2f}"
            f"  max {stats['max_ms']:7.2f} ms"
        )
    print(f"  cpu (cores): {cpu}")
    print(f"  cpu ms per payment: {outcome.get('cpu_ms_per_payment')}")
    for sample in samples:
        print(f"  error: {sample}")
    print(f"target 500/s with p99 < 20 ms: {'MET' if outcome['target_met'] else 'not met'}")
    print(f"result: {path}")
    return outcome


# --- profile mode -------------------------------------------------------------------------------


# Functions whose inclusive time answers "where does the time go": label -> (file suffix, name)
# alternatives (the first that ran counts; names follow the code as it is refactored).
WHOLE_REQUEST = "whole request (test Client -> response)"
BREAKDOWN: dict[str, tuple[tuple[str, str], ...]] = {
    WHOLE_REQUEST: (("django/test/client.py", "request"),),
    "  DRF dispatch (the view; the middleware is around it)": (
        ("rest_framework/views.py", "dispatch"),
    ),
    "    DRF initial (parse body, authenticate)": (("rest_framework/views.py", "initial"),),
    "      form body parse + nesting (core.parsers)": (("core/parsers.py", "parse"),),
    "      entity token auth (core.auth)": (
        ("core/auth.py", "authenticate"),
        ("merchants/auth.py", "authenticate"),
    ),
    "    PaymentsView.post": (("payments/api/views.py", "post"),),
    "      PAYMENT.validate (core.tables)": (
        ("core/tables/table.py", "validate"),
        ("core/spec.py", "validate"),
    ),
    "      caller_for (merchant SELECT)": (("payments/api/views.py", "caller_for"),),
    "      request fingerprint (HMAC + sha256 of JSON)": (
        ("core/idempotency.py", "fingerprint"),
        ("payments/api/commands.py", "request_hash"),
        ("payments/api/views.py", "request_hash"),
    ),
    "      the use case (services)": (
        ("payments/services/engine.py", "submit"),
        ("payments/services.py", "payment_submit"),
    ),
    "        card source: cards.encrypt_pan (AES-GCM)": (("core/cards.py", "encrypt_pan"),),
    "        claim (the Payment built and INSERTed)": (
        ("payments/services/engine.py", "claim"),
        ("payments/services.py", "_new_payment"),
    ),
    "        risk.assess": (("payments/risk.py", "assess"),),
    "        connector routing (is the card on-us?)": (
        ("payments/connectors/routing.py", "connector_for"),
    ),
    "        simulator authorize": (("connectors/simulator.py", "authorize"),),
    "        finalize (lock, render, UPDATE)": (
        ("payments/services/engine.py", "finalize"),
        ("payments/services/engine.py", "finish"),
        ("payments/services.py", "finish_payment"),
    ),
    "          on-us: the issuer's Purchase": (("issuer/cards/onus.py", "authorize"),),
    "            its card by number": (("issuer/cards/selectors.py", "card_by_number"),),
    "            its ledger posting": (("issuer/ledger/services.py", "post"),),
    "            its CardTransaction row": (("issuer/cards/money/movement.py", "record"),),
    "          render.payment_body": (("payments/render.py", "payment_body"),),
    "  JSONRenderer.render (the answer's JSON, after the view)": (
        ("rest_framework/renderers.py", "render"),
    ),
    "ORM: SQLCompiler.as_sql (building SQL text)": (
        ("django/db/models/sql/compiler.py", "as_sql"),
    ),
    "ORM: Model.__init__ (row -> object)": (("django/db/models/base.py", "__init__"),),
    "psycopg Cursor.execute (round trip + server)": (("psycopg/cursor.py", "execute"),),
    "psycopg Connection.commit (WAL flush)": (("psycopg/connection.py", "commit"),),
}


def breakdown(stats: Any, count: int) -> dict[str, float]:
    """ms per payment for each BREAKDOWN entry (entries that never ran are left out)."""
    found: dict[str, float] = {}
    for (filename, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        for label, alternatives in BREAKDOWN.items():
            for suffix, wanted in alternatives:
                if suffix == "~":
                    hit = filename == "~" and name.startswith(wanted)
                else:
                    hit = name == wanted and filename.endswith(suffix)
                if hit:
                    # Several functions may share a name in one file: keep the largest.
                    found[label] = max(found.get(label, 0.0), ct * 1000 / count)
    return {label: found[label] for label in BREAKDOWN if label in found}


def cpu_split(stats: Any, count: int, cpu_ms: float) -> dict[str, float]:
    """CPU ms per payment for each BREAKDOWN entry: its share of the whole request in a profile
    timed by the process's CPU, applied to `cpu_ms`, the CPU one payment takes without the
    profiler (which inflates Python code, not C)."""
    found = breakdown(stats, count)
    whole = found.get(WHOLE_REQUEST)
    if not whole:
        return {}
    return {label: ms * cpu_ms / whole for label, ms in found.items()}


def run_profile(count: int, creds: dict[str, Any], out_path: Path | None = None) -> None:
    import cProfile
    import io
    import pstats

    from django.db import connection, reset_queries
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    from core import cards
    from payments.models import Payment
    from payments.render import payment_body

    client = DjangoClient()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {creds['token']}"}
    base = {
        "entityId": creds["entity_id"],
        "entityType": creds["entity_type"],
        "merchant.id": creds["merchant_id"],
        "amount": AMOUNT,
        "currency": "EUR",
    }

    # --onus PERCENT: that share of the DBs on the issuer's own cards, as the load run draws them.
    onus_cards_ = creds.get("onus_cards", []) if creds.get("onus_percent") else []
    onus_share, rng = float(creds.get("onus_percent", 0)) / 100, random.Random(0)

    def pay(kind: str, original: str | None = None) -> str:
        fields = {**base, "paymentType": kind, "merchantTransactionId": uuid.uuid4().hex}
        path = "/pay/v3/payments"
        if original is None and kind == "DB" and onus_cards_ and rng.random() < onus_share:
            fields.update(rng.choice(onus_cards_))
        elif original is None:
            fields.update(CARD)
        else:
            path = f"/pay/v3/payments/{original}"
        response = client.post(
            path,
            urlencode(fields),
            content_type="application/x-www-form-urlencoded",
            **auth,  # type: ignore[arg-type]
        )
        body = response.json()
        if response.status_code != 200 or body["result"]["code"] != SUCCESS:
            raise RuntimeError(f"{kind}: {response.status_code} {body}")
        return str(body["id"])

    for _ in range(20):  # warm-up: imports, caches, the connection
        pay("DB")

    print(
        "SQL per payment, counted from connection.queries (debug cursor, as under DEBUG; Django "
        "lists BEGIN and COMMIT too).\nNot counted here: gunicorn's per-request health check "
        "(CONN_HEALTH_CHECKS runs SELECT 1 on the first query of each request; the test Client "
        "skips it)."
    )
    originals = {"DB": pay("DB"), "PA": pay("PA")}
    for kind, original in (("DB", None), ("PA", None), ("CP", "PA"), ("RF", "DB")):
        timings: list[tuple[str, float]] = []

        def timed(
            execute: Any, sql: str, params: Any, many: bool, context: Any, timings: Any = timings
        ) -> Any:
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                timings.append((sql, (time.perf_counter() - started) * 1000))

        with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(timed):
            started = time.perf_counter()
            pay(kind, originals[original] if original else None)
            wall = (time.perf_counter() - started) * 1000
        statements = [q["sql"] for q in captured.captured_queries]
        sql_ms = sum(ms for _, ms in timings)
        print(
            f"  {kind}: {len(statements)} entries ({len(timings)} statements + "
            f"{len(statements) - len(timings)} BEGIN/COMMIT), {sql_ms:.2f} ms waiting on "
            f"execute() of {wall:.2f} ms wall"
        )
        if kind in ("DB", "CP"):
            for sql, ms in timings:  # a prepared statement's EXECUTE shown as its SQL
                print(f"      {ms:6.3f} ms  {sql[:110]}")
    reset_queries()

    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(count):
        pay("DB")
    plain_ms = (time.perf_counter() - started) * 1000 / count
    cpu_ms = (time.process_time() - cpu_started) * 1000 / count
    print(
        f"\n{count} DB payments in-process without profiler: {plain_ms:.2f} ms each, "
        f"{cpu_ms:.2f} ms of this process's CPU"
    )

    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    for _ in range(count):
        pay("DB")
    profiler.disable()
    profiled_ms = (time.perf_counter() - started) * 1000 / count
    print(f"{count} DB payments under cProfile: {profiled_ms:.2f} ms each\n")
    stats = pstats.Stats(profiler)
    # The same payments again, timed by this process's CPU: PostgreSQL's side of a statement is
    # not in it, and each stage's share of it is applied to the CPU measured without profiler.
    cpu_profiler = cProfile.Profile(time.process_time)
    cpu_profiler.enable()
    for _ in range(count):
        pay("DB")
    cpu_profiler.disable()
    cpu_stats = pstats.Stats(cpu_profiler)
    cpu_of = cpu_split(cpu_stats, count, cpu_ms)
    print(
        f"where one DB payment's time goes (inclusive): wall ms under cProfile, of "
        f"{profiled_ms:.2f}; CPU ms, its share of this process's CPU applied to the "
        f"{cpu_ms:.2f} ms without profiler"
    )
    print(f"  {'':58s} {'wall':>7s} {'CPU':>7s}")
    for label, ms in breakdown(stats, count).items():
        cpu = f"{cpu_of[label]:7.2f}" if label in cpu_of else " " * 7
        print(f"  {label:58s} {ms:7.2f} {cpu}")
    print()
    if out_path is not None:
        stats.dump_stats(out_path)
        print(f"raw profile: {out_path} (python -m pstats {out_path})\n")
    for order, limit in (("cumulative", 25), ("tottime", 20)):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order).print_stats(limit)
        text = out.getvalue()
        print(f"--- top {limit} by {order} time ---")
        print(text[text.find("   ncalls") :].rstrip() + "\n")

    print("micro-timings (mean of 2000 calls):")
    payment = Payment.objects.filter(payment_type="DB").select_related("merchant").first()
    micro = {
        "cards.encrypt_pan (AES-GCM)": lambda: cards.encrypt_pan(CARD["card.number"]),
        "cards.fingerprint (HMAC)": lambda: cards.fingerprint(CARD["card.number"]),
        "render.payment_body": lambda: payment_body(payment),
        "json.dumps(response body)": lambda: json.dumps(payment.response_body),  # type: ignore[union-attr]
        "uuid4().hex": lambda: uuid.uuid4().hex,
    }
    for name, call in micro.items():
        started = time.perf_counter()
        for _ in range(2000):
            call()
        print(f"  {name:32s} {(time.perf_counter() - started) / 2000 * 1e6:8.1f} us")
    with connection.cursor() as cur:
        started = time.perf_counter()
        for _ in range(500):
            cur.execute("SELECT 1")
        print(
            f"  {'SELECT 1 round trip':32s} {(time.perf_counter() - started) / 500 * 1e6:8.1f} us"
        )
    connection.close()
    started = time.perf_counter()
    connection.ensure_connection()
    print(f"  {'new PostgreSQL connection':32s} {(time.perf_counter() - started) * 1e6:8.1f} us")


# --- main ---------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0, help="unrecorded seconds first")
    parser.add_argument("--concurrency", type=int, default=16, help="client threads in all")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument(
        "--client-procs",
        type=int,
        default=1,
        help="spread the client threads over this many processes (1: threads in this process)",
    )
    parser.add_argument(
        "--access-log",
        choices=("off", "on"),
        default="off",
        help="on: keep the conf's access log (stdout, into the gunicorn log file)",
    )
    parser.add_argument(
        "--onus",
        type=float,
        default=0.0,
        metavar="PERCENT",
        help="share of the DBs and PAs paid with the platform's own issuer cards (on-us)",
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--fresh", action="store_true", help="drop and recreate the database")
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=300,
        default=None,
        metavar="N",
        help="profile N DB payments in-process (default 300) instead of the load run",
    )
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.duration > 3600 or args.warmup < 0 or args.warmup > 600:
        parser.error("--duration must be in (0, 3600] and --warmup in [0, 600]")
    if not 1 <= args.concurrency <= 512 or not 1 <= args.workers <= 64:
        parser.error("--concurrency must be 1..512 and --workers 1..64")
    if not 0 <= args.onus <= 100:
        parser.error("--onus must be 0..100")
    if args.profile is not None and not 1 <= args.profile <= 100_000:
        parser.error("--profile N must be 1..100000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def prepare() -> dict[str, Any]:
        ensure_database(args.database_url, fresh=args.fresh)
        django_setup(args.database_url)
        creds = migrate_and_seed()
        if args.onus:
            creds.update(onus_percent=args.onus, onus_cards=onus_cards())
        return creds

    def profile(creds: dict[str, Any]) -> None:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        run_profile(args.profile, creds, RESULTS_DIR / f"profile-{stamp}.prof")

    return run_main(
        prepare=prepare,
        profile=profile if args.profile is not None else None,
        load=lambda creds: run_load(args, creds),
    )


if __name__ == "__main__":
    sys.exit(main())
