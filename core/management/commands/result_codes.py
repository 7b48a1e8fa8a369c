"""python manage.py result_codes [--write docs/api.md]

Prints the table of the families the declared codes fall in (their names as core.results names
them for people, and which are declines) and the table of every declared result code
(core.results: the registry the apps declare their codes in), or with --write replaces them
between the markers in the given Markdown file, so the documented catalogue can never miss a code
nor name a family otherwise than the portal does (tests/core/test_results.py checks it).
"""

from pathlib import Path

from django.apps import apps as django_apps

from core.generated_docs import GeneratedDocCommand, replace_between
from core.results import DECLINE_FAMILIES, FAMILIES, FAMILY_NAMES, entries, family_of

START = "<!-- result-codes:start (.venv/bin/python manage.py result_codes --write docs/api.md) -->"
END = "<!-- result-codes:end -->"


def families() -> str:
    """One row per family some declared code is of, in the registry's order (the first pattern
    that matches names a code's family): its name, its pattern, and whether it is a decline."""
    used = {family_of(entry.result.code) for entry in entries()}
    lines = ["| Family | Pattern | Decline |", "|---|---|---|"]
    for name, pattern in FAMILIES:
        if name in used:
            escaped = pattern.pattern.replace("|", "\\|")
            decline = "yes" if name in DECLINE_FAMILIES else ""
            lines.append(f"| {FAMILY_NAMES[name]} | `{escaped}` | {decline} |")
    return "\n".join(lines)


def table() -> str:
    """The families, then one row per code: the apps in INSTALLED_APPS order, each app's codes
    as it declares them."""
    return f"{families()}\n\n{codes()}"


def codes() -> str:
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
