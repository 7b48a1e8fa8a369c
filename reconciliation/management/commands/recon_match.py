"""Compare a reconciliation file with the platform's records of its entity and day: lists the
detail records missing on either side and those whose fields differ (exit status 1 when the
two do not agree).

    .venv/bin/python manage.py recon_match FILE [--production | --test]

Whether the file is a production (P) or test (T) file comes from its name, RECONDTP... or
RECONDTT...; a file under another name needs --production or --test.
"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from reconciliation.recon.match import match


class Command(BaseCommand):
    help = "Compare a reconciliation file with the platform's records."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        kind = parser.add_mutually_exclusive_group()
        kind.add_argument(
            "--production",
            action="store_true",
            default=None,
            help="a P file (default: from the file's name)",
        )
        kind.add_argument("--test", action="store_false", dest="production", help="a T file")

    def handle(self, *args: Any, path: str, production: bool | None, **options: Any) -> None:
        if not Path(path).is_file():
            raise CommandError(f"{path}: no such file")
        try:
            result = match(path, production=production)
        except ApplicationError as exc:
            raise CommandError(f"{exc.description} (--production or --test)") from None
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
