"""gunicorn reloaded (HUP) and restarted in place (USR2, then TERM of the old master) under a
steady load of debits: no request fails (issue 22, "Survive it").

gunicorn runs from its console script (as in production: a master re-executed by USR2 runs the
same command line) with the production conf and a pid file. Three clients post debits without a
pause and never retry; every request must be answered 200 with an approval.

- HUP: the master starts new workers, then stops the old ones gracefully (each finishes the
  request it holds); the listening socket never closes.
- Rolling restart: USR2 has the master start a new master (the same command line, so new code)
  on the same listening socket, which starts its own workers; then TERM to the old master stops
  it and its workers gracefully. (gunicorn's WINCH, which stops a master's workers first, only
  works for a daemonized master, and QUIT stops workers at once, mid-request.)
Figures printed (`-s`), kept in docs/operations.md, "Faults".
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from django.db import connection

from bench._server import SERVER_ENV, free_port, wait_healthy, worker_pids
from tests.conftest import url_of_test_database
from tests.factories import MerchantFactory
from tests.faults.tools import WAIT_S, Answer, PaymentLoad, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
WORKERS = 2


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): SQLite serialises the writers")


def ok(answer: Answer) -> bool:
    return (answer.status, answer.code) == (200, "000.000.000")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def read_pid(path: Path) -> int:
    with contextlib.suppress(FileNotFoundError, ValueError):
        return int(path.read_text().strip() or 0)
    return 0


def test_a_reload_and_a_rolling_restart_fail_no_request(tmp_path: Path, server_keys):
    merchant = MerchantFactory()
    port, pidfile, log = free_port(), tmp_path / "gunicorn.pid", tmp_path / "gunicorn.log"
    env = {
        **os.environ,
        **SERVER_ENV,
        **server_keys,
        "DATABASE_URL": url_of_test_database(),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
    }
    cmd = [
        str(GUNICORN), "-c", "config/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}",
        "--workers", str(WORKERS), "--pid", str(pidfile), "--log-level", "info",
        "--access-logfile", "/dev/null", "config.wsgi",
    ]  # fmt: skip
    with log.open("ab") as out:
        old = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    new_master = 0
    load = PaymentLoad(port, merchant, clients=3)
    try:
        wait_healthy(port, old, 60)
        wait_until(lambda: len(worker_pids(old.pid)) == WORKERS, "the workers")
        load.start()
        wait_until(lambda: load.count(ok) >= 5, "debits before the reload")

        # HUP: new workers, the old ones stopped gracefully.
        before = set(worker_pids(old.pid))
        hup_at = time.monotonic()
        os.kill(old.pid, signal.SIGHUP)

        def replaced() -> bool:
            now = set(worker_pids(old.pid))
            return len(now) == WORKERS and not now & before and not any(map(alive, before))

        reloaded = wait_until(replaced, "the old workers replaced")
        after_hup = time.monotonic()
        wait_until(lambda: load.count(ok, since=after_hup) >= 5, "debits after the reload")

        # USR2: a new master on the same socket; then TERM to the old one.
        usr2_at = time.monotonic()
        os.kill(old.pid, signal.SIGUSR2)

        # The new master writes `<pid file>.2` while the old one runs (gunicorn.arbiter).
        second = pidfile.with_name(pidfile.name + ".2")

        def new_master_serving() -> bool:
            pid = read_pid(second)
            return pid != 0 and len(worker_pids(pid)) == WORKERS

        wait_until(new_master_serving, "the new master and its workers", timeout=60)
        new_master = read_pid(second)
        both_at = time.monotonic()  # both masters accept on the one socket
        wait_until(lambda: load.count(ok, since=both_at) >= 3, "debits while both serve")
        old.send_signal(signal.SIGTERM)
        old.wait(timeout=WAIT_S)
        restarted = time.monotonic() - usr2_at
        assert old.returncode == 0
        # Promoted once the old master is gone: the pid file names it again.
        wait_until(lambda: read_pid(pidfile) == new_master, "the new master promoted")
        after_restart = time.monotonic()
        wait_until(lambda: load.count(ok, since=after_restart) >= 5, "debits after the restart")
        assert alive(new_master) and len(worker_pids(new_master)) == WORKERS
    finally:
        load.stop()
        for pid in (new_master, old.pid):
            with contextlib.suppress(ProcessLookupError):
                if pid:
                    os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            old.wait(timeout=WAIT_S)
        if new_master:
            with contextlib.suppress(AssertionError):
                wait_until(lambda: not alive(new_master), "the new master to stop")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(old.pid, signal.SIGKILL)  # its own session: only this test's gunicorns

    answers = load.snapshot()
    failed = [a for a in answers if not ok(a)]
    assert not failed, (Counter((a.status, a.code, a.error[:60]) for a in failed), log.read_text())
    slowest = max(a.answered - a.sent for a in answers)
    during_hup = sum(1 for a in answers if hup_at <= a.sent < after_hup)
    during_restart = sum(1 for a in answers if usr2_at <= a.sent < after_restart)
    print(
        f"\n{len(answers)} debits by 3 clients, 0 failed: HUP replaced both workers in "
        f"{reloaded:.1f} s ({during_hup} debits sent meanwhile); USR2 + TERM of the old master "
        f"took {restarted:.1f} s ({during_restart} debits sent meanwhile); slowest answer "
        f"{slowest:.2f} s"
    )
