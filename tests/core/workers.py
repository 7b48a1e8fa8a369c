"""What the tests of outbound notifications with a real Celery worker share: a receiver on
loopback, a worker process the test controls, and polling with a deadline (never a sleep to
guess). tests/core/test_outbox_worker.py and tests/tokenization/test_worker_killed.py."""

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import url_of_test_database

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 30.0
# The receivers are plain HTTP on 127.0.0.1, which only local testing may call (core/outbound.py).
LOOPBACK_RECEIVERS = {"NOTIFICATION_ALLOW_INSECURE_URLS": "true"}


class Receiver:
    """A merchant's notification endpoint on 127.0.0.1: answers `statuses` in turn (then 200)
    and records every request (headers, JSON body and `at`, its time.monotonic()). With
    `hold_first`, the first request is held open until `released` is set (a test kills its
    sender meanwhile)."""

    def __init__(self, statuses: list[int] | None = None, hold_first: bool = False):
        self.statuses = list(statuses or [])
        self.requests: list[dict[str, Any]] = []
        self.released = threading.Event()
        self.hold_first = hold_first
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                sealed = (self.headers.get("Content-Type") or "").startswith("text/plain")
                body = None if sealed else json.loads(raw)  # a webhook's is hex ciphertext
                receiver.requests.append(
                    {
                        "headers": dict(self.headers),
                        "body": body,
                        "raw": raw,
                        "at": time.monotonic(),
                    }
                )
                if receiver.hold_first and len(receiver.requests) == 1:
                    receiver.released.wait(30)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/plain")
                    self.end_headers()
                    self.wfile.write(b"ok" if status == 200 else b"try later")
                except OSError:
                    pass  # the sender is gone

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/notifications"

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def require_postgres_and_redis() -> None:
    """A worker in another process needs a database it can share (PostgreSQL) and a broker."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@contextlib.contextmanager
def celery_worker(
    log_path: Path, env: dict[str, str], loglevel: str = "warning"
) -> Iterator[subprocess.Popen[bytes]]:
    """A Celery worker (solo pool, no beat) in a process of its own, on this session's test
    database and Redis, reading a queue of its own: this process sends its tasks there while the
    block runs. `env` adds to the worker's environment (the server keys, settings under test).
    Yields the process (a test may kill it); killed at the end if it still runs."""
    from config.celery import app

    require_postgres_and_redis()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    env = {
        **os.environ,
        "DJANGO_DEBUG": "false",
        **LOOPBACK_RECEIVERS,
        "DATABASE_URL": url_of_test_database(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        **env,
    }
    log = log_path.open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo"]
        + ["-Q", queue, "-l", loglevel, "--without-heartbeat", "--without-gossip"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield worker
    except BaseException:
        # What the worker said, beside the failure: a test that times out waiting shows why.
        log.flush()
        print(f"--- worker log (queue {queue}), last 6000 characters ---")
        print(log_path.read_text(errors="replace")[-6000:])
        raise
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=WAIT_S)
        log.close()
        app.conf.task_default_queue = previous
