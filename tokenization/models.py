"""Scheme tokens (the network's digital enablement: a token stands for a card at one token
requestor, the merchant), their card art, and their lifecycle.

An `Asset` is one published piece of card art: its media contents (a PNG with an alpha channel,
and where a product has them a vector version or text), addressed by the SHA-256 of its contents,
so it never changes: new artwork is a new asset with a new id. `CardArt` is what a card product
(a brand, or a BIN range of it) shows in a wallet: brand logo, issuer logo, icon, background,
foreground colour, issuer name, short description. A `Token` keeps the funding card only as the
vault's ciphertext and fingerprint, its own PAN's BIN and last four, its expiry (MMYY), its
status (TOKEN_LIFECYCLE) and who suspended it.
"""

import secrets

from django.db import models
from django.db.models import Q

from core.errors import ApplicationError
from core.lifecycle import Lifecycle
from merchants.models import Entity, Merchant

from . import results


class MediaType(models.TextChoices):
    PNG = "image/png", "PNG image (with an alpha channel)"
    PDF = "application/pdf", "PDF (vector artwork)"
    SVG = "image/svg+xml", "SVG (vector artwork)"
    TEXT = "text/plain", "Text (terms)"
    HTML = "text/html", "HTML (terms)"


class Asset(models.Model):
    id = models.CharField(
        primary_key=True, max_length=64, editable=False, help_text="SHA-256 of its contents."
    )
    description = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.description} ({self.id[:12]}…)"


class MediaContent(models.Model):
    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="contents")
    type = models.CharField(max_length=32, choices=MediaType.choices)
    data = models.BinaryField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["asset", "position"]
        constraints = [
            models.UniqueConstraint(fields=["asset", "position"], name="media_content_position")
        ]

    def __str__(self) -> str:
        size = f" {self.width}x{self.height}" if self.width else ""
        return f"{self.type}{size}"


class CardArt(models.Model):
    """The artwork of a card product: a brand's default (no BIN range), or a BIN range of it."""

    name = models.CharField(max_length=64)
    brand = models.CharField(max_length=32)
    bin_from = models.CharField(
        max_length=6, blank=True, help_text="First BIN of the range (empty: the brand's default)."
    )
    bin_to = models.CharField(max_length=6, blank=True)
    issuer_name = models.CharField(max_length=64)
    short_description = models.CharField(max_length=64)
    foreground_color = models.CharField(max_length=6, help_text="Text colour, 6 hex digits.")
    brand_logo = models.ForeignKey(Asset, on_delete=models.PROTECT, related_name="+")
    issuer_logo = models.ForeignKey(Asset, on_delete=models.PROTECT, related_name="+")
    icon = models.ForeignKey(Asset, on_delete=models.PROTECT, related_name="+")
    card_background_combined = models.ForeignKey(
        Asset, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    card_background = models.ForeignKey(
        Asset, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["brand", "bin_from"]
        constraints = [
            models.CheckConstraint(
                condition=Q(card_background_combined__isnull=False)
                | Q(card_background__isnull=False),
                name="card_art_has_a_background",
            ),
            models.UniqueConstraint(
                fields=["brand"], condition=Q(bin_from=""), name="card_art_one_default_per_brand"
            ),
        ]

    def __str__(self) -> str:
        scope = f"{self.bin_from}-{self.bin_to}" if self.bin_from else "default"
        return f"{self.name} ({self.brand} {scope})"


class TokenStatus(models.TextChoices):
    INACTIVE = "INACTIVE", "Inactive: not yet activated"
    ACTIVE = "ACTIVE", "Active: ready to transact"
    SUSPENDED = "SUSPENDED", "Suspended: unable to transact"
    DEACTIVATED = "DEACTIVATED", "Deactivated: permanently"


class Suspender(models.TextChoices):
    ISSUER = "ISSUER"
    TOKEN_REQUESTOR = "TOKEN_REQUESTOR"
    MOBILE_PIN_LOCKED = "MOBILE_PIN_LOCKED"
    CARDHOLDER = "CARDHOLDER"


class TokenStatusChange(models.Model):
    token = models.ForeignKey("Token", on_delete=models.CASCADE, related_name="history")
    from_status = models.CharField(max_length=12, blank=True)
    to_status = models.CharField(max_length=12)
    reason = models.CharField(max_length=32, blank=True)
    suspended_by = models.JSONField(default=list, blank=True)
    changed_by = models.CharField(max_length=100, blank=True)
    ndc = models.CharField("request ID", max_length=64, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.from_status or '(new)'} -> {self.to_status}"


TOKEN_LIFECYCLE = Lifecycle(
    "token",
    {
        TokenStatus.INACTIVE: {TokenStatus.ACTIVE, TokenStatus.DEACTIVATED},
        # ACTIVE -> SUSPENDED and back; SUSPENDED -> SUSPENDED when another suspender is added
        # or one of several is removed.
        TokenStatus.ACTIVE: {TokenStatus.SUSPENDED, TokenStatus.DEACTIVATED},
        TokenStatus.SUSPENDED: {
            TokenStatus.ACTIVE,
            TokenStatus.SUSPENDED,
            TokenStatus.DEACTIVATED,
        },
        TokenStatus.DEACTIVATED: set(),
    },
    refusal=lambda current, target: ApplicationError(
        results.TOKEN_STATUS_NOT_ALLOWED,
        f"a token in status {current or '(new)'} cannot become {target}",
    ),
    history=TokenStatusChange,
    subject="token",
)


def token_reference() -> str:
    """A token unique reference: 64 characters, unguessable (256 bits of entropy)."""
    return "DTKN" + secrets.token_hex(30)


class Token(models.Model):
    tur = models.CharField(
        "tokenUniqueReference", primary_key=True, max_length=64, default=token_reference
    )
    merchant = models.ForeignKey(Merchant, on_delete=models.PROTECT, related_name="tokens")
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+")
    card_art = models.ForeignKey(CardArt, on_delete=models.PROTECT, related_name="tokens")
    status = models.CharField(max_length=12, choices=TokenStatus.choices)
    suspended_by = models.JSONField(default=list, blank=True)
    status_timestamp = models.DateTimeField()
    decision = models.CharField(max_length=40)
    brand = models.CharField(max_length=32)
    pan_ciphertext = models.TextField(editable=False)
    pan_fingerprint = models.CharField(max_length=64, db_index=True, editable=False)
    card_bin = models.CharField(max_length=6, help_text="The funding card's BIN.")
    card_last4 = models.CharField(max_length=4, help_text="The funding card's last four.")
    card_holder = models.CharField(max_length=128, blank=True)
    card_expiry_month = models.CharField(max_length=2)
    card_expiry_year = models.CharField(max_length=4)
    token_bin = models.CharField(max_length=6)
    token_pan_suffix = models.CharField(max_length=4)
    token_expiry = models.CharField(max_length=4, help_text="MMYY")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["merchant", "pan_fingerprint", "status"])]

    def __str__(self) -> str:
        return f"{self.brand} token …{self.token_pan_suffix} ({self.status})"
