"""Card on file: stored cards (registrations) and the standing instructions made with them.

A `Registration` keeps one card of one merchant for later payments: the vault's ciphertext of
the PAN, its fingerprint, expiry, holder, brand, BIN and last four; never the CVV. It is made by
an approved PA, DB or CV with `createRegistration=true`, or stand-alone (a zero-amount
verification). Deregistration destroys the stored PAN and keeps the row for the history.

A `StandingInstruction` is the agreement a cardholder-initiated INITIAL payment (CIT) set up
with the network: its type (RECURRING, INSTALLMENT, UNSCHEDULED), frequency, number of
installments and expiry, and the network's transaction id of that CIT
(`standingInstruction.initialTransactionId`), which every later merchant-initiated payment (MIT)
names. Its counters (authorizations approved, the last one's time, and those still in flight)
change only under its row lock, so two MITs of one chain cannot both pass a frequency rule.
"""

from django.db import models
from django.db.models import Q

from core.cards import masked_parts
from core.envelope import new_id
from core.errors import ApplicationError
from core.lifecycle import Lifecycle
from merchants.models import Entity, Merchant

from .. import results


class RegistrationStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "Active: payments may use it"
    DEREGISTERED = "DEREGISTERED", "Deregistered: the card number is destroyed"


REGISTRATION_LIFECYCLE = Lifecycle(
    "registration",
    {
        RegistrationStatus.ACTIVE: {RegistrationStatus.DEREGISTERED},
        RegistrationStatus.DEREGISTERED: set(),
    },
    refusal=lambda current, target: ApplicationError(results.REGISTRATION_DEREGISTERED),
)


class Registration(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.PROTECT, related_name="registrations")
    entity = models.ForeignKey(
        Entity, on_delete=models.PROTECT, related_name="+", help_text="The entity that made it."
    )
    status = models.CharField(
        max_length=12, choices=RegistrationStatus.choices, default=RegistrationStatus.ACTIVE
    )
    payment_brand = models.CharField(max_length=32, blank=True)
    card_bin = models.CharField(max_length=6)
    card_last4 = models.CharField(max_length=4, db_index=True)
    card_holder = models.CharField(max_length=128, blank=True)
    card_expiry_month = models.CharField(max_length=2)
    card_expiry_year = models.CharField(max_length=4)
    pan_ciphertext = models.TextField(blank=True, editable=False)
    pan_fingerprint = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    merchant_customer_id = models.CharField(
        max_length=255, blank=True, db_index=True, help_text="customer.merchantCustomerId"
    )
    created_by = models.OneToOneField(
        "payments.Payment",
        null=True,
        on_delete=models.PROTECT,
        related_name="created_registration",
        help_text="The approved payment (or verification) that stored the card.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    deregistered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["merchant", "-created_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="ACTIVE") | Q(pan_ciphertext="", pan_fingerprint=""),
                name="registration_deregistered_has_no_pan",
            )
        ]

    def __str__(self) -> str:
        return f"{self.payment_brand} {self.card_bin}******{self.card_last4} ({self.status})"

    @property
    def masked(self) -> str:
        return masked_parts(self.card_bin, self.card_last4)


class InstructionType(models.TextChoices):
    UNSCHEDULED = "UNSCHEDULED", "Unscheduled"
    INSTALLMENT = "INSTALLMENT", "Installment"
    RECURRING = "RECURRING", "Recurring"


class StandingInstruction(models.Model):
    """The agreement of a CIT (INITIAL) and the chain of MITs that name it."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    merchant = models.ForeignKey(
        Merchant, on_delete=models.PROTECT, related_name="standing_instructions"
    )
    initial_payment = models.OneToOneField(
        "payments.Payment", on_delete=models.PROTECT, related_name="initiated_instruction"
    )
    initial_transaction_id = models.CharField(
        max_length=64, help_text="The network's transaction id of the CIT."
    )
    registration = models.ForeignKey(
        Registration,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="standing_instructions",
    )
    pan_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    type = models.CharField(max_length=12, choices=InstructionType.choices)
    frequency_days = models.PositiveIntegerField(null=True, blank=True)
    number_of_installments = models.PositiveIntegerField(null=True, blank=True)
    expiry = models.DateField(null=True, blank=True)
    # Approved authorizations of the chain (the CIT included) and the last one's time; MITs
    # whose network answer is awaited (reserved at their claim, settled at their finalize).
    authorizations = models.PositiveIntegerField(default=0)
    last_authorized_at = models.DateTimeField(
        null=True, blank=True, help_text="None while only a verification (CV) set it up."
    )
    in_flight = models.PositiveIntegerField(default=0)
    in_flight_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "initial_transaction_id"],
                name="instruction_unique_initial_id_per_merchant",
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.initial_transaction_id}"
