"""What a request pays to borrow a database connection and give it back (issue 33).

    .venv/bin/python bench/pool_cycle.py --database-url postgres://postgres@127.0.0.1:5432/ab_new

Runs, in this process, N cycles of what every request does with the database at its edges plus
one `SELECT 1`, for three set-ups: Django's pool with its check of each connection it lends
(the platform's default), the pool without the check, and no pool (CONN_MAX_AGE 600 with
Django's health checks, as before issue 33). Prints the CPU and wall time per cycle; each
set-up runs in a process of its own (settings are read once). bench/README.md, issue 33.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

SETUPS = {
    "pool, checked": {"DB_POOL": "true", "CHECK": "1"},
    "pool, unchecked": {"DB_POOL": "true", "CHECK": "0"},
    "no pool (CONN_MAX_AGE 600, health checks)": {"DB_POOL": "false", "CHECK": "1"},
}


def cycles(count: int) -> tuple[float, float]:
    """CPU and wall microseconds per cycle, in this process (its environment chose the set-up)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings
    from django.db import close_old_connections, connection

    settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = os.environ["CHECK"] == "1"

    def request() -> None:
        close_old_connections()  # request_started
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        close_old_connections()  # request_finished: the pool takes its connection back

    for _ in range(200):
        request()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        request()
    return (time.process_time() - cpu) / count * 1e6, (time.perf_counter() - wall) / count * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--cycles", type=int, default=3000)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a set-up's own process
    args = parser.parse_args(argv)
    if args.one:
        cpu, wall = cycles(args.cycles)
        print(f"{cpu:.1f} {wall:.1f}")
        return 0
    for name, env in SETUPS.items():
        done = subprocess.run(
            [sys.executable, __file__, "--database-url", args.database_url,
             "--cycles", str(args.cycles), "--one", name],
            env={**os.environ, **env, "DATABASE_URL": args.database_url},
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        cpu_us, wall_us = done.stdout.split()[-2:]
        print(f"{name:45s} {cpu_us:>8s} us CPU {wall_us:>8s} us wall a cycle")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    raise SystemExit(main())
