"""Settings, all from the environment (django-environ).

Embedded default: an SQLite file and eager Celery, so `make run` needs nothing else. Production and
CI set DATABASE_URL (PostgreSQL, persistent connections) and REDIS_URL (Celery broker and cache).
"""

from copy import deepcopy
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

from config.celery_settings import *  # noqa: F403 - CELERY_*: the task queue and beat's schedule
from config.environment import BASE_DIR, DEBUG, REDIS_URL, env
from config.logging_settings import *  # noqa: F403 - LOG_FORMAT, LOGGING
from config.security import *  # noqa: F403 - the keys (refused with DEBUG off) and the CSP
from demo.credentials import demo_credentials_file

# BASE_DIR, `env` (with .env loaded), DEBUG and REDIS_URL: config/environment.py. The keys and
# the Content-Security-Policy: config/security.py. Celery and beat: config/celery_settings.py.
# LOGGING: config/logging_settings.py.

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# The CSRF token lives in the session, not in a cookie: a cookie planted by a sibling subdomain or
# a man in the middle of plain HTTP, before or after login, carries no token the forms accept.
CSRF_USE_SESSIONS = True

# Behind a TLS-terminating proxy (docs/operations.md): trust X-Forwarded-Proto, secure cookies,
# HSTS. Opt-in, because secure cookies break the admin login over plain HTTP on localhost.
if env.bool("DJANGO_BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # `preload` lets the domain's owner submit the domain to the browsers' preload list
    # (hstspreload.org); nothing is listed without that step.
    SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "csp",
    "core",
    "merchants",
    "terminals",
    "payments",
    "tokenization",
    "reconciliation",
    "oauth2_provider",
    "issuer",
    "demo",
]

