"""Daily reconciliation file: detail records per second and peak RSS for a day of N payments on
PostgreSQL (recorded in bench/README.md).

    .venv/bin/python bench/recon_file.py --payments 1000000
    .venv/bin/python bench/recon_file.py --payments 10000000    # RSS stays flat (disk: ~12 GB)

Sets up as bench/payments.py does (database `cardplatform_bench`, participator BENCH001 and its
merchant 99000001), then fills the business day --day with N settled payments of that merchant
in one INSERT ... SELECT generate_series (every column the model has, the constant ones from
the model's defaults; a mix of DB and RF in EUR, USD and JPY) and a settlement item for each,
unless the day already holds N. Then it runs `produce()` in a child process (so the RSS is the
generation's alone: Django, the cursor, the file), which prints the records, the seconds the
file took and its peak RSS (VmHWM); this process checks the file's size (257 + 1 bytes a
record, plus header and trailer) and prints records per second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench.payments import (  # noqa: E402 - after the sys.path fix above
    DEFAULT_DATABASE_URL,
    PARTICIPATOR_ID,
    django_setup,
    ensure_database,
    migrate_and_seed,
)

ROOT = _BENCH.parent
RESULTS = _BENCH / "results"
MERCHANT_ID = "99000002"  # its own merchant: the day is rewritten at will


def own_merchant(merchant_id: str, name: str, business: str) -> Any:
    """A merchant of the bench participator that one benchmark keeps to itself."""
    from demo.management.commands.seed_demo import MERCHANT_VALUES
    from merchants.models import Entity, Merchant
    from merchants.services import merchant_create

    merchant = Merchant.objects.filter(merchant_id=merchant_id).first()
    if merchant is None:
        merchant, _ = merchant_create(
            participator=Entity.objects.get(entity_id=PARTICIPATOR_ID),
            merchant_id=merchant_id,
            values={**MERCHANT_VALUES, "name": name, "business": business},
            changed_by="bench",
        )
    return merchant


def recon_merchant() -> Any:
    return own_merchant(MERCHANT_ID, "Bench Recon GmbH", "BENCH RECON")


# Columns that vary per row (i = 1..N), as SQL over generate_series(1, N) AS i.
VARYING = {
    "id": "md5('bench' || i::text)",
    "merchant_transaction_id": "'bench' || lpad(i::text, 27, '0')",
    "request_hash": "md5(i::text)",
    "payment_type": "CASE WHEN mod(i, 20) = 0 THEN 'RF' ELSE 'DB' END",
    "amount": "(mod(i, 10000) + 1)::numeric",
    "currency": "CASE mod(i, 10) WHEN 1 THEN 'USD' WHEN 2 THEN 'JPY' ELSE 'EUR' END",
    "card_bin": "'420000'",
    "card_last4": "lpad(mod(i, 10000)::text, 4, '0')",
    "auth_code": "upper(substr(md5(i::text), 1, 6))",
    "stan": "lpad(mod(i, 1000000)::text, 6, '0')",
    "acquirer_ref_no": "lpad(i::text, 23, '7')",
    "network_reference": "'SIM' || lpad(i::text, 12, '0')",
    "retrieval_ref_no": "lpad(i::text, 12, '0')",
    "entry_mode": "'81'",
    "condition_code": "'59'",
    "result_code": "'000.000.000'",
    "result_description": "'Request successfully processed'",
    "successful": "true",
    "payment_brand": "'VISA'",
    "created_at": "%(start)s::timestamptz + (i::bigint * %(step)s) * interval '1 microsecond'",
}


def insert_payments(
    cursor: Any,
    merchant: Any,
    start: Any,
    end: Any,
    count: int,
    overrides: dict[str, str] | None = None,
) -> None:
    """N payments of `merchant` spread evenly over [start, end), in one INSERT ... SELECT
    generate_series: every column of the model, VARYING (with `overrides`) per row, the others
    the model's defaults."""
    from django.db import connection

    from payments.models import Payment

    varying = {**VARYING, **(overrides or {})}
    constant: dict[str, Any] = {
        "merchant_id": merchant.pk,
        "entity_id": merchant.entity_id,
        "entity_type": "MERCHANT",
    }
    columns: list[str] = []
    values: list[str] = []
    params: dict[str, Any] = {}
    for field in Payment._meta.concrete_fields:
        column = str(field.column)
        columns.append(column)
        if field.name in varying:
            values.append(varying[field.name])
            continue
        value = constant.get(column, field.get_default())
        params[column] = field.get_db_prep_save(value, connection)
        values.append(f"%({column})s")
    params["start"] = start.isoformat()
    params["step"] = int((end - start).total_seconds() * 1_000_000 // (count + 1))
    cursor.execute(
        f"INSERT INTO {Payment._meta.db_table} ({', '.join(columns)}) "  # noqa: S608
        f"SELECT {', '.join(values)} FROM generate_series(1, {int(count)}) AS i",
        params,
    )


def fill(day: date, count: int) -> None:
    """N payments of the bench merchant in the business day `day`, and a settlement item each."""
    from django.db import connection, transaction

    from core.business_day import business_day_bounds
    from payments.models import Payment
    from reconciliation.models import SettlementItem, SettlementRun

    merchant = recon_merchant()
    start, end = business_day_bounds(day)
    existing = Payment.objects.filter(
        merchant=merchant, created_at__gte=start, created_at__lt=end
    ).count()
    if existing == count:
        print(f"the day holds {count} payments already")
        return
    began = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {SettlementItem._meta.db_table} WHERE run_id IN "
            f"(SELECT id FROM {SettlementRun._meta.db_table} WHERE merchant_id = %s)",
            [merchant.pk],
        )
        SettlementRun.objects.filter(merchant=merchant).delete()
        cursor.execute(
            f"DELETE FROM {Payment._meta.db_table} WHERE merchant_id = %s", [merchant.pk]
        )
        insert_payments(cursor, merchant, start, end, count)
        run = SettlementRun.objects.create(merchant=merchant, day=day, currency="EUR")
        cursor.execute(
            f"INSERT INTO {SettlementItem._meta.db_table} "  # noqa: S608
            "(run_id, payment_id, kind, amount, fee, mdr, threeds_fee, scheme_fee, reserve) "
            "SELECT %s, id, CASE payment_type WHEN 'RF' THEN 'REFUND' ELSE 'SALE' END, "
            "amount * 0.9, 0.22, 0.20, 0, 0.02, 0 "
            f"FROM {Payment._meta.db_table} WHERE merchant_id = %s",
            [run.pk, merchant.pk],
        )
    with connection.cursor() as cursor:  # autocommit: VACUUM runs outside a transaction
        # the rows of an earlier fill are dead: the tables are rewritten without them, or every
        # scan of the day reads the pages they left (as a fresh table would not)
        full = "FULL " if existing else ""
        tables = f"{Payment._meta.db_table}, {SettlementItem._meta.db_table}"
        cursor.execute(f"VACUUM {full}ANALYZE {tables}")
    print(f"filled {count} payments and settlement items in {time.perf_counter() - began:.1f} s")


