"""Logging filters: the request's ndc on every line; no query strings in request lines."""

import logging
import re
from collections.abc import Mapping
from typing import Any

from .context import get_ndc

# A path followed by its query string, inside a request line or a message: `/a/b?x=1` -> `/a/b`.
_QUERY_STRING = re.compile(r"(/[^\s?\"']*)\?[^\s\"']*")


class NdcFilter(logging.Filter):
    """Puts the current request's ndc on every log record (`%(ndc)s` in the format)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.ndc = get_ndc()
        return True


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
