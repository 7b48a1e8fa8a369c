"""Settings of the reference project (bench/reference/__init__.py).

Environment: DATABASE_URL (the reference's own database; `reference_bh` when bench/compare.py
starts it), REFERENCE_KEYS_FILE (the JSON that bench/reference/keys.py writes),
REFERENCE_BASE_URL (the server's own base URL: the audience of client assertions),
DB_CONN_MAX_AGE as the platform reads it.
"""

import os
import secrets

import environ

env = environ.Env()

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = ["rest_framework", "bench.reference"]
# What an API without sessions, users or pages keeps of Django's default stack.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
ROOT_URLCONF = "bench.reference.urls"
WSGI_APPLICATION = "bench.reference.wsgi.application"

DATABASES = {"default": env.db_url("DATABASE_URL", default="sqlite://:memory:")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # The platform's rule (config/settings.py): persistent connections, checked per request.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=600)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

USE_TZ = True
TIME_ZONE = "UTC"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.JSONParser",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

REFERENCE_KEYS_FILE = os.environ.get("REFERENCE_KEYS_FILE", "")
REFERENCE_BASE_URL = os.environ.get("REFERENCE_BASE_URL", "http://testserver").rstrip("/")
