"""The acquirer alone: the platform without the issuer app (docs/architecture.md, "The seam
between acquirer and issuer"). A bank that acquires but issues elsewhere runs it with
`DJANGO_SETTINGS_MODULE=config.settings_acquirer`: no issuer tables, pages or API, and every
card goes to the card network (the on-us routing is off, as no issuer is plugged into
payments.connectors.onus_port). tests/payments/test_acquirer_alone.py runs the acquirer so.
"""

from config.settings import *  # noqa: F403
from config.settings import CELERY_BEAT_SCHEDULE, INSTALLED_APPS

WITHOUT = ("issuer", "demo")  # demo: `make run`'s demo of the whole platform seeds the issuer too

INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in WITHOUT]
CELERY_BEAT_SCHEDULE = {
    name: entry
    for name, entry in CELERY_BEAT_SCHEDULE.items()
    if not entry["task"].startswith("issuer.")
}
