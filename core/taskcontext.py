"""Celery's side of logging and metrics, connected to Celery's signals (core.apps imports it).

- The request id travels with the task: `before_task_publish` puts the sending request's ndc in
  the message's headers (never in the task's arguments, which must not carry card data either),
  and `task_prerun` makes it the ndc of the worker's log lines while the task runs; a task with
  none (beat's) gets a fresh one. A task run eagerly (no broker) keeps its caller's.
- Every task run and every failure is counted (core.metrics), by task name.
- A task uses the database as a request does: Django's `close_old_connections` at its start and
  end gives a pooled connection back to the process's pool (PostgreSQL, DB_POOL), or closes one
  that is too old (CONN_MAX_AGE), broken, or fails its health check (CONN_HEALTH_CHECKS) and
  keeps the others (Celery's own fixup, with CELERY_DB_REUSE_MAX, only closes them every so many
  tasks). A forked pool process drops the pool it may have inherited (core/pools.py).
- The worker logs through Django's LOGGING only (`setup_logging`), in LOG_FORMAT.
- A worker empties its PROMETHEUS_MULTIPROC_DIR when it starts and, with METRICS_WORKER_PORT,
  serves its own /metrics (docs/operations.md, Metrics).
"""

import logging
import re
from typing import Any

from celery import signals
from django.conf import settings
from django.db import close_old_connections

from . import metrics
from .context import clear_log_fields, new_ndc, set_ndc
from .context import get_ndc as current_ndc
from .pools import forget_inherited_pools

HEADER = "ndc"
_NDC = re.compile(r"^[0-9a-f]{32}-[0-9a-f]{8}$")


@signals.setup_logging.connect
def keep_django_logging(loglevel: Any = None, **_: Any) -> None:
    """The worker keeps Django's LOGGING (its format, text or JSON, and the ndc filter): with a
    receiver of this signal Celery adds no handler of its own, so no line is written twice or
    in another format. The worker's `-l` level is the root logger's."""
    if loglevel:
        logging.getLogger().setLevel(loglevel)


@signals.before_task_publish.connect
def carry_ndc(headers: dict[str, Any] | None = None, **_: Any) -> None:
    ndc = current_ndc()
    if headers is not None and _NDC.match(ndc):
        headers.setdefault(HEADER, ndc)


def sent_ndc(request: Any) -> str:
    """The ndc the task's message carries (a header), or "" (none, or not one of ours)."""
    value = getattr(request, HEADER, None) or (getattr(request, "headers", None) or {}).get(HEADER)
    return value if isinstance(value, str) and _NDC.match(value) else ""


@signals.task_prerun.connect
def task_started(task: Any = None, **_: Any) -> None:
    if task is None:
        return
    metrics.task_started(task.name)
    if task.request.is_eager:
        return  # in the caller's process and context: its ndc, fields and connection stay
    close_old_connections()
    set_ndc(sent_ndc(task.request) or new_ndc())
    clear_log_fields()


@signals.task_postrun.connect
def task_finished(task: Any = None, **_: Any) -> None:
    if task is not None and not task.request.is_eager:
        close_old_connections()
        set_ndc("-")
        clear_log_fields()


@signals.task_failure.connect
def task_failed(sender: Any = None, **_: Any) -> None:
    if sender is not None:
        metrics.task_failed(sender.name)


@signals.worker_init.connect
def worker_starting(**_: Any) -> None:
    metrics.clear_multiprocess_dir()


@signals.worker_process_init.connect
def worker_process_starting(**_: Any) -> None:
    """A forked pool process opens database connections of its own (core/pools.py)."""
    forget_inherited_pools()


@signals.worker_ready.connect
def worker_ready(**_: Any) -> None:
    if settings.METRICS_WORKER_PORT:
        metrics.serve_worker_metrics(settings.METRICS_WORKER_ADDRESS, settings.METRICS_WORKER_PORT)