def peak_rss_kib() -> int:
    """VmHWM of this process: its own peak (ru_maxrss would also carry the peak of the process
    that forked it, which Linux keeps across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(entity_id: str, day: date) -> None:
    """Runs in its own process: produce the file and print what it measured as JSON."""
    from merchants.models import Entity
    from reconciliation.recon.generate import produce, storage

    entity = Entity.objects.get(entity_id=entity_id)
    from django.db import connection

    from reconciliation.recon.sql import currencies_cte

    connection.ensure_connection()
    currencies_cte()
    baseline = peak_rss_kib()  # the process before the file
    began = time.perf_counter()
    produced = produce(entity, day, production=True)
    seconds = time.perf_counter() - began
    rss = peak_rss_kib()
    print(
        json.dumps(
            {
                "records": produced.record.records,
                "seconds": seconds,
                "peak_rss_mib": rss / 1024,
                "baseline_rss_mib": baseline / 1024,
                "size": produced.record.size,
                "path": storage().path(produced.path),
            }
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payments", type=int, default=1_000_000)
    parser.add_argument("--day", default="2026-01-15", help="the business day, YYYY-MM-DD")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--fresh", action="store_true", help="drop and recreate the database")
    parser.add_argument("--runs", type=int, default=3, help="files produced (the best is kept)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    day = date.fromisoformat(args.day)
    os.environ["RECON_FILES_DIR"] = str(RESULTS / "recon")
    if args.child:
        django_setup(args.database_url)
        child(args.child, day)
        return 0
    ensure_database(args.database_url, fresh=args.fresh)
    django_setup(args.database_url)
    migrate_and_seed()
    fill(day, args.payments)
    entity_id = recon_merchant().entity.entity_id
    runs = []
    for _ in range(args.runs):
        output = subprocess.run(
            [
                sys.executable,
                __file__,
                *("--child", entity_id, "--day", args.day, "--database-url", args.database_url),
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        measured = json.loads(output.strip().splitlines()[-1])
        assert measured["records"] == args.payments, measured
        assert measured["size"] == (args.payments + 2) * 258, measured
        measured["records_per_second"] = measured["records"] / measured["seconds"]
        runs.append(measured)
        print(
            f"{measured['records']} records in {measured['seconds']:.2f} s: "
            f"{measured['records_per_second']:,.0f} records/s, peak RSS "
            f"{measured['peak_rss_mib']:.1f} MiB ({measured['baseline_rss_mib']:.1f} MiB before "
            "the file began)"
        )
    best = max(runs, key=lambda r: r["records_per_second"])
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"recon_file-{args.payments}.json"
    out.write_text(json.dumps({"payments": args.payments, "runs": runs}, indent=2))
    print(
        f"best: {best['records_per_second']:,.0f} records/s; peak RSS at most "
        f"{max(r['peak_rss_mib'] for r in runs):.1f} MiB ({out})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
