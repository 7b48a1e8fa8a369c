"""What the fault tests share (issue 22, "Survive it"): servers the test starts and breaks on
purpose, never the machine's own PostgreSQL or Redis.

- `TcpProxy`: a TCP proxy on a free loopback port in front of the machine's PostgreSQL. `cut()`
  closes every connection through it and refuses new ones (each is reset as it arrives), as a
  database restart or a network cut does to the platform; `restore()` lets them through again.
- `RedisServer`: a redis-server of the test's own on a free port (no persistence), which the
  test stops and starts again.
- `PaymentLoad`: client threads posting payments to gunicorn without a pause, each answer
  recorded (status, result code, when) and a failure to get one (a reset, a timeout) recorded as
  such: the load never retries, so nothing is hidden.

Waiting is polling with a deadline (`wait_until`), never a sleep that guesses.
"""

import contextlib
import json
import selectors
import shutil
import socket
import struct
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench._server import free_port, post_form
from tests.payments.conftest import card

WAIT_S = 30.0


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> float:
    """Poll `condition` until it holds; returns the seconds it took. Fails after `timeout`."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"timed out waiting for {what}"
        time.sleep(0.02)
    return time.monotonic() - started


def database_url(*, port: int) -> str:
    """The test database (tests/conftest.py url_of_test_database) reached on 127.0.0.1:`port`."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "", safe="")
    password = quote(db.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    return f"postgres://{auth}127.0.0.1:{port}/{quote(db['NAME'], safe='')}"


def database_address() -> tuple[str, int]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    return db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432)


# --- the proxy ---------------------------------------------------------------------------------


def _reset(sock: socket.socket) -> None:
    """Close with RST (SO_LINGER 0): the peer sees the connection refused or reset at once."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class TcpProxy:
    """A TCP proxy to `upstream` on 127.0.0.1:<free port>, one selector thread for everything."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = int(self.listener.getsockname()[1])
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, self._accept)
        self._wake_read, self._wake_write = socket.socketpair()
        self.selector.register(self._wake_read, selectors.EVENT_READ, self._commands)
        self._pending: list[tuple[Callable[[], None], threading.Event]] = []
        self._lock = threading.Lock()
        self.peers: dict[socket.socket, socket.socket] = {}
        self.is_cut = False
        self.connections = 0  # connections relayed
        self.refused = 0  # connections reset while cut
        self.dropped = 0  # open connections closed by a cut
        self._running = True
        self.thread = threading.Thread(target=self._run, name="db-proxy", daemon=True)
        self.thread.start()

    # the test's side: each command runs on the proxy's thread, and returns once it has
    def cut(self) -> None:
        self._call(self._cut)

    def restore(self) -> None:
        self._call(self._restore)

    def close(self) -> None:
        self._call(self._close_all)
        self._running = False
        self._wake_write.send(b"x")
        self.thread.join(timeout=5)
        self.listener.close()
        self._wake_read.close()
        self._wake_write.close()

    def _call(self, command: Callable[[], None]) -> None:
        done = threading.Event()
        with self._lock:
            self._pending.append((command, done))
        self._wake_write.send(b"x")
        assert done.wait(10), "the proxy's thread did not answer"

    # the proxy's thread
    def _run(self) -> None:
        while self._running:
            for key, _ in self.selector.select(timeout=1):
                if key.fileobj in (self.listener, self._wake_read) or key.fileobj in self.peers:
                    key.data(key.fileobj)

    def _commands(self, sock: socket.socket) -> None:
        sock.recv(4096)
        with self._lock:
            pending, self._pending = self._pending, []
        for command, done in pending:
            command()
            done.set()

    def _cut(self) -> None:
        self.is_cut = True
        self.dropped += len(self.peers) // 2
        self._close_all()

    def _restore(self) -> None:
        self.is_cut = False

    def _close_all(self) -> None:
        for sock in list(self.peers):
            self._drop(sock)

    def _accept(self, listener: socket.socket) -> None:
        client, _ = listener.accept()
        if self.is_cut:
            self.refused += 1
            _reset(client)
            return
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            _reset(client)
            return
        for sock in (client, server):
            sock.settimeout(10)  # a send blocks at most this long (loopback: never)
            self.selector.register(sock, selectors.EVENT_READ, self._relay)
        self.peers[client], self.peers[server] = server, client
        self.connections += 1

    def _relay(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
            if data:
                self.peers[sock].sendall(data)
                return
        except OSError:
            pass
        self._drop(sock)

    def _drop(self, sock: socket.socket) -> None:
        peer = self.peers.pop(sock, None)
        for one in (sock, peer):
            if one is None:
                continue
            self.peers.pop(one, None)
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(one)
            _reset(one)


# --- Redis of the test's own --------------------------------------------------------------------


class RedisServer:
    """redis-server on a free loopback port, no persistence (the broker loses what it held when
    stopped, as a Redis without its append-only file does)."""

    def __init__(self, log_path: Path) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        self.binary, self.log_path = binary, log_path
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
                + ["--save", "", "--appendonly", "no", "--daemonize", "no"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_until(self.answers, "redis-server to answer PING")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=WAIT_S)
        self.process = None

    def answers(self) -> bool:
        assert self.process is not None
        assert self.process.poll() is None, self.log_path.read_text()[-2000:]
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def redis_server_or_skip() -> None:
    import pytest

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on the PATH (the test starts a Redis of its own)")


# --- the load ------------------------------------------------------------------------------------


@dataclass
class Answer:
    sent: float  # time.monotonic()
    answered: float
    status: int | None  # None: no answer (reset, refused, timed out)
    code: str = ""
    payment_id: str = ""
    mtid: str = ""
    json: bool = False
    error: str = ""
    request: tuple[str, dict[str, str]] = ("", {})  # path and fields, to send them again


@dataclass
class PaymentLoad:
    """`clients` threads posting debits (or what `body` makes) to `path` until `stop()`."""

    port: int
    merchant: Any
    clients: int = 3
    path: str = "/pay/v3/payments"
    body: Callable[[], dict[str, str]] | None = None
    answers: list[Answer] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._client, name=f"load-{n}", daemon=True)
            for n in range(self.clients)
        ]

    def start(self) -> "PaymentLoad":
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=WAIT_S)

    def _client(self) -> None:
        while not self._stop.is_set():
            body = self.body() if self.body else debit()
            answer = send(self.port, self.merchant, self.path, body)
            with self._lock:
                self.answers.append(answer)

    def snapshot(self) -> list[Answer]:
        with self._lock:
            return list(self.answers)

    def count(self, predicate: Callable[[Answer], bool], since: float = 0.0) -> int:
        return sum(1 for a in self.snapshot() if a.sent >= since and predicate(a))


