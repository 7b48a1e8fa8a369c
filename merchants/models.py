"""Entities (who may call the API), merchants, their status history and 3DS enrolment.

An `Entity` is the caller of the API: a PARTICIPATOR (a bank or channel) or a MERCHANT. POS is not
stored: it is a merchant's entity acting through one of its terminals. Each entity has one bearer
token, kept as a SHA-256 hash (look-up), its last four characters (display) and a vault-encrypted
copy (only to place it in outbound notification headers). After a rotation with an overlap, the
previous token's hash and last four are kept with the moment it stops working (at most 24 hours
later): it authenticates until then, and notifications already carry the new one. Every rotation
is an `EntityTokenChange` row. A merchant is owned by the participator that created it; nothing of
it is reachable through another participator.

A `PortalUser` binds a Django user to exactly one merchant (the merchant portal); bank staff
create, deactivate and reset them (`merchants.services.portal_user_*`), each change a
`PortalUserChange` row.
"""

from datetime import datetime, timedelta

from django.db import models
from django.db.models import Q

from core.envelope import new_id
from core.status import OperatingStatus


class EntityType(models.TextChoices):
    PARTICIPATOR = "PARTICIPATOR", "Participator (bank or channel)"
    MERCHANT = "MERCHANT", "Merchant"
    POS = "POS", "POS (a merchant acting through a terminal)"


class Entity(models.Model):
    entity_id = models.CharField("entityId", max_length=8, unique=True)
    entity_type = models.CharField(
        "entityType",
        max_length=16,
        choices=[
            (EntityType.PARTICIPATOR, EntityType.PARTICIPATOR.label),
            (EntityType.MERCHANT, EntityType.MERCHANT.label),
        ],
    )
    name = models.CharField(max_length=100, blank=True)
    owner = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="owned_entities",
        help_text="The participator a merchant entity belongs to.",
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    token_last4 = models.CharField("token (last 4)", max_length=4, editable=False)
    token_ciphertext = models.TextField(editable=False)
    token_rotated_at = models.DateTimeField(editable=False)
    # The token replaced by the last rotation, while its overlap lasts (else blank): accepted by
    # the bearer authentication until `previous_token_ends_at`, never used for notifications.
    previous_token_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    previous_token_last4 = models.CharField(
        "previous token (last 4)", max_length=4, blank=True, editable=False
    )
    previous_token_ends_at = models.DateTimeField(
        "previous token works until", null=True, blank=True, editable=False
    )
    is_active = models.BooleanField(default=True)
    test_mode = models.BooleanField(
        "connector test mode",
        default=False,
        help_text="A participator in test mode: its merchants' approvals answer 000.100.112 and "
        "stay out of production settlement and daily files.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "entities"
        ordering = ["entity_id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(entity_type="PARTICIPATOR", owner__isnull=True)
                | Q(entity_type="MERCHANT"),
                name="entity_participator_has_no_owner",
            ),
            models.CheckConstraint(
                condition=Q(previous_token_hash="", previous_token_ends_at__isnull=True)
                | (~Q(previous_token_hash="") & Q(previous_token_ends_at__isnull=False)),
                name="entity_previous_token_has_an_end",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entity_id} ({self.entity_type})"

    def previous_token_live(self, now: datetime) -> bool:
        """Whether the token replaced by the last rotation still authenticates at `now`."""
        return self.previous_token_ends_at is not None and now < self.previous_token_ends_at


class EntityTokenChange(models.Model):
    """Append-only history of an entity's bearer token: every rotation (a random token, or one
    the merchant's administrator set), when the token it replaced stops working, and who did it.

    `old_token_ends_at` equal to `changed_at` means the old token stopped at once; later, that it
    kept working until then (the overlap). A rotation during an overlap ends the token of the
    earlier overlap at once (`cut_short_last4`). `merchant` is set for a merchant's entity, so
    the history shows on the merchant's page too."""

    class Kind(models.TextChoices):
        ROTATED = "ROTATED", "Rotated (a new random token)"
        SET = "SET", "Set (a token of the administrator's choosing)"
        ENDED = "ENDED", "Previous token ended early"

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="token_changes")
    merchant = models.ForeignKey(
        "Merchant", null=True, blank=True, on_delete=models.CASCADE, related_name="token_changes"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    old_last4 = models.CharField("old token (last 4)", max_length=4)
    new_last4 = models.CharField("new token (last 4)", max_length=4, blank=True)
    old_token_ends_at = models.DateTimeField("old token works until")
    cut_short_last4 = models.CharField(
        "earlier token ended (last 4)",
        max_length=4,
        blank=True,
        help_text="A token still in its overlap from an earlier rotation, ended by this one.",
    )
    changed_by = models.CharField(
        max_length=100, help_text="staff:<username>, portal:<username> or a command"
    )
    changed_at = models.DateTimeField()

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.entity.entity_id}: …{self.old_last4} -> …{self.new_last4 or '-'}"

    @property
    def overlap(self) -> timedelta:
        return self.old_token_ends_at - self.changed_at


