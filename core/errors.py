"""One exception hierarchy, and one function that turns any exception into the envelope.

Every refusal the platform raises is an `ApplicationError`: a result code, an HTTP status and
safe data. Refused workflows are HTTP 200 (the code is the truth, as in the anchor API); invalid
parameters 400 (`ParameterError`, with `result.parameterErrors` by dotted name); missing objects
404; forbidden 403; a state that cannot change again 409; a dependency that is down 503.

`error_answer(exc)` is the only place that turns an exception into a status, an envelope and
headers. The DRF exception handler uses it; so do the JSON error pages of paths outside DRF and
the issuer's JWE API, which encrypts the same envelope. DRF's and Django's own exceptions map to
401 (800.900.300), 403 (800.900.301), 404, 429 (800.120.100, with `Retry-After`: core.ratelimit),
400/405/413/415 (200.100.101). The database out of
reach (Django's OperationalError or InterfaceError: refused, dropped, timed out) is HTTP 503,
800.800.800, with `Retry-After`: the client retries, nothing of its request is half-written
(docs/operations.md, "Faults"). Anything else is HTTP 500, 999.999.999, logged with the ndc; the
body shows nothing internal.

Values of card data and secrets are never echoed: a table row marked `secret` masks its value
when the error is made, `safe_value` masks the card fields and secret-looking names again here,
for errors raised outside a table, and any card number left in an error's body, under whatever
name, is masked to its first six and last four digits (core.redaction.mask_pans).
"""

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

from . import results
from .nesting import SENSITIVE_NAMES, lookup
from .redaction import mask_pans_in

logger = logging.getLogger("core.errors")

MASKED = "***"
MAX_ECHO = 255
MAX_PARAMETER_ERRORS = 50
SECRET_SUFFIXES = frozenset({"cvv", "pin", "password", "token"})
# What a 503 for an unreachable database asks the client to wait before it retries.
DATABASE_RETRY_AFTER_SECONDS = 2


