"""What one statement costs the server's CPU through Django's cursor, with this tree's driver
(issue 33: psycopg2 against psycopg 3).

    .venv/bin/python bench/statement_cpu.py --database-url postgres://postgres@127.0.0.1:5432/ab_new
    (cd /tmp/ab-old && .venv/bin/python /work/main/bench/statement_cpu.py --database-url ...)

Runs in this process, on the tree of the working directory (its settings and its driver): a
one-row SELECT by an indexed column, an empty `transaction.atomic()`, and the two together,
`--count` times a measure, seven measures; prints the median CPU microseconds (process time) of
each. Alternate the two trees a few times in one sitting: bench/README.md, issue 33.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable


def measure(count: int) -> dict[str, float]:
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE IF NOT EXISTS bench_statement_cpu (k text PRIMARY KEY, v text)"
        )
        cursor.execute(
            "INSERT INTO bench_statement_cpu VALUES ('one', 'row') ON CONFLICT (k) DO NOTHING"
        )

    def select() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT k, v FROM bench_statement_cpu WHERE k = %s", ["one"])
            cursor.fetchone()

    def atomic() -> None:
        with transaction.atomic():
            pass

    def atomic_select() -> None:
        with transaction.atomic():
            select()

    found = {}
    steps: dict[str, Callable[[], None]] = {
        "select": select,
        "atomic (empty)": atomic,
        "atomic + select": atomic_select,
    }
    for name, step in steps.items():
        for _ in range(200):
            step()
        runs = []
        for _ in range(7):
            started = time.process_time()
            for _ in range(count):
                step()
            runs.append((time.process_time() - started) * 1e6 / count)
        found[name] = statistics.median(runs)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database")
    parser.add_argument("--count", type=int, default=3000)
    args = parser.parse_args(argv)
    if not args.database_url.startswith(("postgres://", "postgresql://")):
        parser.error("--database-url must be a PostgreSQL URL")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from django.db import connection

    database = connection.Database  # type: ignore[attr-defined]  # the backend's driver module
    driver = f"{database.__name__} {database.__version__.split()[0]}"
    found = measure(args.count)
    print(driver, "  ".join(f"{name} {us:.1f} us" for name, us in found.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
