"""Staff admin for entities and merchants (Django admin): one module each."""

from .entities import EntityAdmin
from .limits import PlatformAmountLimitAdmin
from .merchants import MerchantAdmin
from .webhooks import WebhookAdmin

__all__ = ["EntityAdmin", "MerchantAdmin", "PlatformAmountLimitAdmin", "WebhookAdmin"]
