"""Logging: the request's ndc and context on every line, no query strings in request lines, no
card number in any line (`MaskCardNumbers`, on every handler), and the two formats (LOG_FORMAT:
`text` for a person at a terminal, `json` for a log pipeline: one JSON object per line, every
field of the record a key)."""

import logging
import os
import re
from collections.abc import Mapping
from typing import Any

from .context import get_ndc, log_fields
from .redaction import mask_pans, mask_pans_in

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

    class Formatter(JsonFormatter):
        def formatException(self, ei) -> str:  # type: ignore[no-untyped-def]  # noqa: N802
            # It formats exc_info itself rather than take the filter's masked exc_text.
            return mask_pans(str(super().formatException(ei)))

    return Formatter(JSON_FORMAT, rename_fields=JSON_RENAMED, timestamp=True)


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


# What every LogRecord has of its own; any other attribute came from `extra` or a filter.
_RECORD_ATTRIBUTES = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class MaskCardNumbers(logging.Filter):
    """Card numbers masked in whatever a handler writes (core.redaction.mask_pans): the message
    with its arguments, every field a call or a filter added (`extra`, the JSON format's keys),
    a traceback and a stack. On the handler, so that records of every logger (Django's,
    gunicorn's, Celery's, a library's) pass it, whatever name the card number came under."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format: the formatter reports it as it would
            return True
        record.msg, record.args = mask_pans(str(message)), None
        for name, value in list(record.__dict__.items()):
            if name not in _RECORD_ATTRIBUTES and isinstance(value, str | dict | list | tuple):
                setattr(record, name, mask_pans_in(value))
        if record.exc_info and not record.exc_text:
            # Formatted once here, masked, and kept as the text the formatters write (the JSON
            # one masks its own formatting too); exc_info stays for handlers that want it.
            record.exc_text = mask_pans(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = mask_pans(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_pans(record.stack_info)
        return True
