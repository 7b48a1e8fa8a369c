"""Parts of the Markdown docs generated from the code (the result-code table, the issuer
catalogue): the text between two markers is replaced, so the hand-written rest stays."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


def replace_between(text: str, start: str, end: str, body: str) -> str:
    """`text` with what stands between the markers replaced by `body`."""
    head, found, rest = text.partition(start)
    _, found_end, tail = rest.partition(end)
    if not (found and found_end):
        raise ValueError(f"the markers {start!r} and {end!r} are missing")
    return f"{head}{start}\n{body}\n{end}{tail}"


class GeneratedDocCommand(BaseCommand):
    """Print a generated part, or with --write FILE replace it between the markers."""

    start = ""
    end = ""
    generate: Callable[[], str]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", metavar="FILE", help="replace the part in this file")

    def written(self, path: Path) -> None:
        """What to print once `path` is written."""

    def handle(self, *args: Any, **options: Any) -> None:
        body = type(self).generate()
        if not options["write"]:
            self.stdout.write(body)
            return
        path = Path(options["write"])
        try:
            path.write_text(replace_between(path.read_text(), self.start, self.end, body))
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.written(path)
