from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo data of `make run` (seed_demo): it builds on every app, and no app imports it."""

    name = "demo"
    verbose_name = "Demo data"
