"""The references' two tables: one row per payment, one per used client-assertion jti."""

from django.db import models


class Payment(models.Model):
    merchant_transaction_id = models.CharField(max_length=64, unique=True)
    payment_type = models.CharField(max_length=2)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    created_at = models.DateTimeField(auto_now_add=True)

    # Spelled out: mypy's Django plugin reads the platform's settings, without this app.
    objects: models.Manager["Payment"] = models.Manager()

    class Meta:
        app_label = "reference"

    def __str__(self) -> str:
        return self.merchant_transaction_id


class UsedJti(models.Model):
    """A client assertion's jti, kept so it is accepted once (the unique index refuses it)."""

    jti = models.CharField(max_length=255, unique=True)
    client_id = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    objects: models.Manager["UsedJti"] = models.Manager()

    class Meta:
        app_label = "reference"

    def __str__(self) -> str:
        return self.jti
