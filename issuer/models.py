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
