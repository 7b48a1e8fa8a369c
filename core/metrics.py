"""Prometheus metrics (docs/operations.md, "Metrics"): the one module that imports
prometheus_client. Apps count what happens through the functions below and register the gauges
of their database state with `register_gauge`; `/metrics` (core.probes) renders both.

- Events are counters and histograms, counted where they happen (a payment answered, a
  notification attempted, a task run). They live in the process: with gunicorn's workers or
  Celery's prefork pool, set PROMETHEUS_MULTIPROC_DIR to an empty directory of the node before
  the processes start; each process then writes its values to files there, and a scrape adds
  them up (prometheus_client's multiprocess mode). Without it, the one process's registry
  (runserver, the tests, a single process).
- State is read from the database at scrape time (payments in flight, the outbox by status, the
  ledger's holds, each entity's last daily file): a few bounded GROUP BY queries, so every node
  and every process reports the same figures and nothing kept in memory can drift.

Every name starts with `cardplatform_`; labels take values from small fixed sets (result families,
payment types, endpoint groups, result codes, task names, entities), never ids or amounts.
"""

import hmac
import ipaddress
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.db import connections, transaction
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from . import results

logger = logging.getLogger(__name__)

PREFIX = "cardplatform_"
CONTENT_TYPE = CONTENT_TYPE_LATEST
# No `_created` series beside each counter and histogram (multiprocess mode has none either):
# the same names whichever mode serves them.
disable_created_metrics()

# --- Events -------------------------------------------------------------------------------------

