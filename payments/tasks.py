"""Celery tasks: thin wrappers over services. Arguments never carry card data."""

from celery import shared_task

from . import services


@shared_task(name="payments.close_expired_preauthorizations")
def close_expired_preauthorizations() -> int:
    """Beat, every minute: close PAs whose validityPeriod has elapsed."""
    return services.payment_close_expired()


@shared_task(name="payments.expire_threeds_authentications")
def expire_threeds_authentications() -> int:
    """Beat, every minute: end 3-D Secure authentications nobody completed in time."""
    from .threeds.services import threeds_expire

    return threeds_expire()


@shared_task(name="payments.resolve_in_flight")
def resolve_in_flight() -> dict[str, int]:
    """Beat, every minute: resolve payments IN_FLIGHT past the connector's timeout."""
    return services.payment_resolve_in_flight().__dict__


@shared_task(name="payments.send_reversal_advices")
def send_reversal_advices() -> dict[str, int]:
    """Beat, and at once when one is owed: send the reversal advices the network is owed."""
    from .services.advices import send_owed

    return send_owed().__dict__


@shared_task(name="payments.purge_trace_numbers")
def purge_trace_numbers() -> int:
    """Beat, every hour: drop the STAN sequences of the days no claim draws from any more."""
    from django.utils import timezone

    from .services.trace import purge_trace_numbers as purge

    return purge(timezone.now().date())


@shared_task(name="payments.sweep_payment_actions")
def sweep_payment_actions() -> dict[str, int]:
    """Beat, every minute: expire back-office refunds and reversals nobody approved in time,
    and finish decisions whose payment is still held."""
    from .backoffice.services import sweep

    return sweep()
