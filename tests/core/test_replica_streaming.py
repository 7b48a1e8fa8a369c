"""Portal pages answered by a real streaming replica while the primary cannot answer them (issue
36, part 2; docs/operations.md, "Reads from a replica").

The test makes its own pair of PostgreSQL clusters on loopback ports of their own (the machine's
shared server allows no replication): a primary made by `initdb`, the test database's schema
copied into it (`pg_dump | psql`), and a hot standby made from it by `pg_basebackup`, streaming.
The platform runs under gunicorn against the primary with DATABASE_REPLICA_URL pointing at the
standby; a merchant, its portal user and three payments (made through the payment API) are on
the primary only.

The outage is the realistic one: a transaction left idle on the primary holds a read lock on
payments_payment and an `ALTER TABLE payments_payment` queues behind it for its exclusive lock.
Nothing reaches the WAL, so the standby is untouched, while every new read of the table on the
primary queues behind the ALTER: a read with a lock timeout of 1 s fails with one, and the
payment's own page (it reads the primary) waits. Meanwhile the overview and the transactions
list answer 200 with the three payments, read from the standby. Once the ALTER is cancelled and
the idle transaction ends, the payment's own page answers too.

Then the lag as a merchant meets it: a payment made after that shows on the transactions list
within a fraction of a second (printed with `-s`); with the standby's replay paused, a new
payment is missing from the list while its own page shows it, and appears once replay resumes.

Run it: DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardplatform pytest -s
tests/core/test_replica_streaming.py (as root the clusters run as the postgres user; PostgreSQL
refuses root).
"""

import contextlib
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from glob import glob
from pathlib import Path
from typing import Any

import psycopg
import pytest
import requests
from django.conf import settings
from django.db import connection

from bench._server import ROOT, free_port, gunicorn, post_form
from tests.payments.conftest import card

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.long,
    pytest.mark.django_db(transaction=True),
]

DATABASE = "cardplatform"
EMAIL = "shop@example.com"
PASSWORD = "a long portal passphrase 7"
PAGE_TIMEOUT = 10.0
LAG_LIMIT = 10.0
# Small and fast: nothing here has to survive a crash of the machine.
SERVER_OPTIONS = (
    "-c listen_addresses=127.0.0.1 -c wal_level=replica -c max_wal_senders=4 -c fsync=off "
    "-c full_page_writes=off -c shared_buffers=16MB "
    "-c max_connections=40"
)


def _postgres_bin() -> Path | None:
    """The newest PostgreSQL's programs (/usr/lib/postgresql/<version>/bin), if any."""
    found = [Path(path).parent for path in glob("/usr/lib/postgresql/*/bin/initdb")]
    return max(found, key=lambda folder: int(folder.parent.name), default=None)


BIN = _postgres_bin()


def program(name: str) -> str:
    assert BIN is not None
    return str(BIN / name)


@pytest.fixture(autouse=True)
def _possible() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the test copies its schema")
    if BIN is None:
        pytest.skip("needs PostgreSQL's server programs (/usr/lib/postgresql/*/bin/initdb)")


