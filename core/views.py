"""The home page, the health check and the JSON error pages for paths outside DRF."""

import logging
import sys
import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from rest_framework.exceptions import MethodNotAllowed

from . import results
from .context import get_ndc
from .envelope import envelope
from .errors import error_answer, is_database_unavailable
from .schema import documented
from .schema.pages import SERVER_ERROR, html, response
from .schema.pages import envelope as envelope_page
from .schema.responses import NDC

logger = logging.getLogger(__name__)


def _database_state() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - a health check reports, it does not raise
        return {"status": "down", "engine": connection.vendor, "error": exc.__class__.__name__}
    return {
        "status": "up",
        "engine": connection.vendor,
        "latencyMs": round((time.perf_counter() - started) * 1000, 2),
    }


def _broker_state() -> dict[str, Any]:
    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"status": "eager", "detail": "no REDIS_URL: tasks run in the web process"}
    started = time.perf_counter()
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
    except Exception as exc:  # noqa: BLE001
        return {"status": "down", "error": exc.__class__.__name__}
    return {"status": "up", "latencyMs": round((time.perf_counter() - started) * 1000, 2)}


def _healthz_operations() -> dict[str, dict[str, Any]]:
    state = {"type": "string", "enum": ["up", "down", "eager"]}
    part = {
        "type": "object",
        "properties": {
            "status": state,
            "engine": {"type": "string", "description": "The database's vendor."},
            "latencyMs": {"type": "number", "minimum": 0},
            "error": {"type": "string", "description": "The exception's class when down."},
            "detail": {"type": "string"},
        },
        "required": ["status"],
        "additionalProperties": False,
    }
    body = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["ok", "degraded"]},
            "database": part,
            "broker": part,
            "ndc": {"type": "string", "pattern": NDC},
        },
        "required": ["status", "database", "broker", "ndc"],
        "additionalProperties": False,
    }
    return {
        "get": {
            "operationId": "healthz_get",
            "tags": ["operations"],
            "summary": "Health: the database and the broker",
            "description": "For load balancers and monitoring; no authentication. The broker is "
            "`eager` when there is none (tasks run in the web process). docs/operations.md.",
            "security": [],
            "responses": {
                "200": response("The database is up.", "application/json", body),
                "503": response("The database is down.", "application/json", body),
                "500": envelope_page(SERVER_ERROR),
            },
        }
    }


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
# check would answer a POST with its 403 page first (they change nothing, so it protects nothing).
@documented(_healthz_operations)
@csrf_exempt
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with the database and broker state; 503 when the database is down."""
    database, broker = _database_state(), _broker_state()
    healthy = database["status"] == "up" and broker["status"] != "down"
    body = {
        "status": "ok" if healthy else "degraded",
        "database": database,
        "broker": broker,
        "ndc": get_ndc(),
    }
    return JsonResponse(body, status=200 if database["status"] == "up" else 503)


@documented(_home_operations)
@csrf_exempt
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """`/`: where to go from here (the API docs and schema, the admin, the merchant portal)."""
    return render(request, "home.html")


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
