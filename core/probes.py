"""What load balancers and monitoring ask (docs/operations.md): `/healthz` (the process is
alive), `/readyz` (it can serve: the database answers, every migration is applied, the broker
is reachable) and `/metrics` (Prometheus, core.metrics; never public by default)."""

import time
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from . import metrics, results
from .context import get_ndc
from .envelope import envelope
from .schema import documented
from .schema.pages import SERVER_ERROR, response
from .schema.pages import envelope as envelope_page
from .schema.responses import NDC

# The database connection /readyz checks (tests point it at one that cannot connect).
DATABASE = DEFAULT_DB_ALIAS
_migrated: set[str] = set()  # aliases whose migrations were all applied: they stay so


def database_state() -> dict[str, Any]:
    connection = connections[DATABASE]
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


def migrations_state() -> dict[str, Any]:
    """Whether every migration of the code is applied to the database (a node that starts before
    the release's `migrate` ran is not ready). Checked until the answer is yes, then remembered:
    a migration is never unapplied under a running process."""
    if DATABASE in _migrated:
        return {"status": "applied"}
    connection = connections[DATABASE]
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:  # noqa: BLE001
        return {"status": "unknown", "error": exc.__class__.__name__}
    if plan:
        return {"status": "pending", "pending": len(plan)}
    _migrated.add(DATABASE)
    return {"status": "applied"}


def broker_state() -> dict[str, Any]:
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


# --- /healthz -----------------------------------------------------------------------------------


def _healthz_operations() -> dict[str, dict[str, Any]]:
    body = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["ok"]},
            "ndc": {"type": "string", "pattern": NDC},
        },
        "required": ["status", "ndc"],
        "additionalProperties": False,
    }
    return {
        "get": {
            "operationId": "healthz_get",
            "tags": ["operations"],
            "summary": "Liveness: the process answers",
            "description": "For load balancers' and orchestrators' liveness probes; no "
            "authentication. Asks nothing of the database or the broker: a node whose "
            "database is down is alive (restarting it would not help) but not ready (/readyz). "
            "docs/operations.md.",
            "security": [],
            "responses": {
                "200": response("The process is alive.", "application/json", body),
                "500": envelope_page(SERVER_ERROR),
            },
        }
    }


# Read-only pages answer another method with 405 and `Allow`; without csrf_exempt Django's CSRF
# check would answer a POST with its 403 page first (they change nothing, so it protects nothing).
@documented(_healthz_operations)
@csrf_exempt
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the process answers requests."""
    return JsonResponse({"status": "ok", "ndc": get_ndc()})


# --- /readyz ------------------------------------------------------------------------------------


def _readyz_operations() -> dict[str, dict[str, Any]]:
    state = {"type": "string", "enum": ["up", "down", "eager", "applied", "pending", "unknown"]}
    part = {
        "type": "object",
        "properties": {
            "status": state,
            "engine": {"type": "string", "description": "The database's vendor."},
            "latencyMs": {"type": "number", "minimum": 0},
            "pending": {"type": "integer", "minimum": 1, "description": "Migrations to apply."},
            "error": {"type": "string", "description": "The exception's class when down."},
            "detail": {"type": "string"},
        },
        "required": ["status"],
        "additionalProperties": False,
    }
    body = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["ok", "degraded", "unavailable"]},
            "database": part,
            "migrations": part,
            "broker": part,
            "ndc": {"type": "string", "pattern": NDC},
        },
        "required": ["status", "database", "migrations", "broker", "ndc"],
        "additionalProperties": False,
    }
    return {
        "get": {
            "operationId": "readyz_get",
            "tags": ["operations"],
            "summary": "Readiness: the database, the migrations and the broker",
            "description": "For load balancers' readiness checks; no authentication. 503 while "
            "the database does not answer or a migration of the code is not applied. A broker "
            "that is down makes the status `degraded` (payments go on; notifications wait in "
            "the outbox) and 503 only with READYZ_REQUIRES_BROKER; `eager` when there is none "
            "(tasks run in the web process). docs/operations.md.",
            "security": [],
            "responses": {
                "200": response("Ready to serve.", "application/json", body),
                "503": response("Not ready: see which part.", "application/json", body),
                "500": envelope_page(SERVER_ERROR),
            },
        }
    }


@documented(_readyz_operations)
@csrf_exempt
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the node can serve; 503 with the part that is not ready."""
    database = database_state()
    if database["status"] == "up":
        migrations = migrations_state()
    else:
        migrations = {"status": "unknown", "detail": "the database does not answer"}
    broker = broker_state()
    broker_down = broker["status"] == "down"
    ready = (
        database["status"] == "up"
        and migrations["status"] == "applied"
        and not (broker_down and settings.READYZ_REQUIRES_BROKER)
    )
    body = {
        "status": "unavailable" if not ready else "degraded" if broker_down else "ok",
        "database": database,
        "migrations": migrations,
        "broker": broker,
        "ndc": get_ndc(),
    }
    return JsonResponse(body, status=200 if ready else 503)


# --- /metrics -----------------------------------------------------------------------------------


def _metrics_operations() -> dict[str, dict[str, Any]]:
    return {
        "get": {
            "operationId": "metrics_get",
            "tags": ["operations"],
            "summary": "Prometheus metrics",
            "description": "The Prometheus text exposition of the platform's metrics "
            "(docs/operations.md, Metrics). Not public: only for addresses in "
            "METRICS_ALLOWED_ADDRESSES and, when METRICS_BEARER_TOKEN is set, with "
            "`Authorization: Bearer <that token>`; with neither set every client is refused.",
            "security": [],
            "responses": {
                "200": response("The metrics.", "text/plain", {"type": "string"}, headers=None),
                "401": envelope_page(
                    "METRICS_BEARER_TOKEN is set and the request does not carry it (800.900.300)."
                ),
                "403": envelope_page(
                    "No protection is configured, or the address is not allowed (800.900.301)."
                ),
                "500": envelope_page(SERVER_ERROR),
            },
        }
    }


@documented(_metrics_operations)
@csrf_exempt
@require_safe
def metrics_view(request: HttpRequest) -> HttpResponse:
    """The Prometheus exposition, for the allowed addresses and the bearer token only."""
    status = metrics.refusal(
        address=request.META.get("REMOTE_ADDR", ""),
        authorization=request.META.get("HTTP_AUTHORIZATION", ""),
    )
    if status == 401:
        refused = JsonResponse(envelope(results.INVALID_AUTHENTICATION), status=401)
        refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return refused
    if status is not None:
        return JsonResponse(envelope(results.NOT_AUTHORIZED), status=403)
    return HttpResponse(metrics.render(), content_type=metrics.CONTENT_TYPE)
