"""Instructions per payment, counted by valgrind: a measure other processes cannot disturb.

The shared 2-core machine makes CPU time per payment move with whatever else runs. Instruction
counts do not: callgrind counts the instructions this process executes, whatever the machine is
doing. This script sets up as bench/payments.py does (same database, merchant and card), then
posts N debits (DB) through Django's test Client in this process: the same application code a
gunicorn worker runs for a payment, without gunicorn's own loop. PostgreSQL's work is not
counted (it is another process).

    VG="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p"
    $VG .venv/bin/python bench/instructions.py 50
    $VG .venv/bin/python bench/instructions.py 250

Instructions per payment = (total of the 250 run - total of the 50 run) / 200: start-up, imports
and migrations cancel out. `bench/README.md` records the results and the commits compared (the
script is copied into an older checkout to measure it the same way).
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from urllib.parse import urlencode

# As in bench/payments.py: the project root first, not bench/.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench.payments import (  # noqa: E402 - after the sys.path fix above
    AMOUNT,
    CARD,
    DEFAULT_DATABASE_URL,
    SUCCESS,
    django_setup,
    ensure_database,
    migrate_and_seed,
)

WARMUP = 20  # payments before counting starts (connections, caches, first-use imports)


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    database_url = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_DATABASE_URL
    ensure_database(database_url, fresh=False)
    django_setup(database_url)
    creds = migrate_and_seed()

    from django.test import Client

    client = Client()
    body = {
        "entityId": creds["entity_id"],
        "entityType": creds["entity_type"],
        "merchant.id": creds["merchant_id"],
        "amount": AMOUNT,
        "currency": "EUR",
        "paymentType": "DB",
        **CARD,
    }
    for _ in range(WARMUP + count):
        response = client.post(
            "/pay/v3/payments",
            urlencode({**body, "merchantTransactionId": uuid.uuid4().hex}),
            content_type="application/x-www-form-urlencoded",
            HTTP_AUTHORIZATION=f"Bearer {creds['token']}",
        )
        if response.status_code != 200 or response.json()["result"]["code"] != SUCCESS:
            print(response.content[:500], file=sys.stderr)
            return 1
    print(f"{count} debits posted after {WARMUP} warm-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
