"""Compare a reconciliation file with the platform's records of its entity and day: lists the
detail records missing on either side and those whose fields differ (exit status 1 when the
two do not agree).

    .venv/bin/python manage.py recon_match FILE
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from reconciliation.recon.match import match


class Command(BaseCommand):
    help = "Compare a reconciliation file with the platform's records."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")

    def handle(self, *args: Any, path: str, **options: Any) -> None:
        result = match(path)
        for fault in result.faults:
            self.stdout.write(str(fault))
        for key in result.missing_from_file:
            self.stdout.write(f"on the platform, not in the file: {key}")
        for key in result.missing_from_platform:
            self.stdout.write(f"in the file, not on the platform: {key}")
        for line in result.differing:
            self.stdout.write(f"differs: {line}")
        if result.faults:
            raise CommandError(f"{path}: not a valid reconciliation file")
        if not result.agrees:
            count = (
                len(result.missing_from_file)
                + len(result.missing_from_platform)
                + len(result.differing)
            )
            raise CommandError(f"{path}: {count} difference(s) with the platform")
        self.stdout.write(f"{path}: agrees with the platform ({result.entity}, {result.day})")
