"""Two gunicorns from config/gunicorn.conf.py on one host, at once.

gunicorn's control socket defaults to one path per user ($XDG_RUNTIME_DIR/gunicorn.ctl, else
~/.gunicorn/gunicorn.ctl): the second instance would take it over and stopping either would
delete it. The conf turns it off unless GUNICORN_CONTROL_SOCKET names the instance's own path.
Both instances here share one XDG_RUNTIME_DIR and HOME, as two services of one user do.
"""

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUNICORNC = Path(sys.executable).with_name("gunicornc")
START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthz(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def host_env(tmp_path: Path) -> dict[str, str]:
    """One user's environment on the host: a shared runtime dir and home, an empty database."""
    (tmp_path / "run").mkdir(exist_ok=True, mode=0o700)
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "GUNICORN_CONTROL_SOCKET"}
    env.update(
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        HOME=str(tmp_path / "home"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        WEB_CONCURRENCY="1",
        LOG_LEVEL="WARNING",
    )
    env.pop("REDIS_URL", None)  # /healthz then needs no broker
    return env


@contextlib.contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    cmd = [
        sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py",
        "--bind", f"127.0.0.1:{port}", "--access-logfile", "/dev/null", "config.wsgi",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert proc.poll() is None, f"gunicorn exited early:\n{log.read_text()[-3000:]}"
            with contextlib.suppress(OSError):
                if healthz(port) == 200:
                    break
            assert time.monotonic() < deadline, f"no /healthz 200:\n{log.read_text()[-3000:]}"
            time.sleep(0.1)
        yield port, proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: this gunicorn only
            proc.wait(timeout=5)


def test_two_instances_run_at_once_and_share_no_control_socket(tmp_path):
    env = host_env(tmp_path)
    with (
        gunicorn(env, tmp_path / "a.log") as (port_a, proc_a),
        gunicorn(env, tmp_path / "b.log") as (port_b, _),
    ):
        assert healthz(port_a) == healthz(port_b) == 200
        shared = [tmp_path / "run" / "gunicorn.ctl", tmp_path / "home" / ".gunicorn"]
        assert not any(path.exists() for path in shared), "a per-user control socket was opened"
        stop(proc_a)
        assert proc_a.returncode == 0
        assert healthz(port_b) == 200
    for name in ("a.log", "b.log"):
        assert "Control socket listening" not in (tmp_path / name).read_text()


def test_an_instance_given_its_own_control_socket_answers_for_itself(tmp_path):
    env = host_env(tmp_path)
    sockets = [tmp_path / "run" / "web-a.ctl", tmp_path / "run" / "web-b.ctl"]
    with (
        gunicorn({**env, "GUNICORN_CONTROL_SOCKET": str(sockets[0])}, tmp_path / "a.log") as a,
        gunicorn({**env, "GUNICORN_CONTROL_SOCKET": str(sockets[1])}, tmp_path / "b.log") as b,
    ):
        for path, (port, _) in zip(sockets, (a, b), strict=True):
            for _ in range(50):  # the socket thread starts just after the workers
                if path.exists():
                    break
                time.sleep(0.1)
            done = subprocess.run(
                [str(GUNICORNC), "-s", str(path), "-c", "show config", "-j"],
                capture_output=True, text=True, timeout=30, env=env,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert f"127.0.0.1:{port}" in json.dumps(json.loads(done.stdout)["bind"])
        assert not (tmp_path / "run" / "gunicorn.ctl").exists()
