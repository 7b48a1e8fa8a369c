"""Request parsers: form bodies (and JSON) with dotted and indexed names become nested data.

The parsers read the body themselves (DRF hands them the stream), so Django's own limits never
apply to it; the same settings are enforced here, for both media types:

- DATA_UPLOAD_MAX_MEMORY_SIZE: the body's bytes. Checked from Content-Length before anything is
  read, and again while reading (a body whose length was not announced). 413, 200.100.101.
- DATA_UPLOAD_MAX_NUMBER_FIELDS: form fields, JSON values (and query parameters). 400.
- DATA_UPLOAD_MAX_NESTING_DEPTH: the parts of a name (`cart.items[0].name` has four) and the
  levels of a JSON document. 400, before anything recursive sees the data.

None of the three settings set to None lifts that limit, as in Django.

Text is decoded strictly: a form value or a query parameter that is not valid in its charset
(UTF-8 unless the request declares another) is refused naming it, where Django would keep it
with replacement characters; so is a JSON string with a lone surrogate escape (`"\ud800"`),
which no database can store.
"""

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import QueryDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from .errors import InvalidRequest, ParameterError
from .nesting import NameError_, TooDeep, child_name, unflatten

READ_CHUNK = 64 * 1024
# A lone surrogate: what a JSON escape like "\ud800" decodes to; not text any database takes.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def _limit(name: str) -> int | None:
    value = getattr(settings, name, None)
    return None if value is None else int(value)


def too_large(limit: int) -> InvalidRequest:
    return InvalidRequest(
        description=f"the body is larger than {limit} bytes, the limit of this API",
        http_status=413,
    )


def too_many_fields(limit: int) -> InvalidRequest:
    return InvalidRequest(description=f"the request has more than {limit} fields")


def too_deep(limit: int) -> InvalidRequest:
    return InvalidRequest(description=f"a parameter is nested deeper than {limit} levels")


def nest_pairs(pairs: Iterable[tuple[str, list[str]]]) -> dict[str, Any]:
    try:
        return unflatten(pairs, max_depth=_limit("DATA_UPLOAD_MAX_NESTING_DEPTH"))
    except TooDeep as exc:
        raise too_deep(exc.max_depth) from None
    except NameError_ as exc:
        raise ParameterError([(exc.name, None, exc.message)]) from exc


def form_pairs(raw: bytes, encoding: str = "utf-8") -> list[tuple[str, list[str]]]:
    """(name, values) of a form-encoded body or query string, in order, decoded strictly: a
    value not valid in `encoding` is a ParameterError naming it, an unreadable name a
    request-level refusal (there is nothing to name). At most DATA_UPLOAD_MAX_NUMBER_FIELDS."""
    pieces = [piece for piece in raw.split(b"&") if piece]
    limit = _limit("DATA_UPLOAD_MAX_NUMBER_FIELDS")
    if limit is not None and len(pieces) > limit:
        raise too_many_fields(limit)
    fields: dict[str, list[str]] = {}
    errors: list[tuple[str, Any, str]] = []
    for piece in pieces:
        raw_name, _, raw_value = piece.partition(b"=")
        try:
            name = unquote_to_bytes(raw_name.replace(b"+", b" ")).decode(encoding)
        except UnicodeDecodeError:
            raise ParseError(f"a parameter name is not valid {encoding.upper()} text") from None
        try:
            value = unquote_to_bytes(raw_value.replace(b"+", b" ")).decode(encoding)
        except UnicodeDecodeError:
            errors.append((name, None, f"is not valid {encoding.upper()} text"))
            continue
        fields.setdefault(name, []).append(value)
    if errors:
        raise ParameterError(errors)
    return list(fields.items())


def nest_query(query: QueryDict) -> dict[str, Any]:
    """Query parameters (GET) nested the same way as a form body."""
    return nest_pairs(query.lists())


def content_length(meta: Any) -> int | None:
    try:
        return int(meta.get("CONTENT_LENGTH") or meta.get("HTTP_CONTENT_LENGTH") or "")
    except ValueError:
        return None


