"""Start and stop the platform under gunicorn for the benchmarks and the multi-process tests.

One place for what bench/payments.py, bench/issuer.py and the gunicorn tests
(tests/payments/test_gunicorn_captures.py, test_worker_killed.py) all need: a free loopback
port, gunicorn with the production conf (config/gunicorn.conf.py: gthread workers, preload,
gc.freeze after fork) in its own session, /healthz before the first request, a graceful stop
that falls back to SIGKILL of the session, and the workers' pids; and the ISO 8583 network host
(`manage.py network_host`) for bench/network.py and tests/faults/test_network_faults.py.
"""

import base64
import contextlib
import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
# gunicorn runs as in production: DEBUG off, which refuses the public development keys
# (config/settings.py), so every caller brings keys of its own (`use_bench_keys`, or the tests'
# `server_keys` fixture).
SERVER_ENV = {"DJANGO_DEBUG": "false", "LOG_LEVEL": "WARNING"}


def use_bench_keys() -> None:
    """Unless the environment brings its own, the benchmarks use keys made once for their
    synthetic databases and kept in bench/results/ (git-ignored, 0600), so a later run can still
    read what an earlier one encrypted; gunicorn inherits them."""
    path = RESULTS_DIR / "bench-keys.json"
    if not path.exists():
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        kid = f"bench{time.strftime('%Y%m%d%H%M%S')}"
        made = {
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "VAULT_KEYS": f"{kid}:{base64.b64encode(os.urandom(32)).decode()}",
            "VAULT_ACTIVE_KEY_ID": kid,
            "CARD_FINGERPRINT_KEY": secrets.token_urlsafe(32),
            "ISSUER_CARD_VERIFICATION_KEY": base64.b64encode(os.urandom(32)).decode(),
        }
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(made, handle, indent=2)
    keys = json.loads(path.read_text())
    if "ISSUER_CARD_VERIFICATION_KEY" not in keys:  # a file made before issue 14
        keys["ISSUER_CARD_VERIFICATION_KEY"] = base64.b64encode(os.urandom(32)).decode()
        path.write_text(json.dumps(keys, indent=2))
    if "VAULT_KEYS" in os.environ:  # the environment's vault keys come as a pair
        keys.pop("VAULT_KEYS"), keys.pop("VAULT_ACTIVE_KEY_ID")
    for name, value in keys.items():
        os.environ.setdefault(name, value)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_status(port: int, path: str, timeout: float = 2.0, host: str = "") -> int:
    """GET `path`'s status; with `host`, as a client of that site over TLS would send it (a node
    with DJANGO_ALLOWED_HOSTS and DJANGO_BEHIND_TLS_PROXY refuses anything else)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Host": host, "X-Forwarded-Proto": "https"} if host else {}
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def post_form(
    port: int, path: str, fields: Mapping[str, str], token: str, timeout: float = 20.0
) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            path,
            body=urlencode(fields),
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def start_gunicorn(
    *,
    database_url: str,
    workers: int,
    port: int,
    log_path: Path,
    access_log: bool = False,
    env: Mapping[str, str] | None = None,
    app: str = "config.wsgi",
) -> subprocess.Popen[bytes]:
    """gunicorn in its own session (Ctrl-C reaches only the caller, who stops it in order).
    `app`: the WSGI module; bench/compare.py serves its reference project
    (bench.reference.wsgi) with the same conf."""
    environment = {
        **os.environ,
        **SERVER_ENV,
        "DATABASE_URL": database_url,
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        **(env or {}),
    }
    cmd = [
        sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py",
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--log-level", "warning",
    ]  # fmt: skip
    if not access_log:
        cmd += ["--access-logfile", "/dev/null"]  # the conf logs every request to stdout
    cmd.append(app)
    log = open(log_path, "ab")  # noqa: SIM115 - the child keeps its own handle
    try:
        return subprocess.Popen(
            cmd, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    finally:
        log.close()


def start_network_host(
    *,
    port: int,
    log_path: Path,
    latency_ms: float = 0.0,
    jitter_ms: float = 0.0,
    seed: int = 1,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> subprocess.Popen[bytes]:
    """`manage.py network_host` (the far end of the ISO 8583 link) on `port`, in its own
    session, its output appended to `log_path`; answers once it takes connections."""
    cmd = [
        sys.executable, "manage.py", "network_host", "--port", str(port),
        "--latency-ms", str(latency_ms), "--jitter-ms", str(jitter_ms), "--seed", str(seed),
    ]  # fmt: skip
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    stop_process(proc, timeout=5)
    raise RuntimeError(f"the network host did not listen on {port}: {log_path.read_text()[-2000:]}")


def wait_healthy(port: int, proc: subprocess.Popen[bytes], timeout: float, host: str = "") -> None:
    deadline = time.monotonic() + timeout
    last = "no answer"
    for _ in range(int(timeout / 0.1) + 1):
        if time.monotonic() > deadline:
            break
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode} before /healthz answered")
        try:
            status = get_status(port, "/healthz", host=host)
            if status == 200:
                return
            last = f"HTTP {status}"
        except OSError as exc:
            last = repr(exc)
        time.sleep(0.1)
    raise RuntimeError(f"/healthz did not answer 200 within {timeout:.0f} s ({last})")


def stop_process(proc: subprocess.Popen[bytes] | None, timeout: float = 15.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)  # gunicorn: graceful stop of master and workers
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: only gunicorn's processes
        proc.wait(timeout=5)


def worker_pids(master_pid: int) -> list[int]:
    """The gunicorn workers: the master's children (Linux /proc)."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def wait_workers(proc: subprocess.Popen[bytes], workers: int, timeout: float) -> None:
    """Until the master has forked all its workers: /healthz answers as soon as the first one
    serves, and a caller that records the workers' pids wants every one of them."""
    deadline = time.monotonic() + timeout
    while len(worker_pids(proc.pid)) < workers:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"gunicorn did not start its {workers} workers within {timeout} s")
        time.sleep(0.05)


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def workers(self) -> list[int]:
        return worker_pids(self.process.pid)


@contextlib.contextmanager
def gunicorn(
    *,
    database_url: str,
    workers: int,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    access_log: bool = False,
    health_timeout: float = 60.0,
    health_host: str = "",
) -> Iterator[Server]:
    """gunicorn on a free loopback port; yields once /healthz answers 200, always stops it."""
    port = free_port()
    proc = start_gunicorn(
        database_url=database_url,
        workers=workers,
        port=port,
        log_path=log_path,
        access_log=access_log,
        env=env,
    )
    try:
        try:
            wait_healthy(port, proc, health_timeout, health_host)
            wait_workers(proc, workers, health_timeout)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{log_path.read_text()[-3000:]}") from None
        yield Server(port, proc)
    finally:
        stop_process(proc, timeout=10)
