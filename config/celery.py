"""The Celery application.

With REDIS_URL set, Redis is the broker and result backend. Without it (the embedded default of
`make run`), tasks run eagerly in the calling process so the platform works with nothing else
running. Beat reads its schedule from the database (django-celery-beat).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
