"""The issuer's log of every money operation and authorization (CardTransaction)."""

from django.db import models
from django.db.models import Q

from core.display import money

from ...ledger.models import Hold, Journal
from .cards import Card
from .customers import CardAccount
from .references import transaction_reference


class TransactionType(models.TextChoices):
    LOAD = "LOAD", "Load"
    WITHDRAW = "WITHDRAW", "Cash withdrawal"
    TRANSFER = "TRANSFER", "Transfer out"
    TRANSFER_IN = "TRANSFER_IN", "Transfer in"
    PURCHASE = "PURCHASE", "Purchase"
    REFUND = "REFUND", "Refund"
    CREDIT = "CREDIT", "Merchant credit"
    REVERSAL = "REVERSAL", "Reversal"
    BLOCK = "BLOCK", "Funds blocked"
    UNBLOCK = "UNBLOCK", "Funds unblocked"
    SERVICE_CHARGE = "SERVICE_CHARGE", "Service charge"
    VERIFICATION = "VERIFICATION", "Account verification"
    DEBIT_ADJUSTMENT = "DEBIT_ADJUSTMENT", "Debit adjustment"
    CREDIT_ADJUSTMENT = "CREDIT_ADJUSTMENT", "Credit adjustment"


class TransactionStatus(models.TextChoices):
    APPROVED = "APPROVED", "Approved"
    DECLINED = "DECLINED", "Declined"


class CardTransaction(models.Model):
    reference = models.CharField(max_length=32, unique=True, default=transaction_reference)
    client_id = models.CharField(max_length=100)
    # NULL (not "") on a transfer's credit side: the unique constraint ignores NULLs.
    requestor_reference = models.CharField(  # noqa: DJ001
        max_length=64, null=True, blank=True, help_text="Empty on a transfer's credit side."
    )
    request_hash = models.CharField(max_length=64)
    answer = models.JSONField(default=dict, help_text="The stored answer (idempotency).")
    type = models.CharField(max_length=20, choices=TransactionType.choices)
    status = models.CharField(max_length=10, choices=TransactionStatus.choices)
    result_code = models.CharField(max_length=11)
    card = models.ForeignKey(Card, on_delete=models.PROTECT, related_name="transactions")
    account = models.ForeignKey(CardAccount, on_delete=models.PROTECT, related_name="transactions")
    amount = models.DecimalField(max_digits=16, decimal_places=3)
    currency = models.CharField(max_length=3)
    channel = models.CharField(max_length=10, blank=True)
    region = models.CharField(max_length=10, blank=True)
    merchant_name = models.CharField(max_length=100, blank=True)
    mcc = models.CharField("MCC", max_length=4, blank=True)
    description = models.CharField(max_length=200, blank=True)
    journal = models.ForeignKey(
        Journal, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    hold = models.ForeignKey(
        Hold, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    original = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="followers"
    )
    reversed = models.BooleanField(default=False)
    counts_for_limits = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["account", "created_at"]),
            models.Index(fields=["card", "counts_for_limits", "created_at"]),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["client_id", "requestor_reference"], name="card_transaction_unique_ref"
            ),
            models.UniqueConstraint(
                fields=["original"],
                condition=Q(type="REVERSAL", status="APPROVED"),
                name="card_transaction_reversed_once",
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="card_transaction_amount"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.get_type_display()} {money(self.amount, self.currency)}"
            f" ({self.get_status_display()})"
        )
