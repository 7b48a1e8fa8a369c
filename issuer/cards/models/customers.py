"""Customers and their card accounts (a prepaid card's e-money account or a debit card's linked
bank account, each over a ledger account)."""

from django.db import models

from core.lifecycle import Lifecycle

from ...ledger.models import LedgerAccount
from .products import CardProduct
from .references import account_reference, customer_reference


class KycStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    VERIFIED = "VERIFIED", "Verified"
    REJECTED = "REJECTED", "Rejected"


class Customer(models.Model):
    reference = models.CharField(max_length=32, unique=True, default=customer_reference)
    client_id = models.CharField(max_length=100, help_text="The requestor it belongs to.")
    first_name = models.CharField(max_length=50)
    last_name = models.CharField(max_length=50)
    email = models.CharField(max_length=128, blank=True)
    mobile = models.CharField(max_length=20, blank=True)
    address_line1 = models.CharField(max_length=100, blank=True)
    address_line2 = models.CharField(max_length=100, blank=True)
    city = models.CharField(max_length=50, blank=True)
    postcode = models.CharField(max_length=16, blank=True)
    country = models.CharField(max_length=2, blank=True)
    kyc_status = models.CharField(
        "KYC status", max_length=10, choices=KycStatus.choices, default=KycStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["client_id", "reference"])]

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name} ({self.reference})"

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"


class AccountStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "Active"
    SUSPENDED = "SUSPENDED", "Suspended: no money moves"
    CLOSED = "CLOSED", "Closed (final)"


ACCOUNT_LIFECYCLE = Lifecycle(
    "card account",
    {
        AccountStatus.ACTIVE: {AccountStatus.SUSPENDED, AccountStatus.CLOSED},
        AccountStatus.SUSPENDED: {AccountStatus.ACTIVE, AccountStatus.CLOSED},
        AccountStatus.CLOSED: set(),
    },
)


class CardAccount(models.Model):
    """A prepaid card's e-money account, or the bank account a debit card is linked to."""

    reference = models.CharField(max_length=32, unique=True, default=account_reference)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="accounts")
    product = models.ForeignKey(CardProduct, on_delete=models.PROTECT, related_name="accounts")
    ledger = models.OneToOneField(LedgerAccount, on_delete=models.PROTECT, related_name="owner")
    iban = models.CharField(
        "IBAN", max_length=34, blank=True, help_text="Debit: the linked bank account."
    )
    status = models.CharField(
        max_length=10, choices=AccountStatus.choices, default=AccountStatus.ACTIVE
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"account {self.reference}"

    @property
    def currency(self) -> str:
        return self.ledger.currency
