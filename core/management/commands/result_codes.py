"""python manage.py result_codes [--write docs/api.md]

Prints the table of every declared result code (core.results: the registry the apps declare
their codes in), or with --write replaces the table between the markers in the given Markdown
file, so the documented catalogue can never miss a code (tests/core/test_results.py checks it).
"""

from pathlib import Path
from typing import Any

from django.apps import apps as django_apps
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.results import entries

START = "<!-- result-codes:start (.venv/bin/python manage.py result_codes --write docs/api.md) -->"
END = "<!-- result-codes:end -->"


def table() -> str:
    """One row per code: the apps in INSTALLED_APPS order, each app's codes as it declares them."""
    apps = [config.name for config in django_apps.get_app_configs()]
    declared = list(enumerate(entries()))
    declared.sort(key=lambda item: (_index(apps, item[1].owner), item[0]))
    lines = ["| Code | HTTP | Description | Returned by |", "|---|---|---|---|"]
    for _, entry in declared:
        result = entry.result
        description = result.description.replace("|", "\\|")
        lines.append(f"| `{result.code}` | {entry.http} | {description} | {entry.returned_by} |")
    return "\n".join(lines)


def _index(apps: list[str], owner: str) -> int:
    return apps.index(owner) if owner in apps else len(apps)


def replaced(text: str) -> str:
    """`text` with the table between the markers regenerated."""
    head, found, rest = text.partition(START)
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise ValueError(f"the markers {START!r} and {END!r} are missing")
    return f"{head}{START}\n{table()}\n{END}{tail}"


class Command(BaseCommand):
    help = "Print (or write into a Markdown file) the table of every result code."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", metavar="FILE", help="replace the table in this file")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["write"]:
            self.stdout.write(table())
            return
        path = Path(options["write"])
        try:
            path.write_text(replaced(path.read_text()))
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{path}: {len(entries())} result codes")
