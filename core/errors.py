"""Errors and the one exception handler that turns them into the response envelope.

- `ParameterError`: HTTP 400, 200.300.404, `result.parameterErrors` with dotted names. Values of
  card data are never echoed.
- `ApplicationError`: a domain refusal with its result code. Refused workflows are HTTP 200 (the
  code is the truth, as in the anchor API); missing objects 404; forbidden 403.
- DRF's own exceptions map to 401 (800.900.300), 403 (800.900.301), 404, 405/415 (200.100.101).
- Anything else: HTTP 500, 999.999.999, logged with the ndc; the body shows nothing internal.
"""

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import SuspiciousOperation
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

from . import results
from .nesting import SENSITIVE_NAMES, lookup

logger = logging.getLogger("core.errors")

MASKED = "***"
MAX_ECHO = 255


class ApplicationError(Exception):
    """A refusal with a result code. `http_status` 200 for business refusals (stored answers)."""

    http_status = 200

    def __init__(
        self,
        result: results.Result,
        description: str | None = None,
        *,
        http_status: int | None = None,
        data: Mapping[str, Any] | None = None,
    ):
        super().__init__(description or result.description)
        self.result = result
        self.description = description or result.description
        if http_status is not None:
            self.http_status = http_status
        self.data = dict(data or {})


class NotFound(ApplicationError):
    http_status = 404


class Forbidden(ApplicationError):
    http_status = 403

    def __init__(self, description: str | None = None):
        super().__init__(results.NOT_AUTHORIZED, description)


class ParameterError(Exception):
    """Invalid or missing parameters: a list of (dotted name, raw value, message)."""

    def __init__(self, errors: Iterable[tuple[str, Any, str]]):
        self.errors = list(errors)
        super().__init__("; ".join(f"{name}: {message}" for name, _, message in self.errors))


def safe_value(name: str, value: Any) -> Any:
    """The submitted value as it may be echoed: card data masked, long text cut."""
    if value is None:
        return None
    if name in SENSITIVE_NAMES or name.rsplit(".", 1)[-1].lower() in {
        "cvv",
        "pin",
        "password",
        "token",
    }:
        return MASKED
    text = str(value)
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


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response:
    from .envelope import error_response  # the envelope imports errors

    request = context.get("request")
    if isinstance(exc, ParameterError):
        errors = [
            {"name": name, "value": safe_value(name, value), "message": message}
            for name, value, message in exc.errors
        ]
        return error_response(results.INVALID_PARAMETER, 400, parameterErrors=errors)
    if isinstance(exc, drf.ValidationError):
        data = getattr(request, "data", None) if request is not None else None
        return exception_handler(parameter_error_from_validation(exc.detail, data), context)
    if isinstance(exc, ApplicationError):
        return error_response(
            exc.result, exc.http_status, description=exc.description, data=exc.data
        )
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        response = error_response(results.INVALID_AUTHENTICATION, 401, description=_detail(exc))
        response["WWW-Authenticate"] = 'Bearer realm="api"'
        return response
    if isinstance(exc, drf.PermissionDenied | DjangoPermissionDenied):
        return error_response(results.NOT_AUTHORIZED, 403, description=_detail(exc))
    if isinstance(exc, drf.NotFound | Http404):
        return error_response(results.RESOURCE_NOT_FOUND, 404)
    if isinstance(exc, SuspiciousOperation):  # too many fields, body too big, bad encoding
        return error_response(results.INVALID_REQUEST, 400, description=str(exc)[:255])
    if isinstance(exc, drf.ParseError):
        return error_response(results.INVALID_REQUEST, 400, description=_detail(exc))
    if isinstance(exc, drf.MethodNotAllowed | drf.UnsupportedMediaType | drf.NotAcceptable):
        return error_response(results.INVALID_REQUEST, exc.status_code, description=_detail(exc))
    if isinstance(exc, drf.APIException):
        return error_response(results.INVALID_REQUEST, exc.status_code, description=_detail(exc))
    logger.exception("unexpected error in %s", getattr(request, "path", "?"))
    return error_response(results.UNEXPECTED_ERROR, 500)


def _detail(exc: Exception) -> str:
    detail = getattr(exc, "detail", None)
    return str(detail) if detail else str(exc)
