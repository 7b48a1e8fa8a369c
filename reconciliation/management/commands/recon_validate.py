"""Check a reconciliation file: every line 257 bytes, every field of its kind, the trailer's
count; prints the first faults by line and column (exit status 1 when there are any).

    .venv/bin/python manage.py recon_validate FILE
"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from reconciliation.recon.parse import read


class Command(BaseCommand):
    help = "Validate a reconciliation file against the layout."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        parser.add_argument("--limit", type=int, default=20, help="report at most this many")

    def handle(self, *args: Any, path: str, limit: int, **options: Any) -> None:
        if not Path(path).is_file():
            raise CommandError(f"{path}: no such file")
        parsed = read(path, limit=limit)
        if parsed.valid:
            self.stdout.write(f"{path}: valid, {parsed.details} detail records")
            return
        for fault in parsed.faults:
            self.stdout.write(str(fault))
        raise CommandError(f"{path}: {len(parsed.faults)} fault(s) (the first {limit} shown)")