def read_body(stream: Any, parser_context: dict[str, Any] | None) -> bytes:
    """The body, at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes: refused from Content-Length before
    it is read, and while reading when the length was not announced (or was wrong)."""
    limit = _limit("DATA_UPLOAD_MAX_MEMORY_SIZE")
    request = (parser_context or {}).get("request")
    announced = content_length(getattr(request, "META", {}))
    if limit is not None and announced is not None and announced > limit:
        raise too_large(limit)
    if stream is None:
        return b""
    chunks, total = [], 0
    while True:
        chunk = stream.read(READ_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if limit is not None and total > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


class NestedFormParser(BaseParser):
    media_type = "application/x-www-form-urlencoded"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        body = read_body(stream, parser_context)
        if body.lstrip()[:1] in (b"{", b"["):
            # No form name starts with a brace or a bracket; a JSON body sent with the form's
            # Content-Type would otherwise be answered "entityId is required".
            raise ParseError(
                "the body looks like JSON but was sent as application/x-www-form-urlencoded: "
                "send it with Content-Type: application/json"
            )
        try:
            return nest_pairs(form_pairs(body, encoding))
        except LookupError:  # an unknown charset
            raise ParseError(f"unknown charset {encoding}") from None


class _JSONObject(dict[str, Any]):
    """A JSON object that remembers the keys it was given more than once."""

    repeated: list[str]


def _json_object(pairs: list[tuple[str, Any]]) -> _JSONObject:
    obj = _JSONObject()
    obj.repeated = []
    for key, value in pairs:
        if key in obj:
            obj.repeated.append(key)
        obj[key] = value
    return obj


class NestedJSONParser(BaseParser):
    """JSON bodies, nested or with dotted keys; numbers keep their text (10.50 stays '10.50').
    A key given twice in one object is refused, as a repeated form name is (json keeps the last
    value silently)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        body = read_body(stream, parser_context)
        if not body:
            return {}
        depth = _limit("DATA_UPLOAD_MAX_NESTING_DEPTH")
        try:
            data = json.loads(body, parse_float=str, parse_int=str, object_pairs_hook=_json_object)
        except RecursionError:
            # json's C scanner refuses documents deeper than the interpreter's recursion limit.
            raise too_deep(depth or 0) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError("the JSON body is malformed") from exc
        if not isinstance(data, dict):
            raise ParseError("the JSON body must be an object")
        return nest_pairs(
            (name, [_to_text(value)])
            for name, value in json_leaves(
                data, max_depth=depth, max_fields=_limit("DATA_UPLOAD_MAX_NUMBER_FIELDS")
            )
        )


def json_leaves(
    data: dict[str, Any], *, max_depth: int | None, max_fields: int | None
) -> list[tuple[str, Any]]:
    """(dotted name, scalar) of every value of a JSON object, without recursion: refused when
    a value lies deeper than `max_depth` levels or there are more than `max_fields` values."""
    leaves: list[tuple[str, Any]] = []
    repeated: list[tuple[str, Any, str]] = []
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    while stack:
        prefix, node, depth = stack.pop()
        if isinstance(node, dict | list):
            if max_depth is not None and depth >= max_depth and node:
                raise too_deep(max_depth)
            if isinstance(node, dict) and any(_SURROGATE.search(key) for key in node):
                raise ParseError("a JSON key is not valid Unicode text")
            for key in dict.fromkeys(getattr(node, "repeated", ())):
                repeated.append((child_name(prefix, key), None, "given more than once"))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            children = []
            for key, value in items:
                name = (
                    child_name(prefix, str(key)) if isinstance(node, dict) else f"{prefix}[{key}]"
                )
                children.append((name, value, depth + 1))
            stack.extend(reversed(children))
        else:
            if isinstance(node, str) and _SURROGATE.search(node):
                raise ParameterError([(prefix, None, "is not valid Unicode text")])
            leaves.append((prefix, node))
            if max_fields is not None and len(leaves) > max_fields:
                raise too_many_fields(max_fields)
    if repeated:
        raise ParameterError(repeated)
    return leaves
