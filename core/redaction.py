"""What a log line or an error may show: a request target without its query string (a client
that put card data there anyway must not find it in the logs), secrets that travel in a path
replaced by `***` (each app registers the patterns of its own secret links), and card numbers
masked wherever they appear (`mask_pans`: the logging filter of every handler, the access logs'
paths, the error answers)."""

import re
from typing import Any

from stdnum import luhn

MASK = "***"
_SECRET_PATHS: list[re.Pattern[str]] = []


def register_secret_path(pattern: str) -> None:
    """A regular expression over the path whose groups are secrets (masked in logs)."""
    _SECRET_PATHS.append(re.compile(pattern))


def safe_path(path: str) -> str:
    """The path as a log line shows it: no query string, registered secrets and card numbers
    masked."""
    path = mask_pans(path.split("?", 1)[0])
    for pattern in _SECRET_PATHS:
        match = pattern.search(path)
        if match:
            for index in range(match.re.groups, 0, -1):
                start, end = match.span(index)
                if start >= 0:
                    path = path[:start] + MASK + path[end:]
    return path


# --- Card numbers, wherever they are ----------------------------------------------------------
# A run of digit groups, each joined by one space or dash ("4111 1111 1111 1111", "4111-1111-..."),
# not glued to a hex digit before or after it (the digits inside a request id or a UUID), except a
# percent-escape's (`%3D4111...`).
_DIGIT_RUN = re.compile(
    r"(?:(?<![0-9A-Fa-f])|(?<=%[0-9A-Fa-f]{2}))[0-9]+(?:[ -][0-9]+)*(?![0-9A-Fa-f])"
)
_GROUP = re.compile(r"[0-9]+")
PAN_MIN, PAN_MAX = 13, 19


def mask_pans(text: str) -> str:
    """`text` with every card number in it masked to its first six and last four digits
    (`411111******1111`): any 13 to 19 digits that pass the Luhn check, written in one piece or
    in groups split by spaces or dashes, whatever names or surrounds them. A run of groups is
    searched at each group's start, so a card number after other numbers is found too."""
    if not text or len(text) < PAN_MIN:
        return text
    spans: list[tuple[int, int, str]] = []
    for run in _DIGIT_RUN.finditer(text):
        groups = [
            (g.start() + run.start(), g.end() + run.start(), g.group())
            for g in _GROUP.finditer(run.group())
        ]
        first = 0
        while first < len(groups):
            digits = ""
            for last in range(first, len(groups)):
                digits += groups[last][2]
                if len(digits) > PAN_MAX:
                    break
                if len(digits) >= PAN_MIN and luhn.is_valid(digits):
                    spans.append((groups[first][0], groups[last][1], digits))
                    first = last  # continue after this card number
                    break
            first += 1
    for start, end, digits in reversed(spans):
        text = text[:start] + digits[:6] + "*" * (len(digits) - 10) + digits[-4:] + text[end:]
    return text


def mask_pans_in(value: Any) -> Any:
    """A JSON-like value with `mask_pans` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return mask_pans(value)
    if isinstance(value, dict):
        return {mask_pans_in(k): mask_pans_in(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(mask_pans_in(v) for v in value)
    return value
