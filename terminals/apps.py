from django.apps import AppConfig


class TerminalsConfig(AppConfig):
    name = "terminals"
    verbose_name = "POS terminals"
