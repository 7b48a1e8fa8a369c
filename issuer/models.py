"""The issuer side: requestor clients (django-oauth-toolkit Applications with their public keys),
used assertion ids (replay protection shared by every worker), and out-of-band authentications.

A requestor is a DOT `Application` (client credentials, no secret: it authenticates with
private_key_jwt) plus a `RequestorProfile` holding its public JWKS (an EC P-256 key that verifies
its client assertions, an RSA >= 2048 key that the issuer encrypts answers to) or a jwks_uri,
and the scopes it may be granted. Issued access tokens are recorded as DOT AccessToken rows
(token = the JWT's jti) for audit.
"""

from django.db import models
from oauth2_provider.models import Application

from core.envelope import new_id
from core.lifecycle import Lifecycle


class RequestorProfile(models.Model):
    application = models.OneToOneField(
        Application, on_delete=models.CASCADE, related_name="requestor"
    )
    jwks = models.JSONField(
        default=dict,
        blank=True,
        help_text="The requestor's public JWK set (EC P-256 sig, RSA enc).",
    )
    jwks_uri = models.URLField(blank=True, help_text="Or where its JWK set is published.")
    scopes = models.CharField(max_length=500, help_text="Space-separated scopes it may get.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"requestor {self.application.client_id}"

    @property
    def scope_set(self) -> set[str]:
        return set(self.scopes.split())


class UsedAssertion(models.Model):
    """A client assertion's jti, kept until the assertion could no longer be valid. The unique
    constraint makes "used once" hold across processes and machines."""

    client_id = models.CharField(max_length=100)
    jti = models.CharField(max_length=255)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["client_id", "jti"], name="used_assertion_unique_jti")
        ]

    def __str__(self) -> str:
        return f"{self.client_id} {self.jti}"


class OOBStatus(models.TextChoices):
    """An out-of-band authentication of a cardholder (OOBResultInquiry statuses)."""

    PENDING = "PENDING", "Pending: waiting for the cardholder"
    SUCCESS = "SUCCESS", "Approved by the cardholder"
    REJECTED = "REJECTED", "Rejected by the cardholder"
    EXPIRED = "EXPIRED", "Not answered in time"
    CANCELLED = "CANCELLED", "Cancelled"
    ERROR = "ERROR", "Could not be completed"


# --- Out-of-band authentications and one-time passwords (authentication/* operations) ----------
# Added with the authorization API (issuer.protocol.api, issuer.services). Every state change
# goes through issuer.services; the cardholder's secret link token and the one-time passwords are
# stored only as keyed hashes, so a copy of the database cannot approve an authentication or
# verify a code.

# PENDING is the only state that moves; every other state is final.
OOB_LIFECYCLE = Lifecycle(
    "out-of-band authentication",
    {OOBStatus.PENDING: set(OOBStatus.values) - {OOBStatus.PENDING}}
    | {state: set() for state in OOBStatus.values if state != OOBStatus.PENDING},
)


class OOBAuthentication(models.Model):
    """One out-of-band authentication started by a requestor (StartOOBAuthen): the cardholder
    approves or rejects it on the page the issuer would push to its app, or it expires. Only the
    requestor that started it can inquire about it (OOBResultInquiry)."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    client_id = models.CharField(max_length=100, help_text="The requestor that started it.")
    card_reference = models.CharField(max_length=64, help_text="A token or masked ref, no PAN.")
    transaction_id = models.CharField(max_length=64)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    merchant_name = models.CharField(max_length=100)
    status = models.CharField(max_length=16, choices=OOBStatus.choices, default=OOBStatus.PENDING)
    link_token_hash = models.CharField(
        max_length=64, editable=False, help_text="Keyed hash of the cardholder link's secret."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "out-of-band authentication"
        indexes = [models.Index(fields=["status", "expires_at"], name="oob_status_expiry")]
        constraints = [
            models.UniqueConstraint(
                fields=["client_id", "transaction_id"], name="oob_unique_transaction_per_client"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(status=OOBStatus.PENDING, decided_at__isnull=True)
                    | (~models.Q(status=OOBStatus.PENDING) & models.Q(decided_at__isnull=False))
                ),
                name="oob_decided_at_iff_final",
            ),
            models.CheckConstraint(
                condition=models.Q(amount__gte=0), name="oob_amount_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"OOB {self.id} {self.status}"

    @property
    def is_final(self) -> bool:
        return OOB_LIFECYCLE.is_final(self.status)


class OTPChannel(models.TextChoices):
    SMS = "SMS", "Text message"
    EMAIL = "EMAIL", "E-mail"


class OTPChallenge(models.Model):
    """A one-time password sent to the cardholder (SendOTP) and checked by the requestor
    (VerifyOTP): at most `MAX_ATTEMPTS` wrong codes, usable once, until `expires_at`."""

    MAX_ATTEMPTS = 3

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    client_id = models.CharField(max_length=100, help_text="The requestor that asked for it.")
    card_reference = models.CharField(max_length=64)
    transaction_id = models.CharField(max_length=64)
    channel = models.CharField(max_length=8, choices=OTPChannel.choices)
    code_hash = models.CharField(max_length=64, editable=False, help_text="Keyed hash of the code.")
    attempts = models.PositiveSmallIntegerField(default=0)
    verified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = "one-time password"
        indexes = [models.Index(fields=["client_id", "transaction_id"], name="otp_client_txn")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(attempts__lte=3), name="otp_attempts_at_most_three"
            ),
        ]

    def __str__(self) -> str:
        return f"OTP {self.id} ({self.channel})"

    @property
    def attempts_left(self) -> int:
        return max(0, self.MAX_ATTEMPTS - self.attempts)


from .cards.models import (  # noqa: E402
    BinRange,
    Card,
    CardAccount,
    CardLimit,
    CardProduct,
    CardStatusChange,
    CardTransaction,
    Customer,
    ProductOperation,
    TokenEvent,
)
from .ledger.models import AccountKind, Entry, Hold, Journal, LedgerAccount  # noqa: E402

__all__ = [
    "AccountKind",
    "BinRange",
    "Card",
    "CardAccount",
    "CardLimit",
    "CardProduct",
    "CardStatusChange",
    "CardTransaction",
    "Customer",
    "ProductOperation",
    "TokenEvent",
    "Entry",
    "Hold",
    "Journal",
    "LedgerAccount",
    "OOBAuthentication",
    "OTPChallenge",
    "RequestorProfile",
    "UsedAssertion",
]
