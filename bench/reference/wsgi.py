"""WSGI entry of the reference project: `gunicorn -c config/gunicorn.conf.py
bench.reference.wsgi` (bench/compare.py starts it so)."""

import os

from django.core.wsgi import get_wsgi_application

# Forced, not defaulted: the caller's environment names the platform's settings.
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.reference.settings"

application = get_wsgi_application()
