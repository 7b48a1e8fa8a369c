from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Platform core"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI bearer authentication extension
