"""Cards, their status history and lifecycle, their limits, and their scheme tokens' events."""

from django.db import models
from django.db.models import Q

from core.lifecycle import Lifecycle

from .customers import CardAccount, Customer
from .products import CardProduct
from .references import card_reference


class CardStatus(models.TextChoices):
    INACTIVE = "INACTIVE", "Inactive: issued, not yet activated"
    ACTIVE = "ACTIVE", "Active"
    SUSPENDED = "SUSPENDED", "Suspended (temporarily)"
    LOST = "LOST", "Reported lost"
    STOLEN = "STOLEN", "Reported stolen"
    EXPIRED = "EXPIRED", "Expired"
    CANCELLED = "CANCELLED", "Cancelled (final)"
    REPLACED = "REPLACED", "Replaced by another card (final)"


class CardForm(models.TextChoices):
    VIRTUAL = "VIRTUAL", "Virtual"
    PHYSICAL = "PHYSICAL", "Physical"


class SecureChannel(models.TextChoices):
    NONE = "", "Not registered"
    SMS = "SMS", "One-time password by SMS"
    EMAIL = "EMAIL", "One-time password by e-mail"
    APP = "APP", "Out of band, in the issuer's app"


class Card(models.Model):
    reference = models.CharField(
        max_length=32, default=card_reference, help_text="Unique per requestor (cardReference)."
    )
    product = models.ForeignKey(CardProduct, on_delete=models.PROTECT, related_name="cards")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="cards")
    account = models.ForeignKey(CardAccount, on_delete=models.PROTECT, related_name="cards")
    client_id = models.CharField(max_length=100, help_text="The requestor it belongs to.")
    pan_ciphertext = models.TextField(editable=False)
    pan_fingerprint = models.CharField(max_length=64, unique=True, editable=False)
    card_bin = models.CharField(max_length=8)
    last4 = models.CharField(max_length=4)
    expiry_month = models.PositiveSmallIntegerField()
    expiry_year = models.PositiveSmallIntegerField()
    embossed_name = models.CharField(max_length=26)
    form = models.CharField(max_length=8, choices=CardForm.choices)
    delivery_line1 = models.CharField(max_length=100, blank=True)
    delivery_line2 = models.CharField(max_length=100, blank=True)
    delivery_city = models.CharField(max_length=50, blank=True)
    delivery_postcode = models.CharField(max_length=16, blank=True)
    delivery_country = models.CharField(max_length=2, blank=True)
    status = models.CharField(
        max_length=10, choices=CardStatus.choices, default=CardStatus.INACTIVE
    )
    status_reason = models.CharField(max_length=32, blank=True)
    replaced_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replaces"
    )
    pin_hash = models.CharField(max_length=128, blank=True, editable=False)
    pin_failures = models.PositiveSmallIntegerField(default=0)
    secure_channel = models.CharField(
        max_length=8, choices=SecureChannel.choices, default="", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["client_id", "reference"], name="card_reference_unique"
            ),
            models.CheckConstraint(
                condition=Q(expiry_month__gte=1, expiry_month__lte=12), name="card_expiry_month"
            ),
            models.CheckConstraint(condition=Q(pin_failures__lte=3), name="card_pin_failures"),
            models.CheckConstraint(
                condition=~Q(form=CardForm.PHYSICAL)
                | (~Q(delivery_line1="") & ~Q(delivery_city="") & ~Q(delivery_country="")),
                name="card_physical_has_delivery_address",
            ),
        ]

    def __str__(self) -> str:
        return f"card {self.masked}, {self.get_status_display()}"

    @property
    def masked(self) -> str:
        return f"{self.card_bin[:6]}******{self.last4}"

    @property
    def expiry(self) -> str:
        """MM/YYYY"""
        return f"{self.expiry_month:02d}/{self.expiry_year}"

    @property
    def pin_blocked(self) -> bool:
        return self.pin_failures >= 3


class CardStatusChange(models.Model):
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="history")
    from_status = models.CharField(max_length=10, choices=CardStatus.choices, blank=True)
    to_status = models.CharField(max_length=10, choices=CardStatus.choices)
    reason = models.CharField(max_length=32, blank=True)
    changed_by = models.CharField(max_length=100, blank=True)
    ndc = models.CharField(max_length=64, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        # The row's title on the card's page; the reason has its own column there.
        return f"{self.get_from_status_display() or 'New'} → {self.get_to_status_display()}"


_FINAL = {CardStatus.CANCELLED, CardStatus.REPLACED}
_ENDINGS = {CardStatus.CANCELLED, CardStatus.REPLACED, CardStatus.EXPIRED}
CARD_LIFECYCLE = Lifecycle(
    "card",
    {
        CardStatus.INACTIVE: {CardStatus.ACTIVE, *_ENDINGS},
        CardStatus.ACTIVE: {CardStatus.SUSPENDED, CardStatus.LOST, CardStatus.STOLEN, *_ENDINGS},
        CardStatus.SUSPENDED: {CardStatus.ACTIVE, CardStatus.LOST, CardStatus.STOLEN, *_ENDINGS},
        CardStatus.LOST: {CardStatus.REPLACED, CardStatus.CANCELLED},
        CardStatus.STOLEN: {CardStatus.REPLACED, CardStatus.CANCELLED},
        CardStatus.EXPIRED: {CardStatus.REPLACED, CardStatus.CANCELLED},
        CardStatus.CANCELLED: set(),
        CardStatus.REPLACED: set(),
    },
    history=CardStatusChange,
    subject="card",
)


class Region(models.TextChoices):
    DOMESTIC = "DOMESTIC", "Domestic"
    OVERSEAS = "OVERSEAS", "Overseas"


class Channel(models.TextChoices):
    ECOMMERCE = "ECOMMERCE", "E-commerce"
    POS = "POS", "Point of sale"


class CardLimit(models.Model):
    """The card's limits for one region and channel; an empty value is no limit."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="limits")
    region = models.CharField(max_length=10, choices=Region.choices)
    channel = models.CharField(max_length=10, choices=Channel.choices)
    per_transaction = models.DecimalField(max_digits=16, decimal_places=3, null=True, blank=True)
    daily_amount = models.DecimalField(max_digits=16, decimal_places=3, null=True, blank=True)
    daily_count = models.PositiveIntegerField(null=True, blank=True)
    monthly_amount = models.DecimalField(max_digits=16, decimal_places=3, null=True, blank=True)
    monthly_count = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["card", "region", "channel"]
        constraints = [
            models.UniqueConstraint(fields=["card", "region", "channel"], name="card_limit_unique")
        ]

    def __str__(self) -> str:
        return f"{self.get_region_display()}, {self.get_channel_display()} limits"


class TokenEvent(models.Model):
    """What the Token group received or did for a scheme token of one of the issuer's cards:
    state notifications from the token service, metadata updates, key replenishments."""

    tur = models.CharField("tokenUniqueReference", max_length=64, db_index=True)
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="token_events")
    client_id = models.CharField(max_length=100)
    event = models.CharField(max_length=32)
    status = models.CharField(max_length=12, blank=True)
    reason = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.event} {self.tur[:12]}"
