from django.apps import AppConfig


class TokenizationConfig(AppConfig):
    name = "tokenization"
    verbose_name = "Tokenization"

    def ready(self) -> None:
        from core import vault
        from core.cards import PAN_PURPOSE

        from . import results  # noqa: F401 - declares the app's result codes
        from .models import Token

        vault.register(Token, "pan_ciphertext", purpose=PAN_PURPOSE)
