"""Hosted checkouts: a payment page of this platform, so that a merchant never handles card
numbers.

The merchant creates a checkout (amount, currency, PA or DB, merchantTransactionId,
shopperResultUrl, createRegistration, standingInstruction.*, customer and billing groups) and
sends the shopper's browser to its page; the shopper's card (or one of the merchant's stored
cards of the same customer.merchantCustomerId) pays it once, through the same use cases as an
API payment, with the checkout's merchantTransactionId. A checkout is used once (OPEN -> USED,
whatever the payment's outcome) and expires (OPEN -> EXPIRED) after CHECKOUT_LIFETIME_MINUTES;
expiry is checked where the checkout is used.
"""

from django.db import models

from core.envelope import new_id
from core.errors import Conflict
from core.lifecycle import Lifecycle
from merchants.models import Entity, Merchant

from .. import results


class CheckoutStatus(models.TextChoices):
    OPEN = "OPEN", "Open: waiting for the shopper"
    USED = "USED", "Used: the shopper paid (or tried to)"
    EXPIRED = "EXPIRED", "Expired: not used in time"


CHECKOUT_LIFECYCLE = Lifecycle(
    "checkout",
    {
        CheckoutStatus.OPEN: {CheckoutStatus.USED, CheckoutStatus.EXPIRED},
        CheckoutStatus.USED: set(),
        CheckoutStatus.EXPIRED: set(),
    },
    refusal=lambda current, target: Conflict(
        results.CHECKOUT_EXPIRED if current == CheckoutStatus.EXPIRED else results.CHECKOUT_USED
    ),
)


class Checkout(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.PROTECT, related_name="checkouts")
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+")
    entity_type = models.CharField(max_length=16)
    merchant_transaction_id = models.CharField(
        max_length=32, help_text="The payment's merchantTransactionId."
    )
    payment_type = models.CharField(max_length=2)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    shopper_result_url = models.URLField(max_length=2048)
    create_registration = models.BooleanField(default=False)
    merchant_customer_id = models.CharField(max_length=100, blank=True)
    data = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the payment will carry besides the card: groups, standing instruction.",
    )
    status = models.CharField(
        max_length=8, choices=CheckoutStatus.choices, default=CheckoutStatus.OPEN
    )
    payment = models.OneToOneField(
        "payments.Payment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="checkout",
    )
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "merchant_transaction_id"],
                name="checkout_unique_mtid_per_merchant",
            )
        ]

    def __str__(self) -> str:
        return f"checkout {self.id} ({self.status})"
