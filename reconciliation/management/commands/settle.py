"""Settle every merchant with payments on a business day (or one merchant), and print each
run's figures.

    .venv/bin/python manage.py settle --date 2026-11-24 [--merchant 10000001] [--before-cutoff]

A day whose cut-off has not passed is refused, as recon_file refuses it: --before-cutoff settles
it all the same, as a provisional run (marked so in the portal and the admin) that the run after
the cut-off replaces.
"""

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from core.business_day import business_day_bounds, parse_day
from core.display import amount_text
from core.errors import ApplicationError
from merchants.models import Merchant
from merchants.selectors import merchant_by_id
from reconciliation.settlement import day_ended, settle_day, settlement_run


class Command(BaseCommand):
    help = "Settle a business day (re-running a day gives the same figures)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--date",
            required=True,
            help="the business day: YYYY-MM-DD, or yesterday or today (in SETTLEMENT_TIME_ZONE)",
        )
        parser.add_argument("--merchant", help="merchant.id (default: every merchant)")
        parser.add_argument(
            "--before-cutoff",
            action="store_true",
            help="settle a day whose cut-off has not passed (a provisional run: it misses what "
            "the rest of the day brings)",
        )

    def handle(
        self,
        *args: Any,
        date: str,
        merchant: str | None,
        before_cutoff: bool,
        **options: Any,
    ) -> None:
        try:
            day = parse_day(date, timezone.now())
        except ValueError:
            raise CommandError(f"--date {date!r} is not YYYY-MM-DD, yesterday or today") from None
        if not day_ended(day) and not before_cutoff:
            raise CommandError(
                f"the business day {day} has not ended (its cut-off is "
                f"{business_day_bounds(day)[1]:%Y-%m-%d %H:%M %Z}); --before-cutoff for a "
                "provisional run"
            )
        failures: list[tuple[str, str]] = []
        if merchant:
            found = merchant_by_id(merchant_id=merchant)
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
                f"chargebacks {run.chargebacks_count}/{money(run.chargebacks_amount)} "
                f"(reversed {money(run.chargeback_reversals_amount)}) "
                f"fees {money(run.fees_amount)} "
                f"reserve held {money(run.reserve_held)} released {money(run.reserve_released)} "
                f"net {money(run.net_amount)}" + (" (provisional)" if run.provisional else "")
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
