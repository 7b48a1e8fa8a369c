"""Notification deliveries per second: Celery workers posting outbox messages to a local
receiver (PostgreSQL and Redis; recorded in bench/README.md).

    .venv/bin/python bench/notifications.py --messages 3000 --workers 1
    .venv/bin/python bench/notifications.py --messages 3000 --workers 2

Sets up as bench/payments.py does (database, merchant with a notification URL), starts a
receiver on 127.0.0.1 that answers 200 at once (a thread pool in this process), starts a Celery
worker (`--concurrency N`, prefork, its own queue) on REDIS_URL, writes N messages through
`core.outbox.enqueue` in one transaction (so each goes to the worker after commit, as in
production), and measures from the commit until every message is DELIVERED (polled every
100 ms). Prints deliveries per second and the CPU each party used (from /proc).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# As in bench/payments.py: the project root first, not bench/.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench.payments import (  # noqa: E402 - after the sys.path fix above
    DEFAULT_DATABASE_URL,
    django_setup,
    ensure_database,
    migrate_and_seed,
)

ROOT = _BENCH.parent
TIMEOUT_S = 600.0


class Receiver:
    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.count += 1
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/notifications"


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in out.stdout.split()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (concurrency)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="no Celery: deliver the messages one by one in this process, under cProfile",
    )
    args = parser.parse_args()

    os.environ["REDIS_URL"] = args.redis_url
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    os.environ["CELERY_TASK_DEFAULT_QUEUE"] = queue
    ensure_database(args.database_url, fresh=False)
    django_setup(args.database_url)
    creds = migrate_and_seed()

    from django.db import transaction

    from core import outbox
    from core.models import OutboxMessage, OutboxStatus
    from merchants.models import Merchant

    receiver = Receiver()
    merchant = Merchant.objects.get(merchant_id=creds["merchant_id"])
    OutboxMessage.objects.filter(topic="bench").delete()
    if args.in_process:
        return in_process(args.messages, receiver, str(merchant.entity_id))

    env = {**os.environ, "CELERY_TASK_DEFAULT_QUEUE": queue}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-l", "warning"]
        + ["--concurrency", str(args.workers), "--without-heartbeat", "--without-gossip"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        time.sleep(3)  # the worker connects to Redis and forks its pool before the clock starts
        pids = [worker.pid, *children(worker.pid)]
        cpu_before = cpu_seconds(pids)
        own_before = cpu_seconds([os.getpid()])
        started = time.monotonic()
        with transaction.atomic():
            for n in range(args.messages):
                outbox.enqueue(
                    topic="bench",
                    subject=f"bench-{n}",
                    url=receiver.url,
                    credential=str(merchant.entity_id),
                    body={"n": n},
                )
        committed = time.monotonic()
        pending = OutboxMessage.objects.filter(topic="bench").exclude(status=OutboxStatus.DELIVERED)
        while pending.exists():
            if time.monotonic() - started > TIMEOUT_S:
                print(f"timed out with {pending.count()} undelivered", file=sys.stderr)
                return 1
            time.sleep(0.1)
        done = time.monotonic()
        worker_cpu = cpu_seconds([worker.pid, *children(worker.pid)]) - cpu_before
        own_cpu = cpu_seconds([os.getpid()]) - own_before
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()

    delivering = done - committed
    print(f"messages: {args.messages}, worker processes: {args.workers}")
    print(f"enqueue (one transaction, {args.messages} rows and tasks): {committed - started:.2f} s")
    print(
        f"delivery after commit: {delivering:.2f} s, {args.messages / delivering:.0f} deliveries/s"
    )
    print(f"received: {receiver.count}")
    print(
        f"CPU: worker processes {worker_cpu:.1f} s ({1000 * worker_cpu / args.messages:.2f} ms "
        f"per delivery), this process (enqueue, receiver, polling) {own_cpu:.1f} s"
    )
    return 0


def in_process(count: int, receiver: Receiver, credential: str) -> int:
    """Where the time of one delivery goes, without Celery: `outbox.deliver` in a loop."""
    import cProfile
    import io
    import pstats

    from django.db import transaction

    from core import outbox, tasks

    outbox.register_dispatcher(lambda event_id, *, attempts, eta: None)  # no task: run below
    try:
        with transaction.atomic():
            ids = [
                outbox.enqueue(
                    topic="bench",
                    subject=f"bench-{n}",
                    url=receiver.url,
                    credential=credential,
                    body={"n": n},
                ).pk
                for n in range(count)
            ]
    finally:
        outbox.register_dispatcher(tasks.hand_over)
    cpu, wall = time.process_time(), time.monotonic()
    profile = cProfile.Profile()
    profile.enable()
    for event_id in ids:
        outbox.deliver(event_id)
    profile.disable()
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    print(f"in process: {count / wall:.0f} deliveries/s under cProfile")
    print(f"CPU per delivery (this process, receiver included): {1000 * cpu / count:.2f} ms")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(15)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
