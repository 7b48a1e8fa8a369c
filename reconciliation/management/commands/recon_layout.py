"""Print (or write) docs/recon-file.md from the file layout.

.venv/bin/python manage.py recon_layout --write docs/recon-file.md
"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from reconciliation.recon.docs import markdown


class Command(BaseCommand):
    help = "The reconciliation file's layout as Markdown (docs/recon-file.md)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--write", metavar="PATH", help="write the page here")

    def handle(self, *args: Any, write: str | None = None, **options: Any) -> None:
        page = markdown()
        if write:
            Path(write).write_text(page)
            self.stdout.write(f"{write}: written")
        else:
            self.stdout.write(page)
