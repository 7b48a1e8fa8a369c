"""Settle every merchant with payments on a business day (or one merchant), and print each
run's figures.

    .venv/bin/python manage.py settle --date 2026-11-24 [--merchant 10000001]
"""

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.display import amount_text
from core.errors import ApplicationError
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
        failures: list[tuple[str, str]] = []
        if merchant:
            found = Merchant.objects.filter(merchant_id=merchant).first()
            if found is None:
                raise CommandError(f"no merchant {merchant}")
            runs = _settle_one(found, day, failures)
        else:
            runs = settle_day(day=day, failures=failures)
        for run in runs:

            def money(value: Any, run: Any = run) -> str:
                return amount_text(value, run.currency)

            self.stdout.write(
                f"{run.merchant.merchant_id} {run.day:%Y-%m-%d} {run.currency}: "
                f"sales {run.sales_count}/{money(run.sales_amount)} "
                f"refunds {run.refunds_count}/{money(run.refunds_amount)} "
                f"credits {run.credits_count}/{money(run.credits_amount)} "
                f"chargebacks {run.chargebacks_count}/-{money(run.chargebacks_amount)}"
                f"+{money(run.chargeback_reversals_amount)} fees {money(run.fees_amount)} "
                f"reserve -{money(run.reserve_held)}+{money(run.reserve_released)} "
                f"net {money(run.net_amount)}"
            )
        self.stdout.write(f"{len(runs)} settlement run(s)")
        for merchant_id, why in failures:
            self.stderr.write(f"{merchant_id}: not settled: {why}")
        if failures:
            raise CommandError(f"{len(failures)} merchant(s) not settled (the others are)")


def _settle_one(merchant: Merchant, day: date, failures: list[tuple[str, str]]) -> list[Any]:
    try:
        return [settlement_run(merchant=merchant, day=day)]
    except ApplicationError as exc:
        failures.append((merchant.merchant_id, exc.description))
        return []


def _parse(text: str) -> date:
    return date.fromisoformat(text)
