"""python manage.py result_codes [--write docs/api.md]

Prints the table of every declared result code (core.results: the registry the apps declare
their codes in), or with --write replaces the table between the markers in the given Markdown
file, so the documented catalogue can never miss a code (tests/core/test_results.py checks it).
"""

from pathlib import Path

from django.apps import apps as django_apps

from core.generated_docs import GeneratedDocCommand, replace_between
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
    return replace_between(text, START, END, table())


class Command(GeneratedDocCommand):
    help = "Print (or write into a Markdown file) the table of every result code."
    start, end = START, END
    generate = staticmethod(table)

    def written(self, path: Path) -> None:
        self.stdout.write(f"{path}: {len(entries())} result codes")
