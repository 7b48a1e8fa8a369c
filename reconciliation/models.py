"""Exchange rates (spec "Exchange rate"): one rate per currency and effective date, quoting the
currency against the platform's base currency (EXCHANGE_BASE_CURRENCY): units of the base
currency for one unit of the currency. The rate in force on a date is the one with the latest
effective date on or before it. A rate is replaced only before its effective date; every change
is kept (ExchangeRateChange)."""

from django.db import models
from django.db.models import F, Q


class ExchangeRate(models.Model):
    currency = models.CharField(max_length=3)
    effective_date = models.DateField()
    buying_rate = models.DecimalField(max_digits=7, decimal_places=5)
    selling_rate = models.DecimalField(max_digits=7, decimal_places=5)
    created_by = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["currency", "-effective_date"]
        constraints = [
            models.UniqueConstraint(
                fields=["currency", "effective_date"], name="exchange_rate_one_per_day"
            ),
            models.CheckConstraint(
                condition=Q(buying_rate__gt=0, selling_rate__gte=F("buying_rate")),
                name="exchange_rate_positive_buying_not_above_selling",
            ),
        ]

    def __str__(self) -> str:
        rates = f"{self.buying_rate}/{self.selling_rate}"
        return f"{self.currency} {self.effective_date:%Y-%m-%d}: {rates}"


class ExchangeRateChange(models.Model):
    rate = models.ForeignKey(ExchangeRate, on_delete=models.CASCADE, related_name="history")
    buying_rate = models.DecimalField(max_digits=7, decimal_places=5)
    selling_rate = models.DecimalField(max_digits=7, decimal_places=5)
    changed_by = models.CharField(max_length=100)
    ndc = models.CharField(max_length=64, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.buying_rate}/{self.selling_rate} by {self.changed_by}"