def debit(number: str = "4200000000000000", amount: str = "10.00") -> dict[str, str]:
    return {
        "paymentType": "DB",
        "amount": amount,
        "currency": "EUR",
        "merchantTransactionId": uuid.uuid4().hex,
        **card(number),
    }


def send(port: int, merchant: Any, path: str, fields: dict[str, str]) -> Answer:
    """One request as the merchant; an answer that is not the envelope is kept as it came."""
    body = {
        "entityId": merchant.entity.entity_id,
        "entityType": "MERCHANT",
        "merchant.id": merchant.merchant_id,
        **fields,
    }
    sent, request = time.monotonic(), (path, fields)
    try:
        status, data = post_form(port, path, body, merchant.entity.plain_token)
    except json.JSONDecodeError as exc:
        return Answer(sent, time.monotonic(), -1, error=f"not JSON: {exc}", request=request)
    except OSError as exc:
        return Answer(sent, time.monotonic(), None, error=repr(exc), request=request)
    result = data.get("result") or {}
    return Answer(
        sent,
        time.monotonic(),
        status,
        code=str(result.get("code", "")),
        payment_id=str(data.get("id", "")),
        mtid=fields.get("merchantTransactionId", ""),
        json=True,
        request=request,
    )


def in_background(call: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """Run `call` on a thread; the list receives its result."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    return thread, out


@contextlib.contextmanager
def closing_all(*closers: Callable[[], None]) -> Iterator[None]:
    try:
        yield
    finally:
        for close in closers:
            with contextlib.suppress(Exception):
                close()


# --- a Celery worker on the test's broker --------------------------------------------------------


@contextlib.contextmanager
def celery_worker(log_path: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """A Celery worker (solo pool) on the test database, reading the queue and broker `env`
    names (CELERY_TASK_DEFAULT_QUEUE, REDIS_URL): unlike tests/core/workers.py it needs no
    broker of the machine's. Killed at the end if it still runs."""
    import os
    import sys

    from tests.conftest import url_of_test_database
    from tests.core.workers import LOOPBACK_RECEIVERS

    environment = {
        **os.environ,
        "DJANGO_DEBUG": "false",
        **LOOPBACK_RECEIVERS,
        "DATABASE_URL": url_of_test_database(),
        **env,
    }
    with log_path.open("ab") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo"]
            + ["-Q", env["CELERY_TASK_DEFAULT_QUEUE"], "-l", "info"]
            + ["--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=Path(__file__).resolve().parents[2],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield worker
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=WAIT_S)


def send_task(broker_url: str, queue: str, name: str, *args: Any) -> None:
    """Send task `name` to `queue` on `broker_url`, as beat sends it (not the session's broker)."""
    from config.celery import app

    with app.connection_for_write(broker_url) as conn:
        app.send_task(name, args=args, queue=queue, connection=conn)
