"""A Celery worker killed (SIGKILL) while it writes the daily file and while it settles (issue 22,
"Survive it"): the rerun, sent as beat sends it, gives the same file byte for byte, and no
payment is settled twice.

Workers run in processes of their own on a redis-server the test starts (never the machine's),
on the test database. The day is yesterday's business day, filled with debits and refunds in
one INSERT (bench/recon_file.py), so beat's tasks find it as the last day whose cut-off passed.

- The daily file: a clean run first (in this process: settle, then file; its SHA-256 kept), then
  the row and the file removed. A worker whose storage stops after the first 64 KiB of the file
  (tests/faults/gated_storage.py) is killed there: a file cut short is left at the file's name,
  and no ReconFile row. A second worker then runs beat's `recon_files_last_day`, which finds the
  file missing and produces it: the same name, bytes and SHA-256 as the clean run.
- Settlement: a clean run's figures kept, then the runs removed. The test holds the second
  merchant's row lock (as another run of it would); a worker running beat's `settle_last_day`
  settles the first merchant, commits, waits for the second, and is killed. A second worker's
  run settles every merchant: each payment in one settlement item (SettlementItem.payment is
  unique), the first merchant's run replaced, and every figure as the clean run's.
"""

import hashlib
import json
import signal
import uuid
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from bench.recon_file import insert_payments
from core.business_day import business_day_bounds, last_business_day
from merchants.models import Merchant
from payments.models import Payment
from reconciliation.models import FeePlan, FeeRule, ReconFile, SettlementItem, SettlementRun
from reconciliation.recon.generate import recon_file_generate, storage
from reconciliation.settlement import settle_day
from tests.factories import MerchantFactory, ParticipatorFactory
from tests.faults.tools import (
    RedisServer,
    celery_worker,
    redis_server_or_skip,
    send_task,
    wait_until,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
PAYMENTS = 1500  # per merchant: the file is about 0.8 MB, a dozen chunks of the storage
FIGURES = (
    "sales_count",
    "sales_amount",
    "refunds_count",
    "refunds_amount",
    "fees_amount",
    "reserve_held",
    "net_amount",
    "provisional",
)


@pytest.fixture(autouse=True)
def _postgres_and_a_redis_server():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): workers in other processes share it")
    redis_server_or_skip()


@pytest.fixture
def broker(tmp_path: Path, server_keys):  # type: ignore[no-untyped-def]
    """A redis-server of the test's own and the workers' environment on it."""
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    queue = f"faults-{uuid.uuid4().hex[:8]}"
    env = {**server_keys, "REDIS_URL": redis.url, "CELERY_TASK_DEFAULT_QUEUE": queue}
    try:
        yield redis, queue, env
    finally:
        redis.stop()


def a_day_of_payments(count: int) -> tuple[Any, list[Merchant], date]:
    """A participator with two merchants (fee plans: MDR, scheme fee, reserve), `count` payments
    each in yesterday's business day, one in twenty a refund."""
    participator = ParticipatorFactory()
    merchants = [MerchantFactory(participator=participator) for _ in range(2)]
    day = last_business_day(timezone.now())
    start, end = business_day_bounds(day)
    with connection.cursor() as cursor:
        for merchant in merchants:
            plan = FeePlan.objects.create(
                merchant=merchant, scheme_fee=Decimal("0.02"), reserve_percent=Decimal("10")
            )
            FeeRule.objects.create(plan=plan, mdr_percent=Decimal("1.5"), fixed=Decimal("0.10"))
            insert_payments(
                cursor,
                merchant,
                start,
                end,
                count,
                overrides={
                    "id": f"md5('faults-{merchant.pk}-' || i::text)",
                    "merchant_transaction_id": f"'faults{merchant.pk}-' || lpad(i::text, 20, '0')",
                    "currency": "'EUR'",
                },
            )
        # Statistics for the planner, as autovacuum would gather them later: without them the
        # day's selects plan for an empty table.
        cursor.execute(f"ANALYZE {Payment._meta.db_table}")
    return participator, merchants, day


def figures() -> dict[int, tuple[Any, ...]]:
    return {
        run.merchant_id: tuple(getattr(run, name) for name in FIGURES)
        for run in SettlementRun.objects.all()
    }


def kill(worker: Any) -> None:
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)
    assert worker.returncode == -signal.SIGKILL


