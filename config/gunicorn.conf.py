"""gunicorn settings for production: threaded workers (gthread), app preloaded, heap frozen
after fork.

Run with: gunicorn -c config/gunicorn.conf.py config.wsgi
"""

import gc
import multiprocessing
import os
import sys

bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
# Threads, so that a payment waiting on the card network costs a thread's memory, not a worker:
# each of the `workers` processes serves up to `threads` requests at once, one running Python
# at a time (docs/decisions.md, "Waiting on the network": gthread against sync workers, measured
# in bench/README.md, "The network link"). A waiting thread holds no database connection
# (core/pools.give_back_for_a_wait), so the pool stays small: DB_POOL_MAX_SIZE per process,
# workers x DB_POOL_MAX_SIZE for the node. GUNICORN_WORKER_CLASS=sync brings back one request
# per process.
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "16")) if worker_class == "gthread" else 1
# gthread keeps idle keep-alive connections open this long (the sync worker closes each).
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
preload_app = True
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "10000"))
max_requests_jitter = 500
timeout = 30
accesslog = "-"
# Paths only: no query strings (card data sent there must not be kept) and no secret links
# (config/gunicorn_logging.py).
logger_class = "config.gunicorn_logging.AccessLogger"
# The ndc (X-Request-Id response header) on every access line, as on the application's lines.
access_log_format = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms ndc=%({x-request-id}o)s'
)
# gunicorn's control socket (for `gunicornc`: worker counts, reload, shutdown) defaults to one path
# per user, $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl: a second gunicorn on the
# host takes that path over and stopping either one deletes it, so gunicornc would steer the wrong
# instance. Deploys restart processes (with preload_app a reload cannot load new code anyway), so
# it is off; GUNICORN_CONTROL_SOCKET=<path> turns it on at a path of this instance's own.
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
if not control_socket_disable:
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]


# What gunicorn answers itself (414, 431, an unparsable request, a 500) is JSON, as the API's
# answers are, with RFC 6749's error members for OAuth clients (config/gunicorn_errors.py).
from config.gunicorn_errors import install as _install_json_errors  # noqa: E402

_install_json_errors()


def post_fork(server, worker):  # noqa: ARG001 - gunicorn hook signature
    if worker_class == "gthread":
        # A thread holding the GIL keeps it this long before another is let in (Python's 5 ms
        # otherwise): fewer forced hand-overs among a worker's threads, measured 5 to 10 % less
        # CPU per payment at 128 and 256 clients (bench/README.md, "The network link").
        sys.setswitchinterval(float(os.environ.get("GUNICORN_SWITCH_INTERVAL_MS", "20")) / 1000)
    # Objects created while preloading are shared copy-on-write with the master; freezing them
    # keeps the cyclic GC from touching (and so copying) those pages in every worker.
    gc.freeze()
    # A database pool is a process's own (core/pools.py): none is opened in the master, and a
    # worker drops whatever it might have inherited.
    from core.pools import forget_inherited_pools

    forget_inherited_pools()
    if worker is not None:  # gunicorn always passes it (a test of the freeze passes none)
        _die_with_the_master(worker.ppid)


def _die_with_the_master(master_pid):
    """A worker whose master is killed (SIGKILL, the OOM killer) gets SIGTERM at once and ends
    as on a shutdown (its request finished), instead of living on as an orphan that still holds
    the listening socket, so the supervisor's new master can bind it (docs/operations.md,
    "When the master dies"). Linux's PR_SET_PDEATHSIG; elsewhere gunicorn's own check, which
    ends an orphan once it is idle."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != master_pid:  # it died before the prctl: nobody would send the signal
        os.kill(os.getpid(), signal.SIGTERM)


# Prometheus (docs/operations.md, Metrics): with PROMETHEUS_MULTIPROC_DIR set, every worker
# writes its counters to files there and /metrics adds them up. The directory is this
# instance's own: emptied when the master starts (an earlier run's files would be added to this
# one's), and a dead worker's live gauges dropped.
def on_starting(server):  # noqa: ARG001 - gunicorn hook signature
    from core.metrics import clear_multiprocess_dir

    clear_multiprocess_dir()


def child_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    from core.metrics import mark_process_dead

    mark_process_dead(worker.pid)
