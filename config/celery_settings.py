"""Celery's settings (the CELERY_ namespace config/celery.py reads; imported by config.settings)
and beat's schedule.

With REDIS_URL set, Redis is the broker and result backend; without it tasks run eagerly in the
calling process (the embedded demo).
"""

from config.environment import REDIS_URL, env

__all__ = [
    "CELERY_ACCEPT_CONTENT",
    "CELERY_BEAT_SCHEDULE",
    "CELERY_BEAT_SCHEDULER",
    "CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP",
    "CELERY_BROKER_TRANSPORT_OPTIONS",
    "CELERY_BROKER_URL",
    "CELERY_DB_REUSE_MAX",
    "CELERY_RESULT_BACKEND",
    "CELERY_TASK_ACKS_LATE",
    "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_TASK_DEFAULT_QUEUE",
    "CELERY_TASK_EAGER_PROPAGATES",
    "CELERY_TASK_PUBLISH_RETRY_POLICY",
    "CELERY_TASK_SERIALIZER",
    "CELERY_TIMEZONE",
    "CELERY_WORKER_HIJACK_ROOT_LOGGER",
    "CELERY_WORKER_PREFETCH_MULTIPLIER",
    "NOTIFICATION_SWEEP_SECONDS",
    "PAYMENTS_ADVICE_SWEEP_SECONDS",
]

# The outbox's sweep (core.sweep_notifications, beat) comes this often: a retry whose task was
# lost comes at most this much late (docs/operations.md, Notifications).
NOTIFICATION_SWEEP_SECONDS = env.float("NOTIFICATION_SWEEP_SECONDS", default=60.0)

# Beat sends the reversal advices owed to the ISO 8583 network this often (a new one is sent at
# once by a worker; the sweep repeats those not acknowledged, payments/services/advices.py).
PAYMENTS_ADVICE_SWEEP_SECONDS = env.float("PAYMENTS_ADVICE_SWEEP_SECONDS", default=10.0)

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
# The queue tasks are sent to and workers read (a test's worker uses a queue of its own).
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every database connection before and after each task unless it
# is told to reuse them (close every N tasks): a new PostgreSQL connection per task made a
# notification's delivery cost twice the CPU (bench/README.md, Notifications). Between those
# closes, core.taskcontext applies Django's own rules at each task's start and end, as a request
# does (`close_old_connections`: CONN_MAX_AGE, CONN_HEALTH_CHECKS, a connection left broken).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# The database scheduler copies these into django_celery_beat's tables at start; staff can then
# pause or re-time them in the admin (Periodic tasks).
CELERY_BEAT_SCHEDULE = {
    "sweep-notifications": {
        "task": "core.sweep_notifications",
        "schedule": NOTIFICATION_SWEEP_SECONDS,
    },
    "settle-last-day": {"task": "reconciliation.settle_last_day", "schedule": 3600.0},
    "recon-files-last-day": {"task": "reconciliation.recon_files_last_day", "schedule": 3600.0},
    "close-expired-preauthorizations": {
        "task": "payments.close_expired_preauthorizations",
        "schedule": 60.0,
    },
    "expire-threeds-authentications": {
        "task": "payments.expire_threeds_authentications",
        "schedule": 60.0,
    },
    "expire-oob-authentications": {"task": "issuer.expire_oob_authentications", "schedule": 60.0},
    "resolve-in-flight-payments": {"task": "payments.resolve_in_flight", "schedule": 60.0},
    "send-reversal-advices": {
        "task": "payments.send_reversal_advices",
        "schedule": PAYMENTS_ADVICE_SWEEP_SECONDS,
    },
    "purge-used-assertions": {"task": "issuer.purge_used_assertions", "schedule": 3600.0},
    "purge-trace-numbers": {"task": "payments.purge_trace_numbers", "schedule": 3600.0},
    "sweep-payment-actions": {"task": "payments.sweep_payment_actions", "schedule": 60.0},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A publish to a broker that is down fails fast instead of holding the web request that sends it
# (celery's default retries for about 0.6 s against a refused port, and kombu waits for ever on a
# broker gone without closing the connection): one retry at once, on a fresh connection (a Redis
# restarted under a pooled one), 1 s to connect, 3 s for an answer. What is not handed over
# waits in the outbox for the sweep (docs/operations.md, "Faults and what the platform does").
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": env.int("CELERY_PUBLISH_MAX_RETRIES", default=1),
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": env.float("CELERY_BROKER_CONNECT_TIMEOUT", default=1.0),
    # Above the worker's BRPOP wait (1 s), which answers within it on a live broker.
    "socket_timeout": env.float("CELERY_BROKER_SOCKET_TIMEOUT", default=3.0),
}
# Keep Django's LOGGING (with the ndc filter) in the worker instead of Celery's own handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
