from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants and entities"

    def ready(self) -> None:
        from core import auth, vault

        from . import results  # noqa: F401 - declares the app's result codes
        from .models import Entity
        from .selectors import EntityDirectory
        from .services import TOKEN_PURPOSE

        auth.register_directory(EntityDirectory())
        vault.register(Entity, "token_ciphertext", purpose=TOKEN_PURPOSE)
