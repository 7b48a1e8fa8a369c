"""What a log line may show of a request target: the path without its query string (a client
that put card data there anyway must not find it in the logs), and secrets that travel in a path
replaced by `***` (each app registers the patterns of its own secret links)."""

import re

MASK = "***"
_SECRET_PATHS: list[re.Pattern[str]] = []


def register_secret_path(pattern: str) -> None:
    """A regular expression over the path whose groups are secrets (masked in logs)."""
    _SECRET_PATHS.append(re.compile(pattern))


def safe_path(path: str) -> str:
    """The path as a log line shows it: no query string, registered secrets masked."""
    path = path.split("?", 1)[0]
    for pattern in _SECRET_PATHS:
        match = pattern.search(path)
        if match:
            for index in range(match.re.groups, 0, -1):
                start, end = match.span(index)
                if start >= 0:
                    path = path[:start] + MASK + path[end:]
    return path
