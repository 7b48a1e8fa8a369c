"""Produce an entity's reconciliation file of a day: a progress bar on stderr, the path of the
file written as the last line on stdout. The entity's merchants with payments and no settlement
run of the day are settled first (the file carries the reconciliation amounts).

    .venv/bin/python manage.py recon_file --entity 10000001 --date 2026-11-24 [--test]
    .venv/bin/python manage.py recon_file --entity 10000001 --date yesterday

`--date` takes YYYY-MM-DD, or `yesterday` or `today` in SETTLEMENT_TIME_ZONE. A day whose
cut-off has not passed (today's, usually) is refused: the previous day's file is
`--date yesterday` (--before-cutoff makes a preview of the current one, which beat replaces once
the day has ended). A merchant that cannot be settled (a currency without an
exchange rate) is named on stderr and its records carry a reconciliation amount of 0.
"""

import sys
from typing import Any

from django.core.files.storage import FileSystemStorage
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from core.business_day import business_day_bounds, parse_day
from merchants.selectors import entity_by_id
from reconciliation.recon.generate import count_details, recon_file_generate, storage


class Command(BaseCommand):
    help = (
        "Write an entity's daily reconciliation file of a business day that has ended and print "
        "its path (the previous day's: --date yesterday)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--entity", required=True, help="the entityId (8 characters)")
        parser.add_argument(
            "--date",
            required=True,
            help="the business day: YYYY-MM-DD, or yesterday or today (in SETTLEMENT_TIME_ZONE). "
            "A day whose cut-off has not passed (today's, until SETTLEMENT_CUTOFF) is refused: "
            "for the previous day's file, --date yesterday",
        )
        kind = parser.add_mutually_exclusive_group()
        kind.add_argument(
            "--production",
            action="store_true",
            default=None,
            help="a P file (RECONDTP...); the default where RECON_PRODUCTION is on (DJANGO_DEBUG "
            "off)",
        )
        kind.add_argument(
            "--test",
            action="store_false",
            dest="production",
            help="a T file (RECONDTT...); the default in the demo (DJANGO_DEBUG on)",
        )
        parser.add_argument("--no-settle", action="store_true", help="do not settle first")
        parser.add_argument(
            "--before-cutoff",
            action="store_true",
            help="produce a day whose cut-off has not passed (a preview: it misses what comes)",
        )

    def handle(
        self,
        *args: Any,
        entity: str,
        date: str,
        production: bool | None,
        no_settle: bool,
        before_cutoff: bool,
        **options: Any,
    ) -> None:
        now = timezone.now()
        try:
            day = parse_day(date, now)
        except ValueError:
            raise CommandError(f"--date {date!r} is not YYYY-MM-DD, yesterday or today") from None
        found = entity_by_id(entity_id=entity)
        if found is None:
            raise CommandError(f"no entity {entity}")
        if business_day_bounds(day)[1] > now and not before_cutoff:
            raise CommandError(
                f"the business day {day} has not ended (its cut-off is "
                f"{business_day_bounds(day)[1]:%Y-%m-%d %H:%M %Z}); the previous day's file: "
                "--date yesterday; a preview of this one: --before-cutoff"
            )
        from django.conf import settings

        kind = settings.RECON_PRODUCTION if production is None else production
        total = count_details(found, day, production=kind)
        stream = getattr(self.stderr, "_out", sys.stderr)  # the bar writes \r, not lines
        failures: list[tuple[str, str]] = []
        with tqdm(total=total, unit=" records", file=stream, disable=False) as bar:
            produced = recon_file_generate(
                entity=found,
                day=day,
                production=kind,
                settle=not no_settle,
                progress=bar.update,
                failures=failures,
            )
        for merchant_id, why in failures:
            self.stderr.write(
                f"{merchant_id}: not settled ({why}): its reconciliation amounts are 0"
            )
        record = produced.record
        self.stderr.write(
            f"{record.name}: {record.records} detail records, {record.size} bytes, "
            f"sha256 {record.sha256}"
        )
        files = storage()
        # a folder: the file's path; another storage (a bucket): its name there
        local = isinstance(files, FileSystemStorage)
        self.stdout.write(files.path(produced.path) if local else produced.path)
