"""Merchant portal pages with 100,000 payments in the merchant's history: the time each page
takes to answer (recorded in bench/README.md).

    .venv/bin/python bench/portal.py --payments 100000

Uses the bench database (as bench/payments.py) and a merchant of its own (99000003) with a
portal user; gives it N payments spread over the last 60 days (once: kept between runs; a
mix of DB, PA, CP, RF, declines, three brands) in one INSERT ... SELECT. Then it asks each
page --requests times through Django's test client in this process (a signed-in session, the
whole middleware stack, templates rendered; no network) and prints the median and the 95th
percentile per page. Last, it exports the refunds (a tenth of the payments) as CSV, then the
whole transaction list (`export=csv`, every payment of the merchant) --csv-runs times, reading
the streamed answer chunk by chunk, and prints the rows, the seconds, and this process's
resident memory before and at its highest during each export (sampled every 1,000 chunks): a
stream at constant memory grows no more for ten times the rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench.payments import (  # noqa: E402 - after the sys.path fix above
    DEFAULT_DATABASE_URL,
    django_setup,
    ensure_database,
    migrate_and_seed,
)
from bench.recon_file import insert_payments, own_merchant  # noqa: E402

MERCHANT_ID = "99000003"
USERNAME = "bench-portal"
OVERRIDES = {
    "id": "md5('portal' || i::text)",
    "merchant_transaction_id": "'portal' || lpad(i::text, 26, '0')",
    "payment_type": "CASE mod(i, 10) WHEN 0 THEN 'RF' WHEN 1 THEN 'PA' WHEN 2 THEN 'CP' "
    "ELSE 'DB' END",
    "successful": "mod(i, 13) <> 0",
    "result_code": "CASE WHEN mod(i, 13) = 0 THEN '800.100.' || lpad(mod(i, 7)::text, 3, '1') "
    "ELSE '000.000.000' END",
    "payment_brand": "CASE mod(i, 3) WHEN 0 THEN 'VISA' WHEN 1 THEN 'MASTER' ELSE 'AMEX' END",
    "currency": "'EUR'",
}
PAGES = (
    ("overview", "/portal/"),
    ("transactions", "/portal/transactions/"),
    ("transactions, page 500", "/portal/transactions/?page=500"),
    (
        "transactions, filtered",
        "/portal/transactions/?payment_type=DB&amount_min=100&card_last4=0042",
    ),
    ("a payment", None),
    ("settlements", "/portal/settlements/"),
)


def setup(count: int) -> Any:
    from django.contrib.auth.models import User
    from django.db import connection, transaction
    from django.utils import timezone

    from merchants.models import PortalUser
    from payments.models import Payment

    merchant = own_merchant(MERCHANT_ID, "Bench Portal GmbH", "BENCH PORTAL")
    user, _ = User.objects.get_or_create(username=USERNAME)
    PortalUser.objects.get_or_create(user=user, defaults={"merchant": merchant})
    held = Payment.objects.filter(merchant=merchant).count()
    if held != count:
        end = timezone.now()
        began = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {Payment._meta.db_table} WHERE merchant_id = %s", [merchant.pk]
            )
            insert_payments(cursor, merchant, end - timedelta(days=60), end, count, OVERRIDES)
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM ANALYZE {Payment._meta.db_table}")
        print(f"gave {MERCHANT_ID} {count} payments in {time.perf_counter() - began:.1f} s")
    return merchant, user


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payments", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--csv-runs", type=int, default=3)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args(argv)
    ensure_database(args.database_url, fresh=False)
    django_setup(args.database_url)
    migrate_and_seed()
    merchant, user = setup(args.payments)
    from django.test import Client

    from payments.models import Payment

    client = Client()
    client.force_login(user)
    one = Payment.objects.filter(merchant=merchant, payment_type="RF").first()
    assert one is not None
    print(f"{args.payments} payments; {args.requests} requests a page (after one warm-up)")
    print(f"{'page':<28} {'median ms':>10} {'p95 ms':>8}")
    for name, url in PAGES:
        url = url or f"/portal/transactions/{one.pk}/"
        client.get(url)  # warm-up
        times = []
        for _ in range(args.requests):
            began = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200, (url, response.status_code)
        times.sort()
        p95 = times[max(0, int(len(times) * 0.95) - 1)]
        print(f"{name:<28} {statistics.median(times):>10.1f} {p95:>8.1f}")
    export_csv(client, "payment_type=RF&")  # a tenth of them first: memory grows with the rows?
    for _ in range(args.csv_runs):
        export_csv(client)
    return 0


def rss_mib() -> float:
    """This process's resident memory now (VmRSS), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def export_csv(client: Any, query: str = "") -> None:
    before = rss_mib()
    began = time.perf_counter()
    response = client.get(f"/portal/transactions/?{query}export=csv")
    assert response.status_code == 200 and response.streaming
    rows = size = 0
    highest = before
    for n, chunk in enumerate(response.streaming_content):
        rows += chunk.count(b"\n")
        size += len(chunk)
        if n % 1000 == 0:
            highest = max(highest, rss_mib())
    seconds = time.perf_counter() - began
    highest = max(highest, rss_mib())
    print(
        f"CSV export: {rows - 1} payments, {size / 1e6:.1f} MB in {seconds:.2f} s "
        f"({(rows - 1) / seconds:,.0f} rows/s); RSS {before:.1f} MiB before, "
        f"{highest:.1f} MiB at most during it"
    )


if __name__ == "__main__":
    raise SystemExit(main())
