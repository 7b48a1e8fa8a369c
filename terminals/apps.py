from django.apps import AppConfig


class TerminalsConfig(AppConfig):
    name = "terminals"
    verbose_name = "POS terminals"

    def ready(self) -> None:
        from core import auth

        from . import results  # noqa: F401 - declares the app's result codes
        from .selectors import terminal_of_merchant_entity

        auth.register_terminal_finder(terminal_of_merchant_entity)
