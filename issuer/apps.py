from django.apps import AppConfig


class IssuerConfig(AppConfig):
    name = "issuer"
    verbose_name = "Issuer authorization protocol"

    def ready(self) -> None:
        # The implemented operations register themselves; the app's result codes are declared.
        from . import operations, results  # noqa: F401