class SecurityStatus(models.TextChoices):
    """merchant.securityStatus: informational, does not affect transactions."""

    SUSPECTED = "SUSPECTED", "Suspected: fraud detected"
    IDVERIFIED = "IDVERIFIED", "ID verified"


class ThreeDSStatus(models.TextChoices):
    """Enrolment in the card network 3DS2 programme."""

    NOT_ENROLLED = "NOT_ENROLLED", "Not enrolled"
    ENROLLED = "ENROLLED", "Enrolled"
    DELETED = "DELETED", "Deleted from the programme"


class ThreeDSDeleteReason(models.TextChoices):
    DATA_ENTRY_ERROR = "Data Entry Error"
    NO_LONGER_PARTICIPATING = "Merchant No Longer Participating"
    ACQUIRER_REFERENCE_ID_CHANGE = "Acquirer Reference ID Change"
    ACQUIRER_PRIMARY_ICA_CHANGE = "Acquirer Primary ICA Change"
    OTHER = "Other"


class ThreeDSMode(models.TextChoices):
    """Whether the merchant's payments must go through 3-D Secure."""

    OPTIONAL = "OPTIONAL", "Optional: when the request asks (threeDSecure.indicator)"
    MANDATORY = "MANDATORY", "Mandatory: every card payment (the indicator is ignored)"


# The merchant's registered data: what merchant/create sets and merchant/update may change (the
# rows of merchants.fields.MERCHANT_FIELDS name these attributes; a test keeps them equal).
MERCHANT_DATA_FIELDS = (
    "name",
    "business",
    "website",
    "street",
    "postcode",
    "city",
    "state",
    "country",
    "phone",
    "mmcc",
    "vmcc",
    "pf_id",
    "iso_id",
    "submerchant_id",
    "pf_abbv",
    "national_tax_identification_number",
    "location_street_address1",
    *(f"mcc{i}" for i in range(2, 11)),
    "aggregator_id",
    "aggregator_name",
    "aggregator_type",
    "aggregator_abbv",
    "corporate_status",
    "corporate_name",
    "date_designed",
    "mvv_id",
    "notification_url",
    "bank_account_holder",
    "bank_account_number",
    "bank_account_bic",
    "bank_account_country",
    "settlement_currency",
)


