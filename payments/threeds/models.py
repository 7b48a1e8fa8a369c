"""3-D Secure 2 authentications of payments (the built-in 3DS server and ACS simulator).

One row per payment that goes through the challenge or frictionless flow. The browser reaches it
only through its unguessable id and, for the challenge form, a per-authentication nonce; a final
state is never left, so the same challenge cannot be completed twice.
"""

import secrets

from django.db import models

from core.envelope import new_id
from core.errors import Conflict
from core.lifecycle import Lifecycle

from .. import results


def _nonce() -> str:
    return secrets.token_urlsafe(24)


class ThreeDSState(models.TextChoices):
    """Where an authentication stands."""

    PENDING = "PENDING", "Pending: the shopper has not reached the 3DS page yet"
    CHALLENGE = "CHALLENGE", "Challenge shown: waiting for the one-time password"
    AUTHENTICATED = "AUTHENTICATED", "Authenticated (transStatus Y)"
    ATTEMPTED = "ATTEMPTED", "Attempted: issuer not participating (transStatus A)"
    FAILED = "FAILED", "Failed: not authenticated (transStatus N)"
    CANCELLED = "CANCELLED", "Cancelled by the shopper"
    EXPIRED = "EXPIRED", "Expired: never completed"


ENDINGS = frozenset(
    {
        ThreeDSState.AUTHENTICATED,
        ThreeDSState.ATTEMPTED,
        ThreeDSState.FAILED,
        ThreeDSState.CANCELLED,
        ThreeDSState.EXPIRED,
    }
)

# PENDING -> CHALLENGE -> an ending (or PENDING -> an ending: frictionless, expired, cancelled);
# an ending is final, so the same challenge cannot be completed twice.
THREEDS_LIFECYCLE = Lifecycle(
    "3-D Secure authentication",
    {
        ThreeDSState.PENDING: {ThreeDSState.CHALLENGE, *ENDINGS},
        ThreeDSState.CHALLENGE: ENDINGS,
        **{state: set() for state in ENDINGS},
    },
    field="state",
    refusal=lambda current, target: Conflict(
        results.THREEDS_ALREADY_COMPLETE, "this authentication is already complete"
    ),
)
FINAL_STATES = THREEDS_LIFECYCLE.final_states


class ThreeDSAuthentication(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    payment = models.OneToOneField(
        "payments.Payment", on_delete=models.CASCADE, related_name="threeds"
    )
    state = models.CharField(
        max_length=16, choices=ThreeDSState.choices, default=ThreeDSState.PENDING
    )
    flow = models.CharField(
        max_length=12, help_text="FRICTIONLESS or CHALLENGE (issuer's decision)"
    )
    issuer_result = models.CharField(
        max_length=1, help_text="transStatus the issuer will give: Y, A, N"
    )
    method_required = models.BooleanField(default=False)
    method_completed = models.BooleanField(default=False)
    version = models.CharField(max_length=8)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    challenge_indicator = models.CharField(max_length=2, default="01")
    challenge_window = models.CharField(max_length=2, default="05")
    shopper_result_url = models.URLField(max_length=2048)
    browser = models.JSONField(default=dict, blank=True)
    cardholder_history = models.JSONField(default=dict, blank=True)
    # EMV 3DS recurringExpiry and recurringFrequency of a RECURRING or INSTALLMENT INITIAL.
    recurring_expiry = models.DateField(null=True, blank=True)
    recurring_frequency = models.PositiveIntegerField(null=True, blank=True)
    nonce = models.CharField(max_length=64, default=_nonce, editable=False)
    otp_attempts = models.PositiveSmallIntegerField(default=0)
    # On-us cards (the closed loop): the issuer authenticates its cardholder, out of band in
    # its app (OOB) or with a one-time password by SMS or e-mail (OTP); its record's id, and
    # the vault-encrypted cardholder link or simulator code the page shows.
    issuer_method = models.CharField(max_length=3, blank=True)
    issuer_reference = models.CharField(max_length=32, blank=True)
    issuer_secret = models.TextField(blank=True, editable=False)
    issuer_sent_to = models.CharField(max_length=128, blank=True)

    trans_status = models.CharField(max_length=1, blank=True)
    eci = models.CharField(max_length=2, blank=True)
    authentication_value = models.CharField("verificationId (CAVV)", max_length=64, blank=True)
    ds_transaction_id = models.CharField(max_length=36, blank=True)
    acs_transaction_id = models.CharField(max_length=36, blank=True)

    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "3-D Secure authentication"
        indexes = [models.Index(fields=["state", "expires_at"])]

    def __str__(self) -> str:
        return f"3DS {self.id} {self.state}"

    @property
    def is_final(self) -> bool:
        return THREEDS_LIFECYCLE.is_final(self.state)
