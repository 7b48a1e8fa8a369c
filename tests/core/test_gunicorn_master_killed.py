"""A gunicorn whose master is killed leaves no workers behind (issue 32): each worker gets
SIGTERM from the kernel as its master dies (config/gunicorn.conf.py, PR_SET_PDEATHSIG), ends,
and releases the listening socket, so the supervisor's new gunicorn binds the same port."""

import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from tests.core.test_gunicorn_instances import gunicorn, host_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_workers_die_with_their_master_and_the_port_is_free_again(tmp_path):
    env = {**host_env(tmp_path), "WEB_CONCURRENCY": "2"}
    with gunicorn(env, tmp_path / "gunicorn.log") as (port, proc):
        deadline = time.monotonic() + 30
        while len(workers := children(proc.pid)) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers):
            assert time.monotonic() < deadline, f"orphaned workers: {workers}"
            time.sleep(0.05)
        with socket.socket() as again:  # what a restarted master does
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))
