"""A cluster on one machine (issue 36), for tests/faults/test_cluster.py and bench/cluster.py.

Each part is a process (or process group) of its own on a loopback port of its own, as on
separate machines, and none of them is the machine's own service:
- `PgBouncer` (Debian's pgbouncer, 1.18 here) in transaction mode between every process and the
  machine's PostgreSQL; it refuses to run as root, so as root it runs as the postgres user;
- web nodes: gunicorn with the production conf (bench._server.start_gunicorn), each its own
  session, reaching PostgreSQL through PgBouncer (`DB_TRANSACTION_POOLING=true`: nothing
  prepared, no server-side cursor);
- `HAProxy` (Debian's haproxy 2.6) running the repository's own deploy/haproxy/haproxy.cfg;
- the ISO 8583 network host (bench._server.start_network_host);
- Celery workers and one beat (`config.beat:LeaderScheduler`), when a Redis is given.

`cluster()` starts them in order and always stops them all.
"""

import contextlib
import csv
import io
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bench._server import (
    ROOT,
    SERVER_ENV,
    free_port,
    start_gunicorn,
    start_network_host,
    stop_process,
    wait_healthy,
    wait_workers,
)

HAPROXY_CONFIG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
WAIT_S = 30.0


def _binary(name: str) -> str:
    """Debian installs both in /usr/sbin, which a non-root PATH may lack."""
    return shutil.which(name) or f"/usr/sbin/{name}"


def missing_components() -> list[str]:
    """What Debian packages the cluster needs and this machine lacks (`.ci/run` installs them)."""
    return [name for name in ("haproxy", "pgbouncer") if not Path(_binary(name)).exists()]


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"{what} did not listen on {port}: {tail}")


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of these processes so far (Linux /proc; a process gone counts 0)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def group_pids(leader: int) -> list[int]:
    """Every process of the session `leader` started (a gunicorn master and its workers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.getsid(int(entry.name)) == leader:
                    pids.append(int(entry.name))
    return pids


def postgres_pids() -> list[int]:
    """The machine's PostgreSQL processes (its postmaster's children and itself)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                    out.append(int(entry.name))
    return out


# --- PgBouncer -----------------------------------------------------------------------------------


class PgBouncer:
    """PgBouncer in transaction mode on a free loopback port, to PostgreSQL at `upstream`.
    `stop()` is its immediate shutdown (SIGTERM: every client and server connection dropped, as
    a crash or a restart does); `start()` again on the same port."""

    def __init__(self, upstream: tuple[str, int], pool_size: int = 20) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="cluster-pgbouncer-"))
        self.log = self.dir / "pgbouncer.log"
        self.ini = self.dir / "pgbouncer.ini"
        # The upstream's own user, trusted as the machine's PostgreSQL trusts it on loopback.
        (self.dir / "userlist.txt").write_text('"postgres" ""\n')
        self.ini.write_text(
            "[databases]\n"
            f"* = host={upstream[0]} port={upstream[1]}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'userlist.txt'}\n"
            f"pool_mode = transaction\ndefault_pool_size = {pool_size}\n"
            "max_client_conn = 2000\nserver_reset_query =\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
            "admin_users = postgres\nlog_connections = 0\nlog_disconnections = 0\n"
        )
        self.process: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            postgres = pwd.getpwnam("postgres")
            for path in (self.dir, *self.dir.iterdir()):
                os.chown(path, postgres.pw_uid, postgres.pw_gid)

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgres://{user}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        cmd = [_binary("pgbouncer"), str(self.ini)]
        if os.geteuid() == 0:  # "PgBouncer should not run as root"
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        _wait_port(self.port, self.process, "PgBouncer", self.log)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # immediate shutdown
            try:
                self.process.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.process = None

    def pids(self) -> list[int]:
        return group_pids(self.process.pid) if self.process else []

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# --- HAProxy -------------------------------------------------------------------------------------


