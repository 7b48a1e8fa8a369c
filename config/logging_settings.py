"""LOGGING (imported by config.settings): every line carries the request's ndc, and card numbers
are masked in every line."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.environment import env
from core.logging import log_format

__all__ = ["LOGGING", "LOG_FORMAT"]

# LOG_FORMAT=json: one JSON object per line (python-json-logger), every field a key: for a log
# pipeline, and the default with DJANGO_DEBUG false. text: for a person at a terminal, the demo's
# default (docs/operations.md, Logs).
try:
    LOG_FORMAT = log_format(os.environ)
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "ndc": {"()": "core.logging.NdcFilter"},
        # Request lines without their query string: card data sent in a URL is not logged.
        "no_query_string": {"()": "core.logging.NoQueryString"},
        # Card numbers masked in every line, whatever logger and field they came in.
        "mask_card_numbers": {"()": "core.logging.MaskCardNumbers"},
    },
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s [%(ndc)s] %(name)s: %(message)s"},
        "json": {"()": "core.logging.json_formatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["ndc", "mask_card_numbers"],
            "formatter": LOG_FORMAT,
        },
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"level": "ERROR", "propagate": True, "filters": ["no_query_string"]},
        "django.server": {"level": "INFO", "propagate": True, "filters": ["no_query_string"]},
    },
}
