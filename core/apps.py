from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Platform core"

    def ready(self) -> None:
        from django.urls import register_converter

        from . import (
            outbox,
            schema,  # noqa: F401 - registers the OpenAPI bearer authentication extension
            tasks,
        )
        from .converters import HexIdConverter

        # `<hexid:...>` in the apps' URL confs: a 32-hex id (core.converters).
        register_converter(HexIdConverter, "hexid")
        # The outbox is a library; the task queue is its adapter: the arrow points one way.
        outbox.register_dispatcher(tasks.hand_over)
