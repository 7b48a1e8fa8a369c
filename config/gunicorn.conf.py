"""gunicorn settings for production: sync workers, app preloaded, heap frozen after fork.

Run with: gunicorn -c config/gunicorn.conf.py config.wsgi
"""

import gc
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
worker_class = "sync"
preload_app = True
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "10000"))
max_requests_jitter = 500
timeout = 30
accesslog = "-"
# The ndc (X-Request-Id response header) on every access line, as on the application's lines.
access_log_format = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms ndc=%({x-request-id}o)s'
)


def post_fork(server, worker):  # noqa: ARG001 - gunicorn hook signature
    # Objects created while preloading are shared copy-on-write with the master; freezing them
    # keeps the cyclic GC from touching (and so copying) those pages in every worker.
    gc.freeze()