def test_the_daily_file_after_a_worker_killed_in_the_middle_of_it(tmp_path: Path, broker):
    redis, queue, env = broker
    participator, merchants, day = a_day_of_payments(PAYMENTS)

    # The clean run, here: settle (as beat's settle_last_day does before the files), then the
    # file. (recon_file_generate settles what is unsettled by itself too, but settle_unsettled's
    # query of the merchants to settle joins their payments twice, one join per filter(): 35 s
    # for these 3,000 payments on this machine.)
    settle_day(day=day)
    clean = recon_file_generate(entity=participator, day=day, production=True)
    clean_bytes = storage().open(clean.path).read()
    assert hashlib.sha256(clean_bytes).hexdigest() == clean.record.sha256
    assert clean.record.records == 2 * PAYMENTS
    storage().delete(clean.path)
    ReconFile.objects.all().delete()  # as if the day's files were never made

    folder = tmp_path / "recon"
    reached = tmp_path / "reached"
    gated = {
        **env,
        "RECON_STORAGE_BACKEND": "tests.faults.gated_storage.GatedStorage",
        "RECON_STORAGE_OPTIONS": json.dumps({"location": str(folder), "reached": str(reached)}),
    }
    with celery_worker(tmp_path / "worker-1.log", gated) as worker:
        send_task(redis.url, queue, "reconciliation.recon_file", participator.entity_id, str(day))
        wait_until(reached.exists, "the worker in the middle of the file", timeout=60)
        kill(worker)
    partial = folder / clean.path
    assert 0 < partial.stat().st_size < len(clean_bytes)  # cut short at the file's name
    assert clean_bytes.startswith(partial.read_bytes())
    assert not ReconFile.objects.exists()

    plain = {
        **env,
        "RECON_STORAGE_BACKEND": "django.core.files.storage.FileSystemStorage",
        "RECON_STORAGE_OPTIONS": json.dumps({"location": str(folder)}),
    }
    with celery_worker(tmp_path / "worker-2.log", plain):
        send_task(redis.url, queue, "reconciliation.recon_files_last_day")
        again = ReconFile.objects.filter(entity=participator)
        wait_until(again.exists, "the rerun's file", timeout=60)
    record = again.get()
    assert (record.path, record.name, record.records) == (
        clean.path,
        clean.record.name,
        2 * PAYMENTS,
    )
    rerun_bytes = partial.read_bytes()
    assert rerun_bytes == clean_bytes
    assert record.sha256 == clean.record.sha256 == hashlib.sha256(rerun_bytes).hexdigest()
    assert sorted(p.name for p in partial.parent.iterdir()) == sorted(  # no copy beside it
        ReconFile.objects.values_list("name", flat=True)
    )
    print(
        f"\ndaily file of {2 * PAYMENTS} records ({len(clean_bytes)} bytes): worker killed after "
        f"{reached.read_text()} bytes; the rerun's SHA-256 {record.sha256[:16]}... = the clean "
        f"run's"
    )


def test_settlement_after_a_worker_killed_in_the_middle_of_it(tmp_path: Path, broker):
    redis, queue, env = broker
    _, merchants, day = a_day_of_payments(200)
    settle_day(day=day)  # the clean run, here
    clean, clean_items = figures(), SettlementItem.objects.count()
    assert clean_items == 2 * 200 and len(clean) == 2
    SettlementRun.objects.all().delete()  # and its items: the day unsettled again

    first, second = sorted(merchants, key=lambda m: m.pk)
    with holding_the_row_of(second), celery_worker(tmp_path / "worker-1.log", env) as worker:
        send_task(redis.url, queue, "reconciliation.settle_last_day")
        wait_until(
            lambda: SettlementRun.objects.filter(merchant=first).exists() and lock_waiters() > 0,
            "the first merchant settled and the worker waiting for the second",
            timeout=60,
        )
        kill(worker)
    assert list(SettlementRun.objects.values_list("merchant_id", flat=True)) == [first.pk]
    assert figures()[first.pk] == clean[first.pk]

    with celery_worker(tmp_path / "worker-2.log", env):
        send_task(redis.url, queue, "reconciliation.settle_last_day")
        wait_until(lambda: SettlementRun.objects.count() == 2, "the rerun", timeout=60)
    assert figures() == clean
    settled = SettlementItem.objects.values_list("payment_id", flat=True)
    assert len(settled) == len(set(settled)) == clean_items  # each payment settled once
    assert set(settled) <= set(Payment.objects.values_list("pk", flat=True))
    print(
        f"\nsettlement of 2 merchants x 200 payments: worker killed after the first merchant's "
        f"run; the rerun settled {len(settled)} payments once each, figures equal to the clean run"
    )


def lock_waiters() -> int:
    """Backends of the test database waiting for a lock (the worker's, on the held row)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


class holding_the_row_of:  # noqa: N801 - used as a `with` block
    """Hold `merchant`'s row lock on a connection of its own (as another settlement run of it
    would) until the block ends."""

    def __init__(self, merchant: Merchant) -> None:
        self.merchant = merchant

    def __enter__(self) -> None:
        db = settings.DATABASES["default"]
        self.conn = psycopg.connect(
            dbname=db["NAME"],
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
        )
        with self.conn.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {Merchant._meta.db_table} WHERE id = %s FOR UPDATE",  # noqa: S608
                [self.merchant.pk],
            )

    def __exit__(self, *exc: object) -> None:
        self.conn.rollback()
        self.conn.close()
