"""Celery tasks of the issuer: thin wrappers over services."""

from celery import shared_task

from .assertions import used_assertions_purge


@shared_task(name="issuer.purge_used_assertions")
def purge_used_assertions() -> int:
    """Beat, every few minutes: forget jti rows whose assertion could no longer be valid."""
    return used_assertions_purge()


# Celery autodiscovery imports only this module; the OOB expiry task lives beside the OOB code.
from .tasks_oob import expire_oob_authentications  # noqa: E402, F401
