"""What gunicorn answers by itself, in JSON: a request line longer than `limit_request_line`
(414), headers beyond `limit_request_fields` or `limit_request_field_size` (431), a request gunicorn
cannot parse (400), an application that raised instead of answering (500).

gunicorn answers these before the application sees the request, with an HTML page of its own
(`gunicorn.util.write_error`, called by every worker's `handle_error`) and, for most of them,
before it has read the path: it cannot tell an API client from a browser. So every such answer
is one JSON object that serves both kinds of JSON client: the API envelope (`result.code`
200.100.101, or 999.999.999 for a 500, `buildNumber`, `timestamp`, `ndc`) and RFC 6749's error
members (`error`, `error_description`) for the issuer's OAuth clients. Nothing of the request is
echoed: gunicorn's message may quote the request line, and that may hold a card number.

config/gunicorn.conf.py installs it (`install`); tests/core/test_gunicorn_errors.py sends each
of these to a real gunicorn and fails if gunicorn stops calling `util.write_error`.
"""

import json
from typing import Any

from gunicorn import util

JSON_HEADERS = "Connection: close\r\nContent-Type: application/json\r\n"


def error_body(status: int, reason: str) -> dict[str, Any]:
    from core import results
    from core.context import new_ndc, set_ndc
    from core.envelope import envelope

    set_ndc(new_ndc())
    if status >= 500:
        body = envelope(results.UNEXPECTED_ERROR)
        return {**body, "error": "server_error", "error_description": "unexpected error"}
    description = f"invalid request message: {reason}"
    body = envelope(results.INVALID_REQUEST, description=description)
    return {**body, "error": "invalid_request", "error_description": description}


def write_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:  # noqa: ARG001
    """gunicorn's `util.write_error`, answering JSON (`mesg`, which may quote the request, is
    left out)."""
    body = json.dumps(error_body(status_int, reason)).encode()
    head = f"HTTP/1.1 {status_int} {reason}\r\n{JSON_HEADERS}Content-Length: {len(body)}\r\n\r\n"
    util.write_nonblock(sock, head.encode("latin1") + body)


def install() -> None:
    util.write_error = write_error
