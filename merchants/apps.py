from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants and entities"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI authentication extension
