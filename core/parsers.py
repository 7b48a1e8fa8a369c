"""Request parsers: form bodies (and JSON) with dotted and indexed names become nested data."""

import json
from typing import Any

from django.conf import settings
from django.http import QueryDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from .errors import ParameterError
from .nesting import NameError_, flatten, unflatten


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def nest_pairs(pairs: Any) -> dict[str, Any]:
    try:
        return unflatten(pairs)
    except NameError_ as exc:
        raise ParameterError([(exc.name, None, exc.message)]) from exc


def nest_query(query: QueryDict) -> dict[str, Any]:
    """Query parameters (GET) nested the same way as a form body."""
    return nest_pairs(query.lists())


class NestedFormParser(BaseParser):
    media_type = "application/x-www-form-urlencoded"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        body = stream.read() if stream is not None else b""
        if body.lstrip()[:1] in (b"{", b"["):
            # No form name starts with a brace or a bracket; a JSON body sent with the form's
            # Content-Type would otherwise be answered "entityId is required".
            raise ParseError(
                "the body looks like JSON but was sent as application/x-www-form-urlencoded: "
                "send it with Content-Type: application/json"
            )
        try:
            query = QueryDict(body, encoding=encoding)
        except UnicodeDecodeError as exc:
            raise ParseError("the form body is not valid text in its charset") from exc
        return nest_pairs(query.lists())


class NestedJSONParser(BaseParser):
    """JSON bodies, nested or with dotted keys; numbers keep their text (10.50 stays '10.50')."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        body = stream.read() if stream is not None else b""
        if not body:
            return {}
        try:
            data = json.loads(body, parse_float=str, parse_int=str)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError("the JSON body is malformed") from exc
        if not isinstance(data, dict):
            raise ParseError("the JSON body must be an object")
        return nest_pairs((name, [_to_text(value)]) for name, value in flatten(data))