class Merchant(models.Model):
    merchant_id = models.CharField("merchant ID", max_length=15, unique=True, editable=False)
    entity = models.OneToOneField(Entity, on_delete=models.PROTECT, related_name="merchant")
    participator = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="merchants")

    name = models.CharField(max_length=100)
    business = models.CharField("business name (on statements)", max_length=22)
    website = models.CharField("website", max_length=100, blank=True)
    street = models.CharField("street", max_length=100)
    postcode = models.CharField("postcode", max_length=10)
    city = models.CharField("city", max_length=50)
    state = models.CharField("state or region", max_length=50)
    country = models.CharField("country", max_length=2)
    phone = models.CharField("phone", max_length=25)
    mmcc = models.CharField("MCC (first network)", max_length=4)
    vmcc = models.CharField("MCC (second network)", max_length=4)
    pf_id = models.CharField("payment facilitator ID", max_length=11)
    iso_id = models.CharField("ISO ID", max_length=8, blank=True)
    submerchant_id = models.CharField("sub-merchant ID", max_length=15, blank=True)
    pf_abbv = models.CharField("payment facilitator abbreviation", max_length=7, blank=True)
    national_tax_identification_number = models.CharField(
        "national tax identification number", max_length=14, blank=True
    )
    location_street_address1 = models.CharField(
        "location street address", max_length=60, blank=True
    )
    mcc2 = models.CharField("MCC 2", max_length=4, blank=True)
    mcc3 = models.CharField("MCC 3", max_length=4, blank=True)
    mcc4 = models.CharField("MCC 4", max_length=4, blank=True)
    mcc5 = models.CharField("MCC 5", max_length=4, blank=True)
    mcc6 = models.CharField("MCC 6", max_length=4, blank=True)
    mcc7 = models.CharField("MCC 7", max_length=4, blank=True)
    mcc8 = models.CharField("MCC 8", max_length=4, blank=True)
    mcc9 = models.CharField("MCC 9", max_length=4, blank=True)
    mcc10 = models.CharField("MCC 10", max_length=4, blank=True)
    aggregator_id = models.CharField("aggregator ID", max_length=8, blank=True)
    aggregator_name = models.CharField("aggregator name", max_length=25, blank=True)
    aggregator_type = models.CharField("aggregator type", max_length=1, blank=True)
    aggregator_abbv = models.CharField("aggregator abbreviation", max_length=7, blank=True)
    corporate_status = models.CharField("corporate status", max_length=1)
    corporate_name = models.CharField("corporate name", max_length=100, blank=True)
    date_designed = models.DateField(
        "date designed",
    )
    mvv_id = models.CharField("MVV ID", max_length=10, blank=True)
    # Settlement: where the bank pays the merchant, and in which currency.
    bank_account_holder = models.CharField("account holder", max_length=128, blank=True)
    bank_account_number = models.CharField(
        "IBAN or account number",
        max_length=64,
        blank=True,
        help_text="IBAN for SEPA countries, without spaces.",
    )
    bank_account_bic = models.CharField("BIC", max_length=11, blank=True)
    bank_account_country = models.CharField("account country", max_length=2, blank=True)
    settlement_currency = models.CharField("settlement currency", max_length=3, blank=True)
    notification_url = models.URLField(
        "notification URL",
        max_length=2048,
        blank=True,
        help_text="Where token status notifications are posted (HTTPS).",
    )

    status = models.CharField(
        max_length=10, choices=OperatingStatus.choices, default=OperatingStatus.NORMAL
    )
    security_status = models.CharField(
        "security status", max_length=10, choices=SecurityStatus.choices, blank=True
    )
    threeds_status = models.CharField(
        "3-D Secure enrolment",
        max_length=12,
        choices=ThreeDSStatus.choices,
        default=ThreeDSStatus.NOT_ENROLLED,
    )
    threeds_mode = models.CharField(
        "3-D Secure authentication",
        max_length=10,
        choices=ThreeDSMode.choices,
        default=ThreeDSMode.OPTIONAL,
    )
    threeds_enrolled_at = models.DateTimeField("3-D Secure enrolled at", null=True, blank=True)
    threeds_deleted_at = models.DateTimeField(
        "3-D Secure enrolment deleted at", null=True, blank=True
    )
    threeds_delete_reason = models.CharField(
        "3-D Secure deletion reason", max_length=40, blank=True, choices=ThreeDSDeleteReason.choices
    )
    test_mode = models.BooleanField(
        "connector test mode",
        default=False,
        help_text="Approvals answer 000.100.112 and the payments stay out of production "
        "settlement and daily files.",
    )
    # The participator's test mode, copied here when it changes (merchants.services), so a
    # payment reads it from the merchant's row without a join.
    participator_test_mode = models.BooleanField(default=False, editable=False)
    # The event types at least one active webhook of the merchant takes (merchants.webhooks
    # keeps it): a payment of a merchant without webhooks looks nothing up.
    webhook_events = models.JSONField(default=list, blank=True, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["merchant_id"]
        indexes = [models.Index(fields=["participator", "merchant_id"])]
        permissions = [
            (
                "change_settlement_account",
                "Can change a merchant's settlement account and notification URL",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=OperatingStatus.values), name="merchant_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(aggregator_id="") | ~Q(aggregator_name=""),
                name="merchant_aggregator_name_with_id",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.name}"

    @property
    def can_transact(self) -> bool:
        return self.status == OperatingStatus.NORMAL

    @property
    def in_test_mode(self) -> bool:
        """The merchant's own test mode, or its participator's."""
        return self.test_mode or self.participator_test_mode

    @property
    def mccs(self) -> list[str]:
        extra = [getattr(self, f"mcc{i}") for i in range(2, 11)]
        return [self.mmcc, self.vmcc, *[m for m in extra if m]]


class AmountLimit(models.Model):
    """The most one payment (PA, DB, CD) may be for, in one currency: for one merchant, or for
    every merchant when `merchant` is empty (the platform's limit). Where both exist the lower
    applies; a currency without either has no limit of the platform's (the card's limits and the
    network still apply). Bank staff keep them in the admin (a merchant's on its page, the
    platform's under Merchants > Platform amount limits); a payment above one is refused with
    100.550.312 before the network is asked (docs/api.md, "Amount limits")."""

    merchant = models.ForeignKey(
        Merchant,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="amount_limits",
        help_text="Empty: the platform's limit, for every merchant.",
    )
    currency = models.CharField(max_length=3, help_text="ISO 4217 alphabetic code")
    max_amount = models.DecimalField(
        "maximum per payment", max_digits=12, decimal_places=2, help_text="In the currency."
    )
    changed_by = models.CharField(max_length=100, blank=True, editable=False)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["currency"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "currency"],
                condition=Q(merchant__isnull=False),
                name="amount_limit_one_per_merchant_currency",
            ),
            models.UniqueConstraint(
                fields=["currency"],
                condition=Q(merchant__isnull=True),
                name="amount_limit_one_per_platform_currency",
            ),
            models.CheckConstraint(condition=Q(max_amount__gt=0), name="amount_limit_positive"),
        ]

    def __str__(self) -> str:
        whose = self.merchant.merchant_id if self.merchant_id else "platform"  # type: ignore[union-attr]
        return f"{whose}: at most {self.max_amount} {self.currency}"


