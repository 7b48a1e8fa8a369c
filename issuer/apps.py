from django.apps import AppConfig


class IssuerConfig(AppConfig):
    name = "issuer"
    verbose_name = "Issuer authorization protocol"
