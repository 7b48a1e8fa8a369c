"""The home page and the JSON error pages for paths outside DRF (the probes: core.probes)."""

import logging
import sys
from typing import Any

from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from rest_framework.exceptions import MethodNotAllowed

from . import results
from .envelope import envelope
from .errors import error_answer, is_database_unavailable
from .schema import documented
from .schema.pages import html
from .urls import OAUTH_PREFIX, is_api_path

logger = logging.getLogger(__name__)


def _home_operations() -> dict[str, dict[str, Any]]:
    return {
        "get": {
            "operationId": "home_get",
            "tags": ["browser pages"],
            "summary": "The home page: links to the API documentation, the admin and the portal",
            "security": [],
            "responses": {"200": html("The page.")},
        }
    }


# Read-only pages answer another method with 405 and `Allow`; without csrf_exempt Django's CSRF
# check would answer a POST with its 403 page first (it changes nothing, so it protects nothing).
@documented(_home_operations)
@csrf_exempt
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """`/`: where to go from here (the API docs and schema, the admin, the merchant portal)."""
    return render(request, "home.html")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: what Django refuses before any view (a Host not in ALLOWED_HOSTS, a
    suspicious request). Under an API prefix the envelope's 400 (200.100.101); under /oauth2/
    RFC 6749's error object; elsewhere Django's own page. Nothing here may ask the request for
    its host: that is what failed."""
    path = request.path_info
    description = "the request is not accepted (its Host or form)"
    if is_api_path(path):
        body = envelope(results.INVALID_REQUEST, description=description)
        return JsonResponse(body, status=400)
    if path.startswith(OAUTH_PREFIX):
        return JsonResponse(oauth_error("invalid_request", description), status=400)
    return defaults.bad_request(request, exception or SuspiciousOperation())


def oauth_error(error: str, description: str) -> dict[str, str]:
    """RFC 6749 (section 5.2) error object."""
    return {"error": error, "error_description": description}


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return _answer(Http404(), request)


@csrf_exempt  # any method: a POST to an unknown API path is a 404, not a CSRF failure
def unknown_api_path(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Every path under an API prefix that no view takes: the envelope's 404 (700.100.199), in
    DEBUG too, where Django would show its page of every URL pattern."""
    return _answer(Http404(), request)


def method_not_allowed(request: HttpRequest, allowed: str) -> JsonResponse:
    """The envelope's 405 (200.100.101) with the `Allow` header."""
    response = _answer(MethodNotAllowed(request.method or ""), request)
    response["Allow"] = allowed
    return response


def server_error(request: HttpRequest) -> JsonResponse:
    """handler500: Django calls it while handling the exception, so `sys.exc_info()` names it.
    A database out of reach is the envelope's 503 (800.800.800, Retry-After), anything else
    the 500 (999.999.999)."""
    exception = sys.exc_info()[1]
    if isinstance(exception, Exception) and is_database_unavailable(exception):
        return _answer(exception, request)
    return JsonResponse(envelope(results.UNEXPECTED_ERROR), status=500)


def error_page(exc: Exception, request: HttpRequest) -> JsonResponse:
    """The envelope for `exc` outside DRF (middleware refusals)."""
    return _answer(exc, request)


def _answer(exc: Exception, request: HttpRequest) -> JsonResponse:
    answer = error_answer(exc, request=request)
    response = JsonResponse(answer.body, status=answer.status)
    for name, value in answer.headers.items():
        response[name] = value
    return response
