"""Ledger accounts, journals, entries and holds (imported by issuer.models).

An entry's amount is signed: positive raises the account's balance, negative lowers it. A
journal's entries sum to zero in each currency (PostgreSQL checks it at commit with the
deferred constraint trigger of migration 0004; `services.post` checks it first on every
database). `balance` is the sum of the account's entries, kept by `services.post` under the
account's row lock."""

from django.db import models
from django.db.models import Q

from core.display import money


class AccountKind(models.TextChoices):
    PREPAID = "PREPAID", "a prepaid card's e-money account (never below zero)"
    DEBIT = "DEBIT", "a debit card's linked bank account"
    ISSUER = "ISSUER", "the issuer's own account (funding, settlement, fees)"


class LedgerAccount(models.Model):
    name = models.CharField(max_length=100)
    code = models.CharField(
        max_length=40,
        unique=True,
        null=True,
        blank=True,
        help_text="The issuer's own accounts: purpose and currency (issuer:funding:EUR).",
    )
    kind = models.CharField(max_length=10, choices=AccountKind.choices)
    currency = models.CharField(max_length=3)
    balance = models.DecimalField(max_digits=16, decimal_places=3, default=0)
    allow_negative = models.BooleanField(
        default=False, help_text="Only the issuer's own accounts may go below zero."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(allow_negative=True) | Q(balance__gte=0),
                name="ledger_account_not_below_zero",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.currency})"


class Journal(models.Model):
    """One money movement: its entries balance in each currency."""

    kind = models.CharField(max_length=32)
    description = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"journal {self.pk} {self.kind}"


class Entry(models.Model):
    journal = models.ForeignKey(Journal, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(LedgerAccount, on_delete=models.PROTECT, related_name="entries")
    currency = models.CharField(max_length=3, help_text="The account's (the trigger sums by it).")
    amount = models.DecimalField(max_digits=16, decimal_places=3)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="entry_not_zero")]

    def __str__(self) -> str:
        return f"{money(self.amount, self.currency)} on account {self.account_id}"


class Hold(models.Model):
    """Money set aside on an account (an authorization): it lowers the available balance until
    it is released or expires; an expired hold stops counting at once, released or not."""

    account = models.ForeignKey(LedgerAccount, on_delete=models.PROTECT, related_name="holds")
    amount = models.DecimalField(max_digits=16, decimal_places=3)
    reason = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["account", "released_at", "expires_at"])]
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="hold_positive")]

    def __str__(self) -> str:
        return f"hold {self.amount} on {self.account_id}"
