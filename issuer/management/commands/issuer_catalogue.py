"""python manage.py issuer_catalogue [--write docs/issuer.md]

Prints the catalogue's operations group by group (or, with --write, replaces the part between
the markers in the given Markdown file): each group's scope, and for each operation its
prepaid and debit letters, its request table (from the operation's own table, the one that
validates the requests) and its example request (issuer.operations.examples, which the tests
run in order against the demo cards). tests/issuer/test_docs_catalogue.py checks the file is
up to date.
"""

import json

from core.generated_docs import GeneratedDocCommand, replace_between
from issuer.operations import IMPLEMENTED
from issuer.operations.catalogue import SCOPE_DESCRIPTIONS
from issuer.operations.examples import EXAMPLES

START = (
    "<!-- catalogue:start (.venv/bin/python manage.py issuer_catalogue --write docs/issuer.md) -->"
)
END = "<!-- catalogue:end -->"
# In the order of the examples: followed down the page, each one works (the ids it names come
# from an example above it).
GROUPS = ("parameter", "application", "customer", "transaction", "token", "card", "account")
LETTER_WORDS = {None: "any product", "M": "M", "O": "O", "C": "C", "NA": "NA"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _example(group: str, name: str) -> str:
    for g, n, payload, keep, expected in EXAMPLES:
        if (g, n) == (group, name):
            text = json.dumps(payload, indent=1, ensure_ascii=False)
            note = f" (answers `{expected}`)" if expected else ""
            kept = ", ".join(f"`<{label}>` is its `{path}`" for label, path in keep.items())
            after = f"\nFrom the answer: {kept}.\n" if kept else ""
            return f"Example{note}:\n\n```json\n{text}\n```\n{after}"
    return ""


def _order(group: str) -> list[str]:
    """The group's operations in the order of the examples."""
    return list(dict.fromkeys(n for g, n, *_ in EXAMPLES if g == group))


def document() -> str:
    lines: list[str] = []
    for group in GROUPS:
        operations = [IMPLEMENTED[(group, name)] for name in _order(group)]
        scope = operations[0].scope
        lines += [
            f"### The {group.capitalize()} group (scope `{scope}`)",
            "",
            f"{SCOPE_DESCRIPTIONS.get(scope, '')}.",
            "",
        ]
        for op in operations:
            entry = op.entry
            letters = (
                f"prepaid {LETTER_WORDS[entry.prepaid]}, debit {LETTER_WORDS[entry.debit]}"
                if entry.prepaid or entry.debit
                else "no product letters"
            )
            lines += [
                f"#### {op.path} ({letters})",
                "",
                f"{op.summary[:1].upper()}{op.summary[1:]}.",
                "",
            ]
            rows = ["| Field | Req | Format | Meaning |", "|---|---|---|---|"]
            for spec in op.table:
                req = {"M": "M", "O": "O", "C": "C"}.get(spec.req, spec.req)
                rows.append(
                    f"| `{spec.name}` | {req} | {_cell(spec.type.describe())} | "
                    f"{_cell(spec.meaning)}{' (never echoed)' if spec.secret else ''} |"
                )
            lines += [*rows, "", _example(group, op.name)]
    return "\n".join(lines).rstrip() + "\n"


def replaced(text: str) -> str:
    return replace_between(text, START, END, "\n" + document())


class Command(GeneratedDocCommand):
    help = "Print (or write into docs/issuer.md) the catalogue's operations, group by group."
    start, end = START, END
    generate = staticmethod(lambda: "\n" + document())
