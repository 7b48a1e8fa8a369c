"""Exchange rates (spec "Exchange rate"): one rate per currency and effective date, quoting the
currency against the platform's base currency (EXCHANGE_BASE_CURRENCY): units of the base
currency for one unit of the currency. The rate in force on a date is the one with the latest
effective date on or before it. A rate is replaced only before its effective date; every change
is kept (ExchangeRateChange)."""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from core.business_day import business_day_bounds
from core.display import money


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
    ndc = models.CharField("request ID", max_length=64, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.buying_rate}/{self.selling_rate} by {self.changed_by}"


class FeePlan(models.Model):
    """What the bank charges a merchant: MDR per brand and payment type (FeeRule), a 3-D
    Secure fee and an external scheme fee per transaction, and a rolling reserve (a percent of
    each day's sales held for a number of days)."""

    merchant = models.OneToOneField(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="fee_plan"
    )
    threeds_fee = models.DecimalField("3-D Secure fee", max_digits=12, decimal_places=2, default=0)
    scheme_fee = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    reserve_percent = models.DecimalField(max_digits=5, decimal_places=2, default=0)
    reserve_days = models.PositiveSmallIntegerField(default=0)

    def __str__(self) -> str:
        return f"fee plan of {self.merchant_id}"


class FeeRule(models.Model):
    plan = models.ForeignKey(FeePlan, on_delete=models.CASCADE, related_name="rules")
    brand = models.CharField(max_length=32, blank=True, help_text="Empty: any brand.")
    payment_type = models.CharField(max_length=2, blank=True, help_text="Empty: any type.")
    mdr_percent = models.DecimalField("MDR %", max_digits=6, decimal_places=3, default=0)
    fixed = models.DecimalField(max_digits=12, decimal_places=2, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["plan", "brand", "payment_type"], name="fee_rule_one_per_brand_and_type"
            )
        ]

    def __str__(self) -> str:
        scope = f"{self.brand or 'any'} {self.payment_type or 'any'}"
        return f"{scope}: {self.mdr_percent}% + {self.fixed}"


class SettlementRun(models.Model):
    """One merchant's settlement of one business day, in its settlement currency; provisional
    while the day has not ended."""

    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="settlements"
    )
    day = models.DateField()
    currency = models.CharField(max_length=3)
    sales_count = models.PositiveIntegerField(default=0)
    sales_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    refunds_count = models.PositiveIntegerField(default=0)
    refunds_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    credits_count = models.PositiveIntegerField(default=0)
    credits_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    fees_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    chargebacks_count = models.PositiveIntegerField(default=0)
    chargebacks_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    chargeback_reversals_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    reserve_held = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    reserve_released = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    net_amount = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    provisional = models.BooleanField(
        default=False,
        help_text="Made before the business day's cut-off: what the rest of the day brought is "
        "missing. The run after the cut-off replaces it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-day"]
        constraints = [
            models.UniqueConstraint(fields=["merchant", "day"], name="settlement_one_per_day")
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.day:%Y-%m-%d}: {money(self.net_amount, self.currency)}"


class SettlementItem(models.Model):
    """A payment in a settlement run: settled once, whatever is re-run (the database says so)."""

    run = models.ForeignKey(SettlementRun, on_delete=models.CASCADE, related_name="items")
    payment = models.OneToOneField(
        "payments.Payment", on_delete=models.PROTECT, related_name="settlement_item"
    )
    kind = models.CharField(max_length=8)  # SALE, REFUND, CREDIT
    amount = models.DecimalField(max_digits=14, decimal_places=3)  # in the run's currency
    fee = models.DecimalField(max_digits=14, decimal_places=3)  # mdr + threeds_fee + scheme_fee
    mdr = models.DecimalField("MDR", max_digits=14, decimal_places=3, default=0)
    threeds_fee = models.DecimalField("3-D Secure fee", max_digits=14, decimal_places=3, default=0)
    scheme_fee = models.DecimalField(max_digits=14, decimal_places=3, default=0)
    reserve = models.DecimalField(
        max_digits=14, decimal_places=3, default=0, help_text="Held from this sale."
    )

    def __str__(self) -> str:
        currency = self.run.currency  # the admin's inline reads the run with the item
        fee = money(self.fee, currency)
        return f"{self.kind} {self.payment_id}: {money(self.amount, currency)} (fee {fee})"


class Chargeback(models.Model):
    """A cardholder's dispute the network charged back: it debits the merchant's settlement of
    the day it is received, and its reversal (the merchant won) credits the day it is reversed."""

    payment = models.ForeignKey(
        "payments.Payment", on_delete=models.PROTECT, related_name="chargebacks"
    )
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="chargebacks"
    )
    reason_code = models.CharField(max_length=4)
    amount = models.DecimalField(max_digits=12, decimal_places=3)
    currency = models.CharField(max_length=3)
    partial = models.BooleanField(default=False)
    second_presentment = models.BooleanField(default=False)
    note = models.TextField(blank=True, help_text="The complaint, for the file.")
    reference = models.CharField("chargeback reference id", max_length=10, blank=True)
    received_on = models.DateField()
    reversed_on = models.DateField(null=True, blank=True)
    settlement_amount = models.DecimalField(
        max_digits=14,
        decimal_places=3,
        null=True,
        blank=True,
        help_text="The debit, in the settlement currency of the run that counted it.",
    )
    reversal_amount = models.DecimalField(
        max_digits=14,
        decimal_places=3,
        null=True,
        blank=True,
        help_text="The credit of its reversal, in the same currency.",
    )
    settled_in = models.ForeignKey(
        SettlementRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reversal_settled_in = models.ForeignKey(
        SettlementRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_by = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-received_on", "-pk"]

    def __str__(self) -> str:
        amount = money(self.amount, self.currency)
        return f"chargeback {self.reason_code} {amount} of {self.payment_id}"


class ReconFile(models.Model):
    """A daily reconciliation file produced for an entity (recon.generate): where the
    reconciliation storage keeps it, and what it holds."""

    entity = models.ForeignKey(
        "merchants.Entity", on_delete=models.PROTECT, related_name="recon_files"
    )
    day = models.DateField("settlement date")
    production = models.BooleanField(help_text="P file (production) or T file (test).")
    name = models.CharField(max_length=32)
    path = models.CharField(max_length=255, help_text="In the reconciliation storage.")
    records = models.PositiveIntegerField(help_text="Detail records (the trailer's count).")
    size = models.PositiveBigIntegerField(help_text="Bytes.")
    sha256 = models.CharField("SHA-256", max_length=64)
    generated_at = models.DateTimeField(
        default=timezone.now,
        help_text="When its data was read (before the settlement it carries): before its "
        "day's cut-off, the file is a preview that the file made after the cut-off replaces.",
    )

    class Meta:
        ordering = ["-day", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["entity", "day", "production"], name="recon_file_one_per_day"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def preview(self) -> bool:
        """Its data read before its business day's cut-off (`recon_file --before-cutoff`, or a
        run that began just before it): it misses what the rest of the day brought, and the
        file made after the cut-off replaces it."""
        return self.generated_at < business_day_bounds(self.day)[1]
