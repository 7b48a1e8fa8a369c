"""Import chargebacks from a CSV file (a header line: payment, reason, amount, currency, date,
and optionally reference, note), each recorded as the admin records one; prints what was
imported and every refused line.

    .venv/bin/python manage.py chargebacks_import FILE.csv
"""

import csv
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from reconciliation import services


class Command(BaseCommand):
    help = "Import chargebacks from a CSV file."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")

    def handle(self, *args: Any, path: str, **options: Any) -> None:
        imported, refused = 0, 0
        with open(path, newline="", encoding="utf-8") as handle:
            for number, row in enumerate(csv.DictReader(handle), 2):
                try:
                    services.chargeback_record(
                        payment_ref=row["payment"].strip(),
                        reason_code=row["reason"].strip()[:4],
                        amount=Decimal(row["amount"]),
                        currency=row["currency"].strip().upper(),
                        received_on=date.fromisoformat(row["date"].strip()),
                        reference=(row.get("reference") or "").strip()[:10],
                        note=(row.get("note") or "").strip(),
                        actor=f"import:{path}",
                    )
                    imported += 1
                except (KeyError, ValueError, InvalidOperation, ApplicationError) as exc:
                    refused += 1
                    self.stdout.write(f"line {number}: refused: {exc}")
        self.stdout.write(f"{imported} imported, {refused} refused")
        if refused:
            raise CommandError(f"{refused} line(s) refused")
