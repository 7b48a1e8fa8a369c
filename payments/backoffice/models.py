"""The record of every operation a person asked for on a payment, from the admin or the portal:
who, when, why, and the CP, RV or RF it made (payments.backoffice.services)."""

from django.db import models

from core.envelope import new_id


class PaymentAction(models.Model):
    """A capture, reversal or refund asked for by a person. Its `key` is the form's (rendered
    once per form): a double click, or the same form sent twice, makes one operation. A refund or
    reversal from the admin above BACKOFFICE_APPROVAL_AMOUNT waits for a second staff member
    (AWAITING_APPROVAL), its amount held on the original meanwhile; approved it is sent, rejected
    or expired the hold is released."""

    class Kind(models.TextChoices):
        CAPTURE = "CP", "Capture"
        REVERSE = "RV", "Reverse (void)"
        REFUND = "RF", "Refund"

    class Channel(models.TextChoices):
        ADMIN = "ADMIN", "Admin (bank staff)"
        PORTAL = "PORTAL", "Merchant portal"

    class State(models.TextChoices):
        SENT = "SENT", "Sent"
        AWAITING_APPROVAL = "AWAITING_APPROVAL", "Awaiting a second approval"
        APPROVED = "APPROVED", "Approved and sent"
        REJECTED = "REJECTED", "Rejected"
        EXPIRED = "EXPIRED", "Expired without approval"

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    key = models.CharField(max_length=64, unique=True, help_text="The form's, sent once.")
    original = models.ForeignKey(
        "payments.Payment", on_delete=models.PROTECT, related_name="actions"
    )
    payment = models.OneToOneField(
        "payments.Payment",
        on_delete=models.PROTECT,
        related_name="action",
        null=True,
        blank=True,
        help_text="The capture, reversal or refund it made.",
    )
    kind = models.CharField(max_length=2, choices=Kind.choices)
    amount = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="None: all of it."
    )
    currency = models.CharField(max_length=3)
    reason = models.CharField(max_length=255)
    channel = models.CharField(max_length=6, choices=Channel.choices)
    requested_by = models.CharField(
        max_length=160, help_text="staff:<username> or portal:<username>"
    )
    requested_by_user = models.ForeignKey(
        "auth.User",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who asked, by user (a renamed user is still the one who asked).",
    )
    requested_at = models.DateTimeField(auto_now_add=True, db_index=True)
    state = models.CharField(max_length=17, choices=State.choices)
    decided_by = models.CharField(max_length=160, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        verbose_name = "payment operation"
        permissions = [
            (
                "approve_paymentaction",
                "Can approve or reject another staff member's refund or reversal",
            )
        ]
        indexes = [
            models.Index(
                fields=["requested_at"],
                name="payments_action_awaiting",
                condition=models.Q(state="AWAITING_APPROVAL"),
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.original_id} ({self.get_state_display()})"