class HAProxy:
    """deploy/haproxy/haproxy.cfg on a free loopback port, in front of `nodes` (two)."""

    def __init__(self, nodes: list[int], log: Path, check_host: str = "127.0.0.1") -> None:
        assert len(nodes) == 2, "the configuration names two web nodes (the same one twice: one)"
        self.port = free_port()
        self.run_dir = Path(tempfile.mkdtemp(prefix="cluster-haproxy-"))
        self.log = log
        self.env = {
            **os.environ,
            "HAPROXY_BIND": f"127.0.0.1:{self.port}",
            "WEB1": f"127.0.0.1:{nodes[0]}",
            "WEB2": f"127.0.0.1:{nodes[1]}",
            "HAPROXY_ERRORS": str(HAPROXY_CONFIG.parent),
            "HAPROXY_RUN": str(self.run_dir),
            "HAPROXY_CHECK_HOST": check_host,
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [_binary("haproxy"), "-db", "-f", str(HAPROXY_CONFIG)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        _wait_port(self.port, self.process, "HAProxy", self.log)

    def command(self, line: str) -> str:
        """A line on the admin socket (`show stat`, `show servers state`), its answer."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(5)
            sock.connect(str(self.run_dir / "admin.sock"))
            sock.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def servers(self) -> dict[str, dict[str, str]]:
        """The web backend's servers: name -> `show stat` row (status UP/DOWN, stot, ...)."""
        text = self.command("show stat").lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == "web" and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def up(self) -> list[str]:
        """The servers taking requests: UP, or UP and failing checks ("UP 1/3") but not out yet."""
        return sorted(
            name for name, row in self.servers().items() if row["status"].startswith("UP")
        )

    def pids(self) -> list[int]:
        return group_pids(self.process.pid) if self.process else []

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.run_dir, ignore_errors=True)


# --- Celery --------------------------------------------------------------------------------------


def start_celery(
    role: str, *, name: str, env: Mapping[str, str], log: Path, concurrency: int = 2
) -> subprocess.Popen[bytes]:
    """A Celery worker (prefork, as deployed) or beat (the leader-lease scheduler), its own
    session, reading the queue CELERY_TASK_DEFAULT_QUEUE of `env`."""
    if role == "worker":
        args = ["worker", "--pool", "prefork", "-c", str(concurrency), "-n", f"{name}@%h"]
        args += ["-Q", env["CELERY_TASK_DEFAULT_QUEUE"], "--without-gossip", "--without-mingle"]
    else:
        args = ["beat", "--scheduler", "config.beat:LeaderScheduler"]
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", *args, "-l", "info"],
            cwd=ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to a process and everything of its session: a machine lost, with no goodbye."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=WAIT_S)


# --- the cluster ---------------------------------------------------------------------------------


@dataclass
class Node:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    def pids(self) -> list[int]:
        return group_pids(self.process.pid)


@dataclass
class Cluster:
    pgbouncer: PgBouncer
    network_port: int
    network: subprocess.Popen[bytes]
    nodes: list[Node]
    haproxy: HAProxy | None
    env: dict[str, str]
    logs: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    beat: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        """Where clients go: HAProxy, or the one node when there is no HAProxy."""
        return self.haproxy.port if self.haproxy else self.nodes[0].port

    def web_pids(self) -> list[int]:
        return [pid for node in self.nodes for pid in node.pids()]

    def restart(self, node: Node, workers: int) -> None:
        """Start `node` again on its port (after it was killed); `cluster()` stops it at the end
        as it stops the others."""
        assert node.process.poll() is not None, f"{node.name} still runs"
        node.process = start_gunicorn(
            database_url=self.env["DATABASE_URL"], workers=workers, port=node.port,
            log_path=self.logs / f"{node.name}-again.log", env=self.env,
        )  # fmt: skip
        wait_healthy(node.port, node.process, 60)
        wait_workers(node.process, workers, 60)


@contextlib.contextmanager
def cluster(
    *,
    upstream: tuple[str, int],
    database: str,
    logs: Path,
    nodes: int = 2,
    workers_per_node: int = 2,
    haproxy: bool = True,
    redis_url: str = "",
    celery_workers: int = 0,
    beat: bool = False,
    env: Mapping[str, str] | None = None,
    network_env: Mapping[str, str] | None = None,
    latency_ms: float = 0.0,
) -> Iterator[Cluster]:
    """Start the cluster; yields once HAProxy sees every node up; always stops everything."""
    logs.mkdir(parents=True, exist_ok=True)
    started: list[subprocess.Popen[bytes]] = []
    web: list[Node] = []
    bouncer = PgBouncer(upstream)
    proxy: HAProxy | None = None
    try:
        bouncer.start()
        network_port = free_port()
        network = start_network_host(
            port=network_port, log_path=logs / "network.log", latency_ms=latency_ms,
            env=network_env,
        )  # fmt: skip
        started.append(network)
        environment = {
            **SERVER_ENV,
            "DATABASE_URL": bouncer.url(database),
            "DB_TRANSACTION_POOLING": "true",
            "PAYMENTS_NETWORK_URL": f"iso8583://127.0.0.1:{network_port}",
            **({"REDIS_URL": redis_url} if redis_url else {}),
            **(env or {}),
        }
        for n in range(1, nodes + 1):
            port = free_port()
            proc = start_gunicorn(
                database_url=environment["DATABASE_URL"], workers=workers_per_node, port=port,
                log_path=logs / f"web{n}.log", env=environment,
            )  # fmt: skip
            web.append(Node(f"web{n}", port, proc))
        for node in web:
            wait_healthy(node.port, node.process, 60)
            wait_workers(node.process, workers_per_node, 60)
        if haproxy:
            proxy = HAProxy([node.port for node in web], logs / "haproxy.log")
            proxy.start()
            deadline = time.monotonic() + WAIT_S
            while len(proxy.up()) < nodes:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"HAProxy does not see the nodes up: {proxy.servers()}")
                time.sleep(0.1)
        result = Cluster(bouncer, network_port, network, web, proxy, environment, logs)
        for n in range(1, celery_workers + 1):
            worker = start_celery(
                "worker", name=f"worker{n}", env=environment, log=logs / f"worker{n}.log"
            )
            started.append(worker)
            result.workers.append(worker)
        if beat:
            result.beat = start_celery("beat", name="beat", env=environment, log=logs / "beat.log")
            started.append(result.beat)
        yield result
    finally:
        for proc in [*reversed(started), *(node.process for node in web)]:
            stop_process(proc, timeout=10)  # the nodes' current processes, restarted ones too
        if proxy is not None:
            proxy.close()
        bouncer.close()
