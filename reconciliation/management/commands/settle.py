"""Settle every merchant with payments on a business day (or one merchant), and print each
run's figures.

    .venv/bin/python manage.py settle --date 2026-11-24 [--merchant 10000001]
"""

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from merchants.models import Merchant
from reconciliation.settlement import settle_day, settlement_run


class Command(BaseCommand):
    help = "Settle a business day (re-running a day gives the same figures)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--date", required=True, help="YYYY-MM-DD")
        parser.add_argument("--merchant", help="merchant.id (default: every merchant)")

    def handle(self, *args: Any, date: str, merchant: str | None, **options: Any) -> None:
        try:
            day = _parse(date)
        except ValueError:
            raise CommandError(f"--date {date!r} is not YYYY-MM-DD") from None
        if merchant:
            found = Merchant.objects.filter(merchant_id=merchant).first()
            if found is None:
                raise CommandError(f"no merchant {merchant}")
            runs = [settlement_run(merchant=found, day=day)]
        else:
            runs = settle_day(day=day)
        for run in runs:
            self.stdout.write(
                f"{run.merchant.merchant_id} {run.day:%Y-%m-%d} {run.currency}: "
                f"sales {run.sales_count}/{run.sales_amount} refunds {run.refunds_count}/"
                f"{run.refunds_amount} credits {run.credits_count}/{run.credits_amount} fees "
                f"{run.fees_amount} reserve -{run.reserve_held}+{run.reserve_released} net "
                f"{run.net_amount}"
            )
        self.stdout.write(f"{len(runs)} settlement run(s)")


def _parse(text: str) -> date:
    return date.fromisoformat(text)
