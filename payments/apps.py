from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Payments"

    def ready(self) -> None:
        from core import metrics, vault
        from core.cards import PAN_PURPOSE

        from . import (
            results,  # noqa: F401 - declares the app's result codes
            selectors,
        )
        from .models import Payment, Registration, ThreeDSAuthentication
        from .threeds.services import ISSUER_SECRET

        vault.register(Payment, "pan_ciphertext", purpose=PAN_PURPOSE)
        vault.register(Registration, "pan_ciphertext", purpose=PAN_PURPOSE)
        vault.register(ThreeDSAuthentication, "issuer_secret", purpose=ISSUER_SECRET)
        # Read at each scrape (core.metrics): what the janitor has to resolve.
        metrics.register_gauge(
            metrics.PREFIX + "payments_in_flight",
            "Payments IN_FLIGHT: the network asked, its answer not recorded yet.",
            lambda: [((), selectors.payments_in_flight()[0])],
        )
        metrics.register_gauge(
            metrics.PREFIX + "payments_in_flight_oldest_seconds",
            "Age of the oldest IN_FLIGHT payment (0 when none); the janitor resolves those "
            "older than PAYMENTS_CONNECTOR_TIMEOUT_SECONDS.",
            lambda: [((), selectors.payments_in_flight()[1])],
        )
        metrics.register_gauge(
            metrics.PREFIX + "reversal_advices_outstanding",
            "Reversal advices (ISO 8583 0420) the network has not acknowledged yet "
            '(docs/runbook.md, "Reversal advices piling up").',
            lambda: [((), selectors.reversal_advices_outstanding())],
        )