PAYMENTS = Counter(
    PREFIX + "payments",
    "Payments answered, by paymentType, result family and connector (a 3-D Secure payment "
    "counts once pending, when the shopper is sent to authenticate, and again with its answer).",
    ["type", "family", "connector"],
)
REQUEST_SECONDS = Histogram(
    PREFIX + "http_request_duration_seconds",
    "Time to answer an HTTP request, by endpoint group and status class.",
    ["group", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
JANITOR = Counter(
    PREFIX + "janitor_resolutions",
    "Payments the janitor took out of IN_FLIGHT: resolved with the network's answer, reversed "
    "(timed out), or skipped (the network could not be asked; tried again on the next run).",
    ["outcome"],
)
NOTIFICATIONS = Counter(
    PREFIX + "notification_deliveries",
    "Delivery attempts of outbox notifications, by outcome: delivered, retry (refused, another "
    "attempt scheduled), failed (refused after the last attempt), superseded (settled meanwhile).",
    ["outcome"],
)
TASK_RUNS = Counter(PREFIX + "celery_task_runs", "Celery tasks started, by task name.", ["task"])
TASK_FAILURES = Counter(
    PREFIX + "celery_task_failures", "Celery tasks that raised, by task name.", ["task"]
)
RATE_LIMITED = Counter(
    PREFIX + "rate_limited_requests",
    "Requests refused with 429 because their entity (or the issuer API's client) was over "
    "API_RATE_LIMIT, by endpoint group.",
    ["group"],
)
ISSUER_PURCHASES = Counter(
    PREFIX + "issuer_purchases",
    "The issuer API's Purchase operations, by outcome: approved, declined (a decline of the "
    "issuer, stored), refused (the request itself: validation, references, duplicates).",
    ["outcome"],
)
ISSUER_DECLINES = Counter(
    PREFIX + "issuer_declines",
    "Declines of the issuer API's operations, by operation and reason (the result code).",
    ["operation", "reason"],
)

# The ISO 8583 link (payments/connectors/iso_link.py), in each process that holds one.
NETWORK_LINK_UP = Gauge(
    PREFIX + "network_link_up",
    "1 while this process's ISO 8583 link is up (signed on, its last echo answered), 0 while it "
    "is down; summed over processes as the lowest (any process down shows 0).",
    multiprocess_mode="livemin",
)
NETWORK_LINK_UP.set(1)  # until a link says otherwise (a process without one has nothing down)
NETWORK_IN_FLIGHT = Gauge(
    PREFIX + "network_requests_in_flight",
    "Requests sent on the ISO 8583 link and waiting for their answer.",
    multiprocess_mode="livesum",
)
NETWORK_ANSWER_SECONDS = Histogram(
    PREFIX + "network_answer_seconds",
    "Time from sending a request on the ISO 8583 link to its answer, by request message type.",
    ["message"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0, 20.0),
)
NETWORK_UNANSWERED = Counter(
    PREFIX + "network_unanswered",
    "Requests on the ISO 8583 link that got no answer, by reason: timeout (none in time), lost "
    "(the connection dropped with it in flight), down (refused at once: the link is down), late "
    "(an answer that came after its request's timeout, dropped).",
    ["reason"],
)
REVERSAL_ADVICES = Counter(
    PREFIX + "reversal_advice_attempts",
    "Reversal advices (0420/0421) sent, by outcome: acknowledged (0430 came back) or failed "
    "(no answer, or the link down; sent again later).",
    ["outcome"],
)

PAYMENT_FAMILIES = ("success", "pending", "decline", "validation", "error")


def payment_family(code: str) -> str:
    """The coarse family of a payment's result code: success, pending, decline (the card's
    issuer or a risk system said no: core.results.DECLINE_FAMILIES), validation (the request was
    refused: format, references, configuration, duplicates), or error (communication, system,
    workflow)."""
    family = results.family_of(code)
    if family.startswith("success"):
        return "success"
    if family.startswith("pending"):
        return "pending"
    if family in results.DECLINE_FAMILIES:
        return "decline"
    if family.endswith("_validation"):
        return "validation"
    return "error"


def payment_answered(*, payment_type: str, code: str, connector: str) -> None:
    """A payment's answer was recorded (counted once its transaction commits)."""
    child = PAYMENTS.labels(type=payment_type, family=payment_family(code), connector=connector)
    transaction.on_commit(child.inc)


def janitor_resolved(*, resolved: int, reversed: int, skipped: int) -> None:
    for outcome, count in (("resolved", resolved), ("reversed", reversed), ("skipped", skipped)):
        if count:
            JANITOR.labels(outcome=outcome).inc(count)


def reversal_advices(*, acknowledged: int, failed: int) -> None:
    for outcome, count in (("acknowledged", acknowledged), ("failed", failed)):
        if count:
            REVERSAL_ADVICES.labels(outcome=outcome).inc(count)


def notification_attempted(outcome: str) -> None:
    """One delivery attempt of an outbox message ("not due" after the call: superseded)."""
    NOTIFICATIONS.labels(outcome="superseded" if outcome == "not due" else outcome).inc()


def rate_limited(group: str) -> None:
    RATE_LIMITED.labels(group=group).inc()


def task_started(task: str) -> None:
    TASK_RUNS.labels(task=task).inc()


def task_failed(task: str) -> None:
    TASK_FAILURES.labels(task=task).inc()


def issuer_answered(*, operation: str, code: str) -> None:
    """An issuer API operation answered `code`: Purchases by outcome, declines by reason."""
    declined = results.is_decline(code)
    if operation == "Purchase":
        success = results.SUCCESS.match(code)
        outcome = "approved" if success else "declined" if declined else "refused"
        ISSUER_PURCHASES.labels(outcome=outcome).inc()
    if declined:
        ISSUER_DECLINES.labels(operation=operation, reason=code).inc()


# --- Endpoint groups ----------------------------------------------------------------------------

# The first pattern that matches the path names its group (docs/operations.md lists them).
ENDPOINT_GROUPS: list[tuple[str, re.Pattern[str]]] = [
    ("payments", re.compile(r"^/pay/v[0-9]+/(payments|registrations|checkouts)(/|$)")),
    ("management", re.compile(r"^/pay/v3/(merchant|terminal)(/|$)")),
    ("tokenize", re.compile(r"^/pay/v3/(tokenize|asset)(/|$)")),
    ("recon", re.compile(r"^/(merch-web/download|v3/exchangerate)(/|$)")),
    ("issuer_api", re.compile(r"^/issuer/")),
    ("oauth2", re.compile(r"^/(oauth2/|\.well-known/)")),
    ("portal", re.compile(r"^/portal/")),
    ("payment_pages", re.compile(r"^/(threeds|checkout)/")),
    ("admin", re.compile(r"^/admin/")),
    ("operations", re.compile(r"^/(healthz|readyz|metrics)/?$")),
]


def endpoint_group(path: str) -> str:
    for name, pattern in ENDPOINT_GROUPS:
        if pattern.match(path):
            return name
    return "other"


def request_answered(*, group: str, status: int, seconds: float) -> None:
    REQUEST_SECONDS.labels(group=group, status=f"{status // 100}xx").observe(seconds)


# --- State, read at scrape time -----------------------------------------------------------------

Sample = tuple[tuple[str, ...], float]


@dataclass(frozen=True)
class StateGauge:
    """A gauge of the database's state: `sample()` returns (label values, value) rows."""

    name: str
    documentation: str
    sample: Callable[[], Iterable[Sample]]
    labels: tuple[str, ...] = field(default=())


_gauges: dict[str, StateGauge] = {}


def register_gauge(
    name: str,
    documentation: str,
    sample: Callable[[], Iterable[Sample]],
    *,
    labels: tuple[str, ...] = (),
) -> None:
    """An app declares a gauge of its state (in its AppConfig.ready): `sample` runs one cheap,
    bounded query at each scrape. Registering a name again replaces it."""
    assert name.startswith(PREFIX), name
    _gauges[name] = StateGauge(name, documentation, sample, labels)


STATE_ERRORS = PREFIX + "state_gauge_errors"


class StateCollector(Collector):
    """The registered gauges, read at scrape time. A gauge whose query fails (the database is
    down) is left out and reported in cardplatform_state_gauge_errors, so the scrape still
    answers with the process's counters."""

    def describe(self) -> Iterator[Any]:
        # Without describe() the registry would call collect() (and so the database) when the
        # collector is registered.
        return iter(())

    def collect(self) -> Iterator[Any]:
        errors = GaugeMetricFamily(
            STATE_ERRORS, "State gauges whose query failed in this scrape.", labels=["gauge"]
        )
        for gauge in list(_gauges.values()):
            family = GaugeMetricFamily(gauge.name, gauge.documentation, labels=list(gauge.labels))
            try:
                for labels, value in gauge.sample():
                    family.add_metric(list(labels), float(value))
            except Exception:  # noqa: BLE001 - a scrape reports, it does not fail
                logger.warning("metrics: the gauge %s could not be read", gauge.name)
                errors.add_metric([gauge.name], 1.0)
                continue
            yield family
        yield errors


_STATE = StateCollector()


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


@cache
def _default_registry() -> CollectorRegistry:
    REGISTRY.register(_STATE)
    return REGISTRY


def registry() -> CollectorRegistry:
    """What a scrape renders: every process's events (multiprocess mode) or this process's,
    and the state gauges."""
    if not multiprocess_dir():
        return _default_registry()
    scrape = CollectorRegistry()
    multiprocess.MultiProcessCollector(scrape)
    scrape.register(_STATE)
    return scrape


def render() -> bytes:
    """The exposition text of every metric."""
    return generate_latest(registry())


def mark_process_dead(pid: int) -> None:
    """gunicorn's child_exit: drop a dead worker's live gauges (multiprocess mode only)."""
    if multiprocess_dir():
        multiprocess.mark_process_dead(pid)


def clear_multiprocess_dir() -> None:
    """Empty PROMETHEUS_MULTIPROC_DIR (made if missing) before a process group starts
    (gunicorn's on_starting, the Celery worker's start): the files of an earlier run would
    otherwise be added to this one's."""
    directory = multiprocess_dir()
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)  # a missing one would fail every counted request
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.remove(os.path.join(directory, name))


# --- Who may scrape -----------------------------------------------------------------------------


def refusal(*, address: str, authorization: str) -> int | None:
    """None when this client may read the metrics, else the HTTP status to answer (403: no
    protection is configured, or the address is not in METRICS_ALLOWED_ADDRESSES; 401: the
    bearer token is missing or wrong). Never public by default: with neither setting, every
    client is refused. With both, both must pass."""
    networks = _networks(tuple(settings.METRICS_ALLOWED_ADDRESSES))
    token = settings.METRICS_BEARER_TOKEN
    if not networks and not token:
        return 403
    if networks and not _address_in(address, networks):
        return 403
    if token:
        keyword, _, given = authorization.partition(" ")
        if keyword.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            return 401
    return None


@cache
def _networks(cidrs: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs if cidr.strip())


def _address_in(address: str, networks: Iterable[Any]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


# --- The worker's own endpoint ------------------------------------------------------------------


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        return None


def _worker_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    status = refusal(
        address=environ.get("REMOTE_ADDR", ""), authorization=environ.get("HTTP_AUTHORIZATION", "")
    )
    if environ.get("PATH_INFO") != "/metrics":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    if status is not None:
        reason = "401 Unauthorized" if status == 401 else "403 Forbidden"
        headers = [("Content-Type", "text/plain")]
        if status == 401:
            headers.append(("WWW-Authenticate", 'Bearer realm="metrics"'))
        start_response(reason, headers)
        return [reason.encode() + b"\n"]
    try:
        body = render()
    finally:
        connections.close_all()  # this thread's: no connection left open between scrapes
    start_response("200 OK", [("Content-Type", CONTENT_TYPE)])
    return [body]


def serve_worker_metrics(address: str, port: int) -> WSGIServer:
    """A Celery worker's `/metrics` (its tasks' counters), on a thread of the worker's main
    process, with the web's protection (METRICS_ALLOWED_ADDRESSES, METRICS_BEARER_TOKEN)."""
    server = make_server(address, port, _worker_app, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