class PlatformAmountLimit(AmountLimit):
    """The platform's rows of AmountLimit (merchant empty), as bank staff see them."""

    class Meta:
        proxy = True
        verbose_name = "platform amount limit"


class MerchantStatusChange(models.Model):
    """Append-only history of merchant.status and merchant.securityStatus."""

    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="status_changes")
    from_status = models.CharField(max_length=10)
    to_status = models.CharField(max_length=10)
    from_security_status = models.CharField(max_length=10, blank=True)
    to_security_status = models.CharField(max_length=10, blank=True)
    changed_by = models.CharField(max_length=100, help_text="entity:<entityId> or staff:<username>")
    ndc = models.CharField("request ID", max_length=69, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.merchant_id}: {self.from_status or '-'} -> {self.to_status}"


class MerchantDataChange(models.Model):
    """Append-only history of a merchant's registered data: each changed field, what it was and
    what it became, who changed it and when (the settlement account's number masked: its last
    four characters)."""

    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="data_changes")
    field = models.CharField(max_length=64)
    old_value = models.CharField(max_length=255, blank=True)
    new_value = models.CharField(max_length=255, blank=True)
    changed_by = models.CharField(
        max_length=160, help_text="staff:<username>, entity:<entityId> or portal:<username>"
    )
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.merchant_id}: {self.field}"