def as_postgres(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run its server as root: as root, run it as the postgres user."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def run(cmd: list[str], what: str, logs: Callable[[], str] = str, **kwargs: Any) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, **kwargs)
    if done.returncode != 0:
        pytest.fail(f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n{logs()}")
    return done.stdout


@dataclass
class Cluster:
    name: str
    data: Path
    port: int

    @property
    def log(self) -> Path:
        return self.data.parent / f"{self.name}.log"

    def url(self, database: str = DATABASE) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def tail(self) -> str:
        text = self.log.read_text() if self.log.exists() else "(no log)"
        return f"--- {self.name}'s log:\n{text[-3000:]}"

    def start(self, logs: Callable[[], str]) -> None:
        options = f"-p {self.port} -k {self.data.parent} {SERVER_OPTIONS}"
        pg_ctl = [program("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w"]
        run(as_postgres([*pg_ctl, "-t", "30", "-o", options, "start"]), f"the {self.name}", logs)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            pg_ctl = [program("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
            subprocess.run(as_postgres(pg_ctl), capture_output=True, timeout=30, check=False)


@pytest.fixture
def clusters() -> Iterator[tuple[Cluster, Cluster]]:
    """A primary with the test database's schema and a hot standby streaming from it; both
    stopped and their folder removed at the end, whatever happened."""
    root = Path(tempfile.mkdtemp(prefix="replica-test-"))  # pytest's tmp_path is root's alone
    if os.geteuid() == 0:
        postgres = pwd.getpwnam("postgres")
        os.chown(root, postgres.pw_uid, postgres.pw_gid)
    primary = Cluster("primary", root / "primary", free_port())
    replica = Cluster("replica", root / "replica", free_port())

    def logs() -> str:
        return "\n".join(cluster.tail() for cluster in (primary, replica))

    try:
        initdb = [program("initdb"), "-D", str(primary.data), "-A", "trust", "-U", "postgres"]
        run(as_postgres([*initdb, "-E", "UTF8", "--locale=C", "--no-sync"]), "initdb", logs)
        hba = primary.data / "pg_hba.conf"
        replication = r"^host\s+replication\s+all\s+127\.0\.0\.1/32\s+trust"
        if not re.search(replication, hba.read_text(), re.M):  # initdb -A trust writes it
            with hba.open("a") as lines:
                lines.write("host replication all 127.0.0.1/32 trust\n")
        primary.start(logs)
        copy_schema(into=primary, logs=logs)
        # -c fast: a checkpoint at once (the default, spread, takes minutes on an idle server)
        basebackup = [program("pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port)]
        basebackup += ["-U", "postgres", "-D", str(replica.data), "-R", "-X", "stream"]
        basebackup += ["-c", "fast"]
        run(as_postgres(basebackup), "pg_basebackup", logs)
        replica.start(logs)
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            streaming = "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
            wait_until(lambda: one(conn, streaming) == 1, "the replica streaming", logs=logs)
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(root, ignore_errors=True)


def copy_schema(*, into: Cluster, logs: Callable[[], str]) -> None:
    """The test database (migrated by pytest-django) as the primary's `cardplatform`."""
    db = settings.DATABASES["default"]
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    source = ["-h", db.get("HOST") or "127.0.0.1", "-p", str(db.get("PORT") or 5432)]
    source += ["-U", db.get("USER") or "postgres"]
    run(
        [program("psql"), "-X", "-q", into.url("postgres"), "-c", f"CREATE DATABASE {DATABASE}"],
        "createdb",
        logs,
    )
    dump = subprocess.Popen(
        [program("pg_dump"), *source, "--no-owner", "--no-privileges", db["NAME"]],
        stdout=subprocess.PIPE,
        env=env,
    )
    assert dump.stdout is not None
    try:
        psql = [program("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", into.url()]
        run(psql, "loading the schema", logs, stdin=dump.stdout)
    finally:
        dump.stdout.close()
        dumped = dump.wait(timeout=60)
    assert dumped == 0, "pg_dump of the test database failed"


def one(conn: psycopg.Connection[Any], sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params or None).fetchone()
    assert row is not None
    return row[0]


def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = 30.0, logs: Callable[[], str] = str
) -> float:
    """Poll `condition` until it holds; returns the seconds it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            pytest.fail(f"timed out waiting for {what}\n{logs()}")
        time.sleep(0.02)
    return time.monotonic() - started


@dataclass
class Shop:
    """The merchant on the new primary: its API credentials and its signed-in portal session."""

    merchant_id: str
    entity_id: str
    token: str
    port: int
    portal: requests.Session

    def pay(self) -> tuple[str, str]:
        """A debit through the payment API (it writes the primary): (payment id, merchant's
        reference)."""
        mtid = uuid.uuid4().hex
        body = {
            "entityId": self.entity_id,
            "entityType": "MERCHANT",
            "merchant.id": self.merchant_id,
            "paymentType": "DB",
            "amount": "12.50",
            "currency": "EUR",
            "merchantTransactionId": mtid,
            **card(),
        }
        status, answer = post_form(self.port, "/pay/v3/payments", body, self.token)
        assert status == 200 and answer["result"]["code"] == "000.000.000", answer
        return str(answer["id"]), mtid

    def page(self, path: str, timeout: float = PAGE_TIMEOUT) -> requests.Response:
        return self.portal.get(f"http://127.0.0.1:{self.port}{path}", timeout=timeout)

    def listed(self, mtid: str) -> bool:
        """The transactions list (read from the replica) shows this payment."""
        response = self.page("/portal/transactions/")
        assert response.status_code == 200
        return mtid in response.text


MAKE_SHOP = """
import json
from django.contrib.auth.models import User
from merchants.models import PortalUser
from tests.factories import MerchantFactory

merchant = MerchantFactory()
user = User.objects.create_user({email!r}, password={password!r})
PortalUser.objects.create(user=user, merchant=merchant)
print(json.dumps({{
    "merchant_id": merchant.merchant_id,
    "entity_id": merchant.entity.entity_id,
    "token": merchant.entity.plain_token,
}}))
"""


def make_shop(primary: Cluster, keys: dict[str, str]) -> dict[str, str]:
    """A merchant and its portal user, written on the primary by `manage.py shell`."""
    env = {**os.environ, **keys, "DATABASE_URL": primary.url()}
    env.pop("DATABASE_REPLICA_URL", None)
    code = MAKE_SHOP.format(email=EMAIL, password=PASSWORD)
    out = run(
        [sys.executable, "manage.py", "shell", "-c", code], "manage.py shell", cwd=ROOT, env=env
    )
    made: dict[str, str] = json.loads(out.strip().splitlines()[-1])
    return made


def sign_in(port: int) -> requests.Session:
    session = requests.Session()
    login = f"http://127.0.0.1:{port}/portal/login/"
    form = session.get(login, timeout=PAGE_TIMEOUT)
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    assert form.status_code == 200 and found, form.text[:500]
    answer = session.post(
        login,
        data={"username": EMAIL, "password": PASSWORD, "csrfmiddlewaretoken": found.group(1)},
        timeout=PAGE_TIMEOUT,
    )
    assert answer.status_code == 200 and answer.url.endswith("/portal/"), answer.url
    return session


@contextlib.contextmanager
def read_of_payments_queued(primary: Cluster) -> Iterator[tuple[psycopg.Connection[Any], int]]:
    """payments_payment on the primary as during a schema change stuck behind a long
    transaction: one connection idle in a transaction that has read the table, one ALTER TABLE
    waiting for its exclusive lock behind it; every later read of the table waits behind the
    ALTER. Yields a third connection (autocommit) for looking, and the ALTER's backend pid. On
    leaving, the ALTER is cancelled (nothing of it is written) and the idle transaction ends."""
    with (
        psycopg.connect(primary.url()) as idle,
        psycopg.connect(primary.url()) as alter,
        psycopg.connect(primary.url(), autocommit=True) as look,
    ):
        idle.execute("SELECT 1 FROM payments_payment LIMIT 1")  # ACCESS SHARE, kept
        errors: list[psycopg.Error] = []

        def change_schema() -> None:
            try:
                alter.execute("ALTER TABLE payments_payment ADD COLUMN replica_test integer")
            except psycopg.errors.QueryCanceled:
                pass  # what the test does to it
            except psycopg.Error as exc:
                errors.append(exc)

        pid = alter.info.backend_pid
        changing = threading.Thread(target=change_schema, daemon=True)
        changing.start()
        try:
            waiting = "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted"
            wait_until(lambda: one(look, waiting, pid) == 1, "the ALTER waiting for its lock")
            yield look, pid
        finally:
            look.execute("SELECT pg_cancel_backend(%s)", (pid,))
            changing.join(timeout=10)
            alter.rollback()
            idle.rollback()
        assert not errors, errors


def waiting_on_payments(look: psycopg.Connection[Any], *, but: int) -> int:
    """How many backends on the primary (the ALTER's `but` aside) wait for a lock on
    payments_payment."""
    return int(
        one(
            look,
            "SELECT count(DISTINCT l.pid) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE c.relname = 'payments_payment' AND NOT l.granted AND l.pid <> %s",
            but,
        )
    )


def test_portal_pages_read_the_replica_while_the_primary_waits_on_a_lock(
    clusters: tuple[Cluster, Cluster], server_keys: dict[str, str], tmp_path: Path
) -> None:
    started = time.monotonic()
    primary, replica = clusters
    made = make_shop(primary, server_keys)
    env = {**server_keys, "DATABASE_REPLICA_URL": replica.url()}
    with gunicorn(
        database_url=primary.url(), workers=1, log_path=tmp_path / "gunicorn.log", env=env
    ) as server:
        shop = Shop(**made, port=server.port, portal=sign_in(server.port))
        payments = [shop.pay() for _ in range(3)]
        wait_until(lambda: all(shop.listed(mtid) for _, mtid in payments), "the replica's list")
        first_id, _ = payments[0]

        with read_of_payments_queued(primary) as (look, alter_pid):
            # The primary would not answer a read of payments_payment now.
            look.execute("SET lock_timeout = '1s'")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                look.execute("SELECT count(*) FROM payments_payment")
            look.execute("RESET lock_timeout")

            # The payment's own page reads the primary: it waits behind the ALTER.
            own_page: list[requests.Response] = []
            asking = threading.Thread(
                target=lambda: own_page.append(shop.page(f"/portal/transactions/{first_id}/", 30)),
                daemon=True,
            )
            asking.start()
            wait_until(
                lambda: waiting_on_payments(look, but=alter_pid) >= 1,
                "the payment's own page waiting on the primary",
            )

            # The lists read the replica: they answer at once.
            answered = time.monotonic()
            listing = shop.page("/portal/transactions/")
            overview = shop.page("/portal/")
            # The downloads too, whose rows are read as the answer streams, after the view.
            exported = shop.page("/portal/transactions/?export=csv")
            today = time.strftime("%Y%m%d", time.gmtime())
            report = shop.page(f"/portal/reports/transaction/{today}.csv")
            answered = time.monotonic() - answered
            assert listing.status_code == 200
            assert all(mtid in listing.text for _, mtid in payments)
            assert overview.status_code == 200 and 'id="no-payments"' not in overview.text
            for download in (exported, report):
                assert download.status_code == 200, download.url
                assert all(mtid in download.text for _, mtid in payments), download.url
            assert asking.is_alive() and not own_page  # still waiting on the primary
            print(
                f"\nunder the lock: transactions list, overview and both CSV downloads answered "
                f"in {answered:.2f} s "
                "from the replica; the payment's own page waits on the primary"
            )
        asking.join(timeout=PAGE_TIMEOUT)
        assert own_page and own_page[0].status_code == 200, "the own page after the lock"
        assert payments[0][1] in own_page[0].text

        # The lag: a payment made now, until the replica's list shows it.
        _, mtid = shop.pay()
        lag = wait_until(lambda: shop.listed(mtid), "the new payment on the list", LAG_LIMIT)
        print(f"a new payment on the replica's transactions list after {lag:.3f} s")

        # What a merchant sees while the replica lags: replay paused on the standby.
        with psycopg.connect(replica.url(), autocommit=True) as standby:
            standby.execute("SELECT pg_wal_replay_pause()")
            paused = "SELECT pg_get_wal_replay_pause_state()"
            wait_until(lambda: one(standby, paused) == "paused", "replay paused")
            try:
                payment_id, mtid = shop.pay()
                own = shop.page(f"/portal/transactions/{payment_id}/")
                assert own.status_code == 200 and mtid in own.text  # from the primary
                time.sleep(0.5)  # 25 times the lag measured above: replaying, it would be there
                assert not shop.listed(mtid)  # the list is as old as the replica
                behind = one(standby, "SELECT now() - pg_last_xact_replay_timestamp()")
            finally:
                standby.execute("SELECT pg_wal_replay_resume()")
            caught_up = wait_until(lambda: shop.listed(mtid), "the list after replay", LAG_LIMIT)
        print(
            f"replay paused: the list lacked the new payment (replica {behind} behind), its own "
            f"page showed it; listed {caught_up:.3f} s after replay resumed"
        )
    print(f"the whole test: {time.monotonic() - started:.1f} s")
