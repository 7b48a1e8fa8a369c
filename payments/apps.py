from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Payments"

    def ready(self) -> None:
        from core import vault
        from core.cards import PAN_PURPOSE

        from . import results  # noqa: F401 - declares the app's result codes
        from .models import Payment, Registration, ThreeDSAuthentication
        from .threeds.services import ISSUER_SECRET

        vault.register(Payment, "pan_ciphertext", purpose=PAN_PURPOSE)
        vault.register(Registration, "pan_ciphertext", purpose=PAN_PURPOSE)
        vault.register(ThreeDSAuthentication, "issuer_secret", purpose=ISSUER_SECRET)
