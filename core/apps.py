from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Platform core"

    def ready(self) -> None:
        from django.urls import register_converter

        # core.schema (the OpenAPI bearer authentication extension and the views' decorators)
        # is imported by the views that the URL conf loads, before any schema is generated; a
        # worker or a command that serves no request does without it and drf-spectacular.
        from . import (
            metrics,
            outbox,
            taskcontext,  # noqa: F401 - connects the ndc and the task metrics to Celery's signals
            tasks,
        )
        from .converters import HexIdConverter

        # `<hexid:...>` in the apps' URL confs: a 32-hex id (core.converters).
        register_converter(HexIdConverter, "hexid")
        # The outbox is a library; the task queue is its adapter: the arrow points one way.
        outbox.register_dispatcher(tasks.hand_over)
        # The outbox's depth by status, read at each scrape (core.metrics).
        metrics.register_gauge(
            metrics.PREFIX + "outbox_messages",
            "Outbox notifications by status (PENDING: to deliver, DELIVERED, FAILED).",
            outbox.depth_by_status,
            labels=("status",),
        )
        metrics.register_gauge(
            metrics.PREFIX + "outbox_oldest_pending_seconds",
            "Age of the oldest PENDING notification (0 when none): deliveries are not keeping up.",
            outbox.oldest_pending_age,
        )
