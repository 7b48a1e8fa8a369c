"""Card products, BIN ranges, customers, accounts, cards, limits and the issuer's transaction
log (imported by issuer.models).

- `CardProduct` holds the catalogue's letter for every operation as data (`ProductOperation`):
  M runs, O runs unless the product switches it off, C runs only when the product's
  configuration switches it on, NA never runs (docs/decisions.md, "Issuer catalogue").
- A `Card` is issued in one of its product's `BinRange`s; its number is in the vault
  (`pan_ciphertext`), found by its keyed fingerprint, shown only masked. CVV2 and dCVV are
  computed (issuer.cards.secrets), never stored; the PIN only as a salted slow hash.
- A prepaid card pays from its own e-money account, a debit card from the bank account linked by
  AccountLinkage; both are `CardAccount`s over a ledger account (issuer.ledger).
- `CardTransaction` is the issuer's log of every money operation and authorization: it keeps
  the requestor's reference with the request's hash and the stored answer (idempotency), the
  journal or hold it made, and what the limits count.
"""

import re

from django.db import models
from django.db.models import Q

from core.display import money
from core.envelope import new_id
from core.lifecycle import Lifecycle

from ..ledger.models import Hold, Journal, LedgerAccount

# Twelve digits in a row could be taken for a card number (the API refuses one in any reference
# field): a reference never has them, so none the issuer gives is ever refused when sent back.
_CARD_LIKE_DIGITS = re.compile(r"[0-9]{12}")


def reference(prefix: str) -> str:
    """`prefix_` and 24 hex digits, drawn again (about 1 in 250 draws) while twelve of them in a
    row are decimal digits."""
    while True:
        made = f"{prefix}_{new_id()[:24]}"
        if not _CARD_LIKE_DIGITS.search(made):
            return made


def card_reference() -> str:
    return reference("crd")


def customer_reference() -> str:
    return reference("cus")


def account_reference() -> str:
    return reference("acc")


def transaction_reference() -> str:
    return reference("txn")


class ProductKind(models.TextChoices):
    PREPAID = "prepaid", "Prepaid"
    DEBIT = "debit", "Debit"


class Letter(models.TextChoices):
    M = "M", "M: mandatory (always runs)"
    O = "O", "O: optional (runs unless switched off)"  # noqa: E741 - the specification's letter
    C = "C", "C: conditional (runs when the product's configuration allows it)"
    NA = "NA", "NA: not applicable (never runs)"


class CardProduct(models.Model):
    code = models.CharField(max_length=32, unique=True, help_text="e.g. PREPAID-EUR")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=ProductKind.choices)
    brand = models.CharField(max_length=16, default="VISA")
    currency = models.CharField(max_length=3)
    card_years = models.PositiveSmallIntegerField(default=3, help_text="Validity of a new card.")
    max_balance = models.DecimalField(
        max_digits=16,
        decimal_places=3,
        null=True,
        blank=True,
        help_text="Prepaid: the most its account may hold (empty: no maximum).",
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.code} ({self.get_kind_display()})"


class ProductOperation(models.Model):
    """A catalogue operation's letter for a product, and whether the product offers it."""

    product = models.ForeignKey(CardProduct, on_delete=models.CASCADE, related_name="operations")
    operation = models.CharField(max_length=64, help_text="group/Operation")
    letter = models.CharField(max_length=2, choices=Letter.choices)
    enabled = models.BooleanField(
        default=True,
        help_text="O: offered unless unticked. C: runs only when ticked. M always, NA never.",
    )

    class Meta:
        ordering = ["product", "operation"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "operation"], name="product_operation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.operation} {self.letter}"


class BinRange(models.Model):
    """A BIN (6 or 8 digits) the issuer owns; cards of `product` are numbered in it."""

    bin = models.CharField("BIN", max_length=8, unique=True)
    pan_length = models.PositiveSmallIntegerField("PAN length", default=16)
    product = models.ForeignKey(CardProduct, on_delete=models.PROTECT, related_name="bin_ranges")
    active = models.BooleanField(default=True)

    class Meta:
        verbose_name = "BIN range"
        constraints = [
            models.CheckConstraint(
                condition=Q(pan_length__gte=12, pan_length__lte=19), name="bin_pan_length"
            )
        ]

    def __str__(self) -> str:
        return f"{self.bin} ({self.product.code})"


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