class ThreeDSEnrolmentEvent(models.Model):
    """Append-only history of 3DS enrolments and deletions."""

    class Action(models.TextChoices):
        ENROL = "ENROL"
        DELETE = "DELETE"

    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="threeds_events")
    action = models.CharField(max_length=6, choices=Action.choices)
    reason = models.CharField(max_length=40, blank=True)
    changed_by = models.CharField(max_length=100)
    ndc = models.CharField("request ID", max_length=69, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.merchant_id}: 3DS {self.action}"


class PortalUser(models.Model):
    """A merchant's portal user: a Django user bound to one merchant (for the merchant portal).
    Its role says what it may do there: an administrator everything (the API token and webhooks
    included), an operator also capture, reverse and refund, a viewer read. Bank staff set it.

    The user is never staff, and belongs to this merchant only (one row per user). Deactivating
    sets the user's `is_active` to False: the sign-in and every open session are refused.
    `must_change_password` is set when bank staff issue a one-time password: the portal then
    shows only the password page until the user has chosen a new one."""

    class Role(models.TextChoices):
        ADMINISTRATOR = "ADMINISTRATOR", "Administrator (everything, the API token too)"
        OPERATOR = "OPERATOR", "Operator (capture, reverse, refund)"
        VIEWER = "VIEWER", "Viewer (reads only)"

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="portal")
    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="portal_users")
    role = models.CharField(max_length=13, choices=Role.choices, default=Role.ADMINISTRATOR)
    must_change_password = models.BooleanField(
        default=False,
        help_text="Signed in with a one-time password: the portal asks for a new one first.",
    )
    created_at = models.DateTimeField(auto_now_add=True, null=True)

    class Meta:
        ordering = ["user__username"]

    def __str__(self) -> str:
        return f"{self.user} @ {self.merchant.merchant_id}"


class PortalUserChange(models.Model):
    """Append-only history of a merchant's portal users: who created, deactivated, re-activated
    them or reset their password, and when (the password itself is never kept here)."""

    class Action(models.TextChoices):
        CREATED = "CREATED", "Created"
        DEACTIVATED = "DEACTIVATED", "Deactivated"
        ACTIVATED = "ACTIVATED", "Re-activated"
        PASSWORD_RESET = "PASSWORD_RESET", "Password reset (one-time password issued)"
        ROLE_CHANGED = "ROLE_CHANGED", "Role changed"

    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="portal_user_changes"
    )
    username = models.CharField(max_length=150)
    action = models.CharField(max_length=16, choices=Action.choices)
    detail = models.CharField(max_length=100, blank=True, help_text="A role change: from and to.")
    changed_by = models.CharField(max_length=100, help_text="staff:<username> or a command")
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.merchant_id}: {self.username} {self.action}"


class Webhook(models.Model):
    """Where a merchant is told what happened to its payments, registrations and chargebacks
    (merchants/webhooks.py): a URL of its own, the event types it takes, and a 32-byte secret
    (vault ciphertext) that encrypts and authenticates every delivery (AES-256-GCM), named by
    `key_id` in each delivery's `X-Webhook-Key-Id`."""

    class Event(models.TextChoices):
        PAYMENT = "PAYMENT", "Payments (final outcomes)"
        REGISTRATION = "REGISTRATION", "Stored cards (created, deleted)"
        CHARGEBACK = "CHARGEBACK", "Chargebacks"

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField("URL", max_length=2048)
    events = models.JSONField(default=list)
    secret_ciphertext = models.TextField(editable=False)
    key_id = models.CharField(max_length=16, editable=False)
    previous_key_id = models.CharField(max_length=16, blank=True, editable=False)
    rotated_at = models.DateTimeField(null=True, blank=True, editable=False)
    active = models.BooleanField(default=True)
    created_by = models.CharField(max_length=160)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.merchant_id}: {self.url}"
