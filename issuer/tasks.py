"""Celery tasks of the issuer: thin wrappers over services."""

from celery import shared_task

from . import services
from .protocol.assertions import used_assertions_purge


@shared_task(name="issuer.purge_used_assertions")
def purge_used_assertions() -> int:
    """Beat, every few minutes: forget jti rows whose assertion could no longer be valid."""
    return used_assertions_purge()


@shared_task(name="issuer.expire_oob_authentications")
def expire_oob_authentications() -> int:
    """Beat, every minute: end PENDING out-of-band authentications past their expiry."""
    return services.oob_expire_due()
