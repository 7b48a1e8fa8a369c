"""Logging: the request's ndc and context on every line, no query strings in request lines, and
the two formats (LOG_FORMAT: `text` for a person at a terminal, `json` for a log pipeline: one
JSON object per line, every field of the record a key)."""

import logging
import os
import re
from collections.abc import Mapping
from typing import Any

from .context import get_ndc, log_fields

# A path followed by its query string, inside a request line or a message: `/a/b?x=1` -> `/a/b`.
_QUERY_STRING = re.compile(r"(/[^\s?\"']*)\?[^\s\"']*")


class NdcFilter(logging.Filter):
    """Puts the current request's ndc on every log record (`%(ndc)s` in the format), and the
    fields bound for the request or task (core.context.bind_log: entity, merchant, resultCode),
    which the JSON format writes as keys of their own."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.ndc = get_ndc()
        for name, value in log_fields().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


def log_format(environ: Mapping[str, str] = os.environ) -> str:
    """LOG_FORMAT, by default `json` in production (DJANGO_DEBUG false) and `text` in the demo.
    Read from the environment so gunicorn's own logger (config/gunicorn_logging.py), which is
    set up before Django, makes the same choice as the settings."""
    chosen = environ.get("LOG_FORMAT", "").strip().lower()
    if chosen in ("json", "text"):
        return chosen
    if chosen:
        raise ValueError(f"LOG_FORMAT must be json or text, not {chosen!r}")
    debug = environ.get("DJANGO_DEBUG", "true").strip().lower() in ("1", "true", "yes", "on")
    return "text" if debug else "json"


# The JSON format's fixed keys; every other attribute of a record (the ndc, the bound fields,
# a call's `extra`) follows under its own name.
JSON_FORMAT = "%(levelname)s %(name)s %(ndc)s %(message)s"
JSON_RENAMED = {"levelname": "level", "name": "logger"}


def json_formatter() -> logging.Formatter:
    """python-json-logger's formatter: `timestamp` (ISO 8601, UTC), `level`, `logger`, `ndc`,
    `message`, then the record's other fields; a traceback as `exc_info`."""
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(JSON_FORMAT, rename_fields=JSON_RENAMED, timestamp=True)


def without_query_string(value: Any) -> Any:
    return _QUERY_STRING.sub(r"\1", value) if isinstance(value, str) else value


class NoQueryString(logging.Filter):
    """Drops the query string from the paths Django logs (`django.server`'s request line,
    `django.request`'s messages): a client that put card data in the URL must not have it
    written to the log, even though the API refuses such a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = without_query_string(record.msg)
        if isinstance(record.args, Mapping):
            record.args = {key: without_query_string(v) for key, v in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(without_query_string(arg) for arg in record.args)
        return True
