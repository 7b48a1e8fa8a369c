from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants and entities"

    def ready(self) -> None:
        from core import auth, outbox, vault

        from . import results  # noqa: F401 - declares the app's result codes
        from .models import Entity
        from .selectors import EntityDirectory
        from .services import TOKEN_PURPOSE, notification_credentials

        auth.register_directory(EntityDirectory())
        # Outbound notifications carry the merchant entity's access token (spec, Authentication
        # item 3), read from the vault when the call is made.
        outbox.register_credentials(notification_credentials)
        vault.register(Entity, "token_ciphertext", purpose=TOKEN_PURPOSE)