class ApplicationError(Exception):
    """A refusal with a result code. `http_status` 200 for business refusals (stored answers)."""

    http_status = 200
    default_result: results.Result | None = None

    def __init__(
        self,
        result: results.Result | None = None,
        description: str | None = None,
        *,
        http_status: int | None = None,
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        result = result or self.default_result
        assert result is not None, f"{type(self).__name__} needs a result code"
        super().__init__(description or result.description)
        self.result = result
        self.description = description or result.description
        if http_status is not None:
            self.http_status = http_status
        self.data = dict(data or {})
        self.headers = dict(headers or {})

    def extra_result(self) -> dict[str, Any]:
        """Members added to the answer's `result` block (parameterErrors)."""
        return {}


class NotFound(ApplicationError):
    http_status = 404
    default_result = results.RESOURCE_NOT_FOUND


class Forbidden(ApplicationError):
    http_status = 403
    default_result = results.NOT_AUTHORIZED

    def __init__(self, description: str | None = None, **kwargs: Any):
        super().__init__(None, description, **kwargs)


class Conflict(ApplicationError):
    """The object is in a state that cannot change again (a second completion, an answer to a
    decided authentication)."""

    http_status = 409


class Unavailable(ApplicationError):
    """Something the answer depends on cannot be reached now; the client may retry."""

    http_status = 503


class InvalidRequest(ApplicationError):
    """The request as a whole is not accepted: its body, media type, method or size."""

    http_status = 400
    default_result = results.INVALID_REQUEST


class ParameterError(ApplicationError):
    """Invalid or missing parameters: a list of (dotted name, submitted value, message).

    The answer lists at most MAX_PARAMETER_ERRORS of them (the description says how many there
    are): a body of thousands of unknown names must not be answered with a body larger still."""

    http_status = 400
    default_result = results.INVALID_PARAMETER

    def __init__(self, errors: Iterable[tuple[str, Any, str]]):
        self.errors = list(errors)
        description = None
        if len(self.errors) > MAX_PARAMETER_ERRORS:
            more = len(self.errors) - MAX_PARAMETER_ERRORS
            description = (
                f"{results.INVALID_PARAMETER.description}: {len(self.errors)} problems, the first "
                f"{MAX_PARAMETER_ERRORS} listed ({more} more)"
            )
        super().__init__(description=description)
        self.args = ("; ".join(f"{name}: {message}" for name, _, message in self.errors[:100]),)

    def extra_result(self) -> dict[str, Any]:
        return {
            "parameterErrors": [
                {"name": _cut(name), "value": safe_value(name, value), "message": message}
                for name, value, message in self.errors[:MAX_PARAMETER_ERRORS]
            ]
        }


def safe_value(name: str, value: Any) -> Any:
    """The submitted value as it may be echoed: card data and secrets masked, long text cut."""
    if value is None:
        return None
    if name in SENSITIVE_NAMES or name.rsplit(".", 1)[-1].lower() in SECRET_SUFFIXES:
        return MASKED
    return _cut(str(value))


def _cut(text: str) -> str:
    """Echoed text (a value, a name) at most MAX_ECHO characters."""
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "..."


def flatten_errors(detail: Any, prefix: str = "") -> Iterable[tuple[str, str]]:
    """DRF's nested error detail -> (dotted name, message). Int keys become [i]; '[k]' keys stay."""
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            if key == "non_field_errors":
                name = prefix
            elif isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
                name = f"{prefix}[{key}]"
            elif isinstance(key, str) and key.startswith("["):
                name = f"{prefix}{key}"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            yield from flatten_errors(value, name)
    elif isinstance(detail, Sequence) and not isinstance(detail, str):
        if detail and all(isinstance(item, Mapping) for item in detail):
            for index, item in enumerate(detail):  # ListSerializer: one dict per item
                yield from flatten_errors(item, f"{prefix}[{index}]")
        else:
            for item in detail:
                yield from flatten_errors(item, prefix)
    else:
        yield prefix or "body", str(detail)


def parameter_error_from_validation(detail: Any, data: Any) -> ParameterError:
    return ParameterError(
        (name, lookup(data, name), message) for name, message in flatten_errors(detail)
    )


@dataclass(frozen=True)
class ErrorAnswer:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def error_answer(exc: BaseException, *, request: Any = None) -> ErrorAnswer:
    """The one mapping of an exception to an HTTP status, an envelope and headers."""
    from .envelope import envelope  # the envelope module imports this one

    if isinstance(exc, drf.ValidationError):
        exc = parameter_error_from_validation(exc.detail, getattr(request, "data", None))
    if isinstance(exc, ApplicationError):
        # Card numbers masked wherever they are: a value or a name the client sent in the wrong
        # place (an unknown parameter, a list, a path segment), or a description that quotes it.
        body = mask_pans_in(
            envelope(exc.result, description=exc.description, data=exc.data, **exc.extra_result())
        )
        return ErrorAnswer(exc.http_status, body, exc.headers)
    if is_database_unavailable(exc):
        # One line, no traceback: an outage fails every request at once, and the cause is in
        # the first line (refused, closed, timed out).
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        logger.warning(
            "database unavailable in %s: %s %s",
            getattr(request, "path", "?"),
            type(exc).__name__,
            first,
        )
        headers = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
        return ErrorAnswer(503, envelope(results.DATABASE_UNAVAILABLE), headers)
    mapped = _framework(exc)
    if mapped is not None:
        status, result, description, headers = mapped
        body = mask_pans_in(envelope(result, description=description))
        return ErrorAnswer(status, body, headers)
    logger.exception("unexpected error in %s", getattr(request, "path", "?"), exc_info=exc)
    return ErrorAnswer(500, envelope(results.UNEXPECTED_ERROR))


def is_database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the database cannot be used now (connection refused or lost, a
    server shutting down, a timeout): Django's wrappers of the driver's errors."""
    return isinstance(exc, OperationalError | InterfaceError)


def _framework(
    exc: BaseException,
) -> tuple[int, results.Result, str | None, dict[str, str]] | None:
    """DRF's and Django's own exceptions: (status, result, description, headers), or None."""
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return (
            401,
            results.INVALID_AUTHENTICATION,
            _detail(exc),
            {"WWW-Authenticate": 'Bearer realm="api"'},
        )
    if isinstance(exc, drf.PermissionDenied | DjangoPermissionDenied):
        return 403, results.NOT_AUTHORIZED, _detail(exc), {}
    if isinstance(exc, drf.NotFound | Http404):
        return 404, results.RESOURCE_NOT_FOUND, None, {}
    if isinstance(exc, drf.Throttled):  # core.ratelimit: the entity is over API_RATE_LIMIT
        wait = str(math.ceil(getattr(exc, "wait", None) or 1))
        return 429, results.RATE_LIMITED, None, {"Retry-After": wait}
    if isinstance(exc, RequestDataTooBig):
        return 413, results.INVALID_REQUEST, str(exc)[:255], {}
    if isinstance(exc, SuspiciousOperation):  # too many fields, bad encoding
        return 400, results.INVALID_REQUEST, str(exc)[:255], {}
    if isinstance(exc, drf.APIException):  # ParseError, MethodNotAllowed, UnsupportedMediaType
        return exc.status_code, results.INVALID_REQUEST, _detail(exc), {}
    return None


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER."""
    answer = error_answer(exc, request=context.get("request"))
    return Response(answer.body, status=answer.status, headers=answer.headers)


def _detail(exc: BaseException) -> str:
    detail = getattr(exc, "detail", None)
    return str(detail) if detail else str(exc)