MIDDLEWARE = [
    "core.middleware.RequestIdMiddleware",
    # The access line (ndc, entity, merchant, path, status, result code, duration) and the
    # latency histogram of every request (docs/operations.md, Logs and Metrics).
    "core.middleware.RequestLogMiddleware",
    "core.middleware.HostMiddleware",
    "core.middleware.ApiPathMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy of every answer (CONTENT_SECURITY_POLICY, config/security.py).
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: locks out a username and address after repeated failed logins (portal and admin).
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins are counted in the database (django-axes), so the limit holds across every
# gunicorn worker and node: after AXES_FAILURE_LIMIT failures of one username from one address,
# that pair is refused for AXES_COOLOFF_HOURS; a success resets the count.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "merchants.portal.locked_out"
AXES_VERBOSE = False
# An authorization hold on a card's ledger account stops counting after this many hours unless
# it says otherwise (issuer ledger).
LEDGER_HOLD_LIFETIME_HOURS = env.int("LEDGER_HOLD_LIFETIME_HOURS", default=168)
# The merchant portal's session ends after this many seconds without a request.
PORTAL_SESSION_SECONDS = env.int("PORTAL_SESSION_SECONDS", default=1800)
# The portal's filter forms offer "All" where Django would print "---------".
FILTERS_EMPTY_CHOICE_LABEL = "All"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "csp.context_processors.nonce",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.portal.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg 3 (docs/operations.md, "The database connections"). Server-side binding, so that
    # psycopg prepares a statement at the protocol level once a connection has run it
    # DB_PREPARE_THRESHOLD times (0: never, as behind PgBouncer before 1.21 in transaction mode).
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options["server_side_binding"] = True
    # DB_TRANSACTION_POOLING: a pooler in transaction mode (PgBouncer) between every process and
    # PostgreSQL: a session's state does not outlive its transaction, so nothing is prepared
    # unless DB_PREPARE_THRESHOLD says (PgBouncer 1.21 and later, max_prepared_statements) and no
    # cursor is held open across transactions (Django's server-side cursors, `.iterator()`).
    _transaction_pooling = env.bool("DB_TRANSACTION_POOLING", default=False)
    _threshold = env.int("DB_PREPARE_THRESHOLD", default=0 if _transaction_pooling else 5)
    _options["prepare_threshold"] = _threshold or None
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = _transaction_pooling
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # the pool checks a connection it lends
    if env.bool("DB_POOL", default=True):
        # Django's pool, one per process, opened at the first query (never in gunicorn's master,
        # which preloads the application and queries nothing): a request or a task borrows a
        # connection and gives it back at its end (CONN_MAX_AGE 0 is the pool's rule).
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        _options["pool"] = {
            "min_size": env.int("DB_POOL_MIN_SIZE", default=0),
            # A gthread worker's 16 threads share these (a thread waiting on the network holds
            # none): WEB_CONCURRENCY x 8 = 40 for a node of 5 processes (docs/operations.md).
            "max_size": env.int("DB_POOL_MAX_SIZE", default=8),
            "timeout": env.float("DB_POOL_TIMEOUT", default=5.0),
            "max_idle": env.float("DB_POOL_MAX_IDLE", default=600.0),
            "max_lifetime": env.float("DB_POOL_MAX_LIFETIME", default=3600.0),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=600)
else:
    # SQLite: wait for the write lock instead of failing at once under concurrent requests.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
# A streaming replica the portal's lists and charts, the reports and the settlement summary may
# read from (core/replica.py): DATABASE_REPLICA_URL, with the primary's options. Unset: they
# read the primary, as everything else always does. Tests mirror it onto the primary.
DATABASE_REPLICA_URL = env.str("DATABASE_REPLICA_URL", default="")
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = {
        **DATABASES["default"],
        **env.db_url_config(DATABASE_REPLICA_URL),
        "OPTIONS": deepcopy(DATABASES["default"].get("OPTIONS", {})),  # its own pool
        "TEST": {"MIRROR": "default"},
    }
DATABASE_ROUTERS = ["core.replica.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def _next_database(url: str) -> str:
    """redis://host:6379/0 -> redis://host:6379/1: the cache's own database."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{number + 1}"))


# The cache (rate-limit counters, requestors' JWK sets) on a Redis database of its own, never the
# broker's: clearing the cache (FLUSHDB) must not drop Celery's queued tasks.
REDIS_CACHE_URL = env.str("REDIS_CACHE_URL", default=_next_database(REDIS_URL) if REDIS_URL else "")
if REDIS_CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_CACHE_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# Dates and times as ISO 8601 with the zone named, in the admin too (config/formats/en).
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# The daily reconciliation files (docs/operations.md): a folder by default; an S3-compatible bucket
# with RECON_STORAGE_BACKEND=storages.backends.s3.S3Storage and its options as JSON in
# RECON_STORAGE_OPTIONS (pip install '.[s3]').
RECON_FILES_DIR = env.str("RECON_FILES_DIR", default=str(BASE_DIR / "var" / "recon"))
RECON_STORAGE_BACKEND = env.str(
    "RECON_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage"
)
RECON_STORAGE_OPTIONS = env.json(
    "RECON_STORAGE_OPTIONS",
    default={"location": RECON_FILES_DIR}
    if RECON_STORAGE_BACKEND.endswith("FileSystemStorage")
    else {},
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "recon": {"BACKEND": RECON_STORAGE_BACKEND, "OPTIONS": RECON_STORAGE_OPTIONS},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Request limits (docs/api.md "Limits"), enforced by the API's parsers (core.parsers) as well as
# by Django. A payment may carry 1000 cart items of about 25 fields each (spec "Cart"): about
# 25,000 fields and 1 to 2 MB, far above Django's default of 1000 fields and 2.5 MB.
DATA_UPLOAD_MAX_NUMBER_FIELDS = env.int("DATA_UPLOAD_MAX_NUMBER_FIELDS", default=30_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=5 * 1024 * 1024)
# The parts of a parameter name (`airline.passengers[0].legs[1].ticketNumber` has six, the
# deepest of any table) and the levels of a JSON body.
DATA_UPLOAD_MAX_NESTING_DEPTH = env.int("DATA_UPLOAD_MAX_NESTING_DEPTH", default=10)

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.NestedFormParser",
        "core.parsers.NestedJSONParser",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["core.auth.EntityTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
    # Per entity, after authentication (core/ratelimit.py; API_RATE_LIMIT, off when empty).
    "DEFAULT_THROTTLE_CLASSES": ["core.ratelimit.EntityRateThrottle"],
    "DEFAULT_SCHEMA_CLASS": "core.schema.SpecAutoSchema",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Card acquiring, merchant management and issuer platform",
    "DESCRIPTION": "Form-encoded requests with dotted names; JSON responses. See docs/api.md.",
    "VERSION": "3",
    # OpenAPI 3.1: JSON Schema 2020-12, whose patternProperties document the names of repeated
    # groups and maps (`cart.items[0].name`, `customParameters[ref]`) that 3.0 cannot say.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    # The views outside DRF (health, OAuth, JOSE, browser pages): core.schema.pages. No enum
    # components: the schemas come from the field tables, not from serializers' choices.
    "POSTPROCESSING_HOOKS": ["core.schema.pages.add_documented_views"],
}

# Build identifier for support: commit id + build date-time. Set by the Dockerfile / CI; falls
# back to `git` at first use (core.build).
BUILD_COMMIT = env.str("BUILD_COMMIT", default="")
BUILD_TIME = env.str("BUILD_TIME", default="")

# --- Payment network --------------------------------------------------------------------------
# How long a remote connector may take to answer; a payment IN_FLIGHT for longer goes to the
# janitor (payments.resolve_in_flight on beat, or `manage.py resolve_in_flight`). Below gunicorn's
# worker timeout (30 s, config/gunicorn.conf.py), so a request waiting on the network answers
# "in progress" before its worker could be killed for it.
PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = env.float("PAYMENTS_CONNECTOR_TIMEOUT_SECONDS", default=20.0)
# A capture, refund or reversal in flight whose fate the network will not tell (its repeats go
# unanswered) is held, its amount reserved, this long before the janitor books it timed out.
PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS = env.float("PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS", default=24.0)
# The ISO 8583 link (payments/connectors/iso_link.py): iso8583://host:port of the network (unset:
# the in-process simulator is the network), its bitmap (binary: 8 bytes; hex: 16 characters), the
# seconds between echo tests, and the acquiring institution's id (field 32).
PAYMENTS_NETWORK_URL = env.str("PAYMENTS_NETWORK_URL", default="")
PAYMENTS_NETWORK_BITMAP = env.str("PAYMENTS_NETWORK_BITMAP", default="binary")
PAYMENTS_NETWORK_ECHO_SECONDS = env.float("PAYMENTS_NETWORK_ECHO_SECONDS", default=30.0)
PAYMENTS_ACQUIRER_ID = env.str("PAYMENTS_ACQUIRER_ID", default="123456")
_link = urlsplit(PAYMENTS_NETWORK_URL)
if PAYMENTS_NETWORK_URL and (
    _link.scheme != "iso8583" or not _link.hostname or _link.path not in ("", "/") or _link.username
):
    raise ImproperlyConfigured("PAYMENTS_NETWORK_URL must look like iso8583://host:port")
try:
    _link_port = _link.port
except ValueError:
    _link_port = None
if PAYMENTS_NETWORK_URL and not _link_port:
    raise ImproperlyConfigured("PAYMENTS_NETWORK_URL must name a port: iso8583://host:port")
if PAYMENTS_NETWORK_BITMAP not in ("binary", "hex"):
    raise ImproperlyConfigured("PAYMENTS_NETWORK_BITMAP must be binary or hex")
if not (PAYMENTS_ACQUIRER_ID.isdigit() and len(PAYMENTS_ACQUIRER_ID) <= 11):
    raise ImproperlyConfigured("PAYMENTS_ACQUIRER_ID must be 1 to 11 digits (field 32)")


def _approval_amounts(pairs: list[str]) -> dict[str, Decimal]:
    amounts = {}
    for pair in pairs:
        currency, _, amount = pair.partition("=")
        try:
            amounts[currency.strip().upper()] = Decimal(amount.strip())
        except InvalidOperation:
            raise ImproperlyConfigured(
                f"BACKOFFICE_APPROVAL_AMOUNT: {pair!r} is not CUR=amount"
            ) from None
    return amounts


# The back office (payments.backoffice): a refund or reversal from the admin above this amount in
# its currency waits for a second staff member's approval (four eyes), its amount held meanwhile,
# for at most BACKOFFICE_APPROVAL_HOURS. `CUR=amount` pairs; `*` for every other currency (0:
# every amount needs a second approval).
BACKOFFICE_APPROVAL_AMOUNT = _approval_amounts(
    env.list(
        "BACKOFFICE_APPROVAL_AMOUNT",
        default=["EUR=1000", "USD=1000", "GBP=1000", "CHF=1000", "JPY=150000", "*=0"],
    )
)
BACKOFFICE_APPROVAL_HOURS = env.int("BACKOFFICE_APPROVAL_HOURS", default=24)
# Celery beat's leader lease (config/beat.py): a beat that dies is replaced by a waiting one
# within this many seconds; the leader renews it on every tick (at most every 5 s).
BEAT_LEASE_SECONDS = env.int("BEAT_LEASE_SECONDS", default=30)
# A hosted checkout's page may be used this long after the checkout was created.
CHECKOUT_LIFETIME_MINUTES = env.int("CHECKOUT_LIFETIME_MINUTES", default=30)
# Outbound notifications (core.outbox): seconds before each retry after a refused delivery (1 min,
# 5 min, 30 min, 2 h, 12 h, then daily: about 3.6 days; each retry is a Celery task for its
# moment), a delivery's timeout, how long a taken message waits before the sweep takes it again
# (a worker killed during the call); the sweep's period is beat's (NOTIFICATION_SWEEP_SECONDS,
# config/celery_settings.py).
NOTIFICATION_RETRY_SCHEDULE = env.list(
    "NOTIFICATION_RETRY_SCHEDULE",
    cast=int,
    default=[60, 300, 1800, 7200, 43200, 86400, 86400, 86400],
)
NOTIFICATION_TIMEOUT_SECONDS = env.float("NOTIFICATION_TIMEOUT_SECONDS", default=5.0)
NOTIFICATION_LEASE_SECONDS = env.int("NOTIFICATION_LEASE_SECONDS", default=60)
# merchant.notificationUrl: plain http:// and private or loopback hosts only when allowed (local
# testing); by default allowed in DEBUG.
# It governs every outbound call to an address someone else chose (notifications, webhooks, a
# requestor's jwks_uri: core/outbound.py): without it, https only, and the host must resolve to a
# public address at call time.
NOTIFICATION_ALLOW_INSECURE_URLS = env.bool("NOTIFICATION_ALLOW_INSECURE_URLS", default=DEBUG)
# The certificate authorities outbound https calls trust: a PEM file or folder (a bank's own CA
# for its partners' hosts); empty: certifi's bundle, as requests has it.
OUTBOUND_CA_BUNDLE = env.str("OUTBOUND_CA_BUNDLE", default="")
# Exchange rates quote every currency against this one (units of it for one unit of the other).
EXCHANGE_BASE_CURRENCY = env.str("EXCHANGE_BASE_CURRENCY", default="EUR")
# Settlement: the business day's time zone and its cut-off (hh:mm; 00:00 is midnight after the
# day).
SETTLEMENT_TIME_ZONE = env.str("SETTLEMENT_TIME_ZONE", default="UTC")
SETTLEMENT_CUTOFF = env.str("SETTLEMENT_CUTOFF", default="00:00")
# The longest date range a report may ask for (getSettleSummary).
REPORT_MAX_DAYS = env.int("REPORT_MAX_DAYS", default=31)
# Daily reconciliation files are production files (RECONDTP..., without test-mode payments) or
# test files (RECONDTT..., every payment).
RECON_PRODUCTION = env.bool("RECON_PRODUCTION", default=not DEBUG)
# PostgreSQL: a day's payments are fetched in this many spans at once, each on its own connection
# and thread (the server formats the lines; 1 fetches them in the calling thread).
RECON_FILE_WORKERS = env.int("RECON_FILE_WORKERS", default=2)
# Records per page of getReport and getChargeback: the default, and the most a request may ask.
REPORT_PAGE_SIZE = env.int("REPORT_PAGE_SIZE", default=100)
REPORT_MAX_PAGE_SIZE = env.int("REPORT_MAX_PAGE_SIZE", default=1000)
# How the checkout page names the platform to the shopper ("Your card details go only to ...").
CHECKOUT_PLATFORM_NAME = env.str("CHECKOUT_PLATFORM_NAME", default="the bank's payment page")
# The simulator's slow test card: "delay" answers after PAYMENTS_SIMULATOR_SLOW_SECONDS;
# "advisory-lock" waits for a PostgreSQL advisory lock a test holds (tests only).
PAYMENTS_SIMULATOR_GATE = env.str("PAYMENTS_SIMULATOR_GATE", default="delay")
PAYMENTS_SIMULATOR_SLOW_SECONDS = env.float("PAYMENTS_SIMULATOR_SLOW_SECONDS", default=2.0)
# A file where the simulator appends every request it receives (tests count them), or "".
PAYMENTS_SIMULATOR_LOG = env.str("PAYMENTS_SIMULATOR_LOG", default="")

# --- Issuer authorization protocol (docs/issuer.md) --------------------------------------------
# Private keys live in files in ISSUER_KEYS_DIR (`python manage.py issuer_keys generate`); in
# production a KMS or HSM (docs/operations.md). The token endpoint's URL is the `aud` that client
# assertions must carry; ISSUER_BASE_URL makes it stable behind proxies.
ISSUER_KEYS_DIR = env.path("ISSUER_KEYS_DIR", default=BASE_DIR / "var" / "issuer-keys")
ISSUER_BASE_URL = env.str("ISSUER_BASE_URL", default="http://127.0.0.1:8000")
ISSUER_ID = env.str("ISSUER_ID", default="")  # the access tokens' iss; defaults to ISSUER_BASE_URL
ISSUER_API_AUDIENCE = env.str("ISSUER_API_AUDIENCE", default="issuer-authorization-api")
ISSUER_ACCESS_TOKEN_SECONDS = env.int("ISSUER_ACCESS_TOKEN_SECONDS", default=3600)
ISSUER_CLOCK_SKEW_SECONDS = 300
ISSUER_MAX_ASSERTION_LIFETIME_SECONDS = 300
ISSUER_MAX_ASSERTION_BYTES = 8192
ISSUER_MAX_JWE_BYTES = 65536
# The simulators show their one-time codes so testers need no phone: the simulated ACS's 1234 on
# the challenge page, the issuer's code on the page of an on-us challenge and in SendOTP's answer
# (simulatorCode). By default only in DEBUG; a production issuer sends its codes by SMS or
# e-mail only, and the ACS's code stays documented in docs/api.md.
SIMULATOR_SHOW_CODES = env.bool("SIMULATOR_SHOW_CODES", default=DEBUG)
ISSUER_DCVV_SECONDS = env.int("ISSUER_DCVV_SECONDS", default=300)  # a dCVV's time window
# PBKDF2 iterations of the PIN hash (0: Django's current default, 1,000,000 in Django 5.2).
ISSUER_PIN_HASH_ITERATIONS = env.int("ISSUER_PIN_HASH_ITERATIONS", default=0)
# The issuer's country (ISO 3166 alpha-2): a merchant in it is domestic for the card limits.
ISSUER_COUNTRY = env.str("ISSUER_COUNTRY", default="DE")
# The issuer's name, as the acquirer's answers for its own (on-us) cards name the clearing
# institute (resultDetails.clearingInstituteName).
ISSUER_NAME = env.str("ISSUER_NAME", default="Demo Bank")
# The embedded demo (`make run`): seed_demo and issuer_demo keep the demo's credentials and its
# requestor's private keys in these git-ignored files (mode 0600), so every run prints the same
# ones (docs/decisions.md, "Hardening (issue 9)"). Nothing else reads them.
# One file per database: the embedded SQLite demo's is var/demo-credentials.json (what the docs'
# examples read); a DATABASE_URL gets its own, named after the database, so seeding another
# database never overwrites the demo's credentials (demo/credentials.py).
DEMO_CREDENTIALS_FILE = Path(
    env.str("DEMO_CREDENTIALS_FILE", default="")
    or demo_credentials_file(
        BASE_DIR, DATABASES["default"], default=not env.str("DATABASE_URL", default="")
    )
)
DEMO_REQUESTOR_KEY_FILE = BASE_DIR / "var" / "demo-requestor" / "oob-client.json"
# Named explicitly because issuer.RequestorProfile points at the (swappable) Application model.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
OAUTH2_PROVIDER: dict[str, Any] = {
    # The scopes are the issuer operation catalogue's (one per group, and START_OOB, CHECK_OOB,
    # OTP for the Authentication operations): issuer.operations decides, DOT asks it.
    "SCOPES_BACKEND_CLASS": "issuer.operations.oauth_scopes.CatalogueScopes",
    # The issuer's token endpoint is its own (client credentials with private_key_jwt, issuer/
    # oauth.py); none of django-oauth-toolkit's endpoints is routed. Its RFC 9700 (OAuth 2.0
    # Security BCP) behaviour is switched on all the same, so a view routed later starts safe
    # and `check --deploy` has nothing to warn about.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https"],
}

# --- Metrics and probes (docs/operations.md, Metrics) ------------------------------------------
# /metrics answers only addresses in METRICS_ALLOWED_ADDRESSES (CIDRs, e.g. 10.0.5.0/24) and,
# when METRICS_BEARER_TOKEN is set, requests that carry it; with neither, nobody: never public.
METRICS_ALLOWED_ADDRESSES = env.list("METRICS_ALLOWED_ADDRESSES", default=[])
METRICS_BEARER_TOKEN = env.str("METRICS_BEARER_TOKEN", default="")
# A Celery worker's own /metrics (its tasks' counters) on this port of its main process; 0: none.
METRICS_WORKER_PORT = env.int("METRICS_WORKER_PORT", default=0)
METRICS_WORKER_ADDRESS = env.str("METRICS_WORKER_ADDRESS", default="127.0.0.1")
# /readyz answers 503 when the broker is down only with this set: by default a broker outage
# degrades the node (payments go on, notifications wait in the outbox) without taking it out.
READYZ_REQUIRES_BROKER = env.bool("READYZ_REQUIRES_BROKER", default=False)

# --- Rate limiting (docs/operations.md, Rate limiting; core/ratelimit.py) ----------------------
# What one entity (or the issuer API's client) may send per window: "100/s", "3000/m", "N/h".
# Empty: no limit (the default: the platform cannot know a bank's traffic; set it in production).
API_RATE_LIMIT = env.str("API_RATE_LIMIT", default="")

LOGIN_URL = "/admin/login/"
# Messages stay on the server: the admin shows one-time tokens in messages, which the default
# cookie storage would keep (signed, not encrypted) in the staff browser until displayed.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# WhiteNoise warns at start-up when STATIC_ROOT has not been collected yet (development, tests);
# `collectstatic` fills it in the production image.
import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="No directory at")
