"""Celery tasks of the out-of-band authentications: thin wrappers over issuer.oob."""

from celery import shared_task

from . import oob


@shared_task(name="issuer.expire_oob_authentications")
def expire_oob_authentications() -> int:
    """Beat, every minute: end PENDING out-of-band authentications past their expiry."""
    return oob.oob_expire_due()
