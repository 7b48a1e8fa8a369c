"""python manage.py issuer_catalogue [--write docs/issuer.md]

Prints the catalogue's operations group by group (or, with --write, replaces the part between
the markers in the given Markdown file): a table of every group's OAuth scopes (from the
catalogue's own scope table, the one the API checks tokens against), each group's scope line,
and for each operation its prepaid and debit letters, its request table (from the operation's
own table, the one that validates the requests) and its example request
(issuer.operations.examples, which the tests run in order against the demo cards).
tests/issuer/test_docs_issuer.py checks the file is up to date.
"""

import json
import re

from core.generated_docs import GeneratedDocCommand, replace_between
from issuer.catalogue import CATALOGUE, SCOPE_DESCRIPTIONS
from issuer.operations import IMPLEMENTED
from issuer.operations.examples import EXAMPLES, GIVEN

START = (
    "<!-- catalogue:start (.venv/bin/python manage.py issuer_catalogue --write docs/issuer.md) -->"
)
END = "<!-- catalogue:end -->"
# In the order of the examples: followed down the page, each one works (the ids it names come
# from an example above it).
GROUPS = (
    "parameter",
    "application",
    "customer",
    "transaction",
    "token",
    "card",
    "account",
    "authentication",
)
LETTER_WORDS = {None: "any product", "M": "M", "O": "O", "C": "C", "NA": "NA"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _example(group: str, name: str) -> str:
    """The operation's examples (a second one: "Or"), each with where its `<name>`s come from."""
    shown: list[str] = []
    for g, n, payload, keep, expected in EXAMPLES:
        if (g, n) == (group, name):
            text = json.dumps(payload, indent=1, ensure_ascii=False)
            note = f" (answers `{expected}`)" if expected else ""
            lead = "Or" if shown else "Example"
            given = [
                f"`<{label}>` is {what}" for label, what in GIVEN.items() if f"<{label}>" in text
            ]
            before = f"\n{'; '.join(given)}.\n" if given else ""
            kept = ", ".join(f"`<{label}>` is its `{path}`" for label, path in keep.items())
            after = f"\nFrom the answer: {kept}.\n" if kept else ""
            shown.append(f"{lead}{note}:\n\n```json\n{text}\n```\n{before}{after}")
    return "\n".join(shown)


def payload_labels(text: str) -> set[str]:
    return set(re.findall(r"<(\w+)>", text))


def _order(group: str) -> list[str]:
    """The group's operations in the order of the examples."""
    return list(dict.fromkeys(n for g, n, *_ in EXAMPLES if g == group))


def scopes_of(group: str) -> dict[str, list[str]]:
    """{scope: the group's operations that need it}, from the catalogue (the scopes the API
    checks an access token for)."""
    found: dict[str, list[str]] = {}
    for (g, name), entry in CATALOGUE.items():
        if g == group:
            found.setdefault(entry.scope, []).append(name)
    return found


def scope_table() -> list[str]:
    rows = [
        "| Group | OAuth scope | Operations |",
        "|---|---|---|",
    ]
    for group in GROUPS:
        for scope, names in scopes_of(group).items():
            rows.append(f"| {group} | `{scope}` | {', '.join(names)} |")
    return [*rows, ""]


def _scope_line(group: str) -> str:
    scopes = scopes_of(group)
    if len(scopes) == 1:
        [scope] = scopes
        return f"Every operation of the group needs an access token with the scope `{scope}`."
    needs = "; ".join(f"`{scope}` for {', '.join(names)}" for scope, names in scopes.items())
    return f"The group's operations need an access token with the scope: {needs}."


def _heading(group: str) -> str:
    scopes = list(scopes_of(group))
    listed = ", ".join(f"`{scope}`" for scope in scopes)
    return f"### The {group.capitalize()} group (scope{'s' if len(scopes) > 1 else ''} {listed})"


def document() -> str:
    lines: list[str] = [
        "Each group and the OAuth scope its operations need (a token without it is refused "
        "with 403 `insufficient_scope`):",
        "",
        *scope_table(),
    ]
    for group in GROUPS:
        operations = [IMPLEMENTED[(group, name)] for name in _order(group)]
        several = len(scopes_of(group)) > 1
        described = ". ".join(
            SCOPE_DESCRIPTIONS.get(scope, "")
            for scope in dict.fromkeys(op.scope for op in operations)
        )
        lines += [_heading(group), "", f"{described}. {_scope_line(group)}", ""]
        for op in operations:
            entry = op.entry
            letters = (
                f"prepaid {LETTER_WORDS[entry.prepaid]}, debit {LETTER_WORDS[entry.debit]}"
                if entry.prepaid or entry.debit
                else "no product letters"
            )
            scope = f"scope `{op.scope}`, " if several else ""
            lines += [
                f"#### {op.path} ({scope}{letters})",
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
