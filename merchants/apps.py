from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants and entities"

    def ready(self) -> None:
        from core import auth, outbox, portal, vault

        from . import (
            results,  # noqa: F401 - declares the app's result codes
            webhooks,
        )
        from .models import Entity, Webhook
        from .selectors import EntityDirectory, portal_user_of
        from .services import TOKEN_PURPOSE, notification_credentials

        auth.register_directory(EntityDirectory())
        # The merchant portal's pages (core.portal) find a signed-in user's merchant here.
        portal.register_member_finder(portal_user_of)
        # Outbound notifications carry the merchant entity's access token (spec, Authentication
        # item 3), read from the vault when the call is made.
        outbox.register_credentials(notification_credentials)
        vault.register(Entity, "token_ciphertext", purpose=TOKEN_PURPOSE)
        # Webhooks: their secrets in the vault; their deliveries sealed with them, no token.
        vault.register(Webhook, "secret_ciphertext", purpose=webhooks.SECRET_PURPOSE)
        outbox.register_sealer(webhooks.SEALING, webhooks.seal)
