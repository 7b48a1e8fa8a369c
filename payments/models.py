"""Payments: one row per operation (PA, DB, CD, CV, CP, RV, RF, PR), referenced operations
pointing at their original.

Money invariants live beside the original row and change only under its row lock
(`payments.services`): `captured_amount` (sum of successful CPs, or the amount of a DB),
`refunded_amount` (sum of successful RF/PR), `reversed_amount`, and beside each the amount
reserved by operations whose network answer is still awaited (`capturing_amount`,
`refunding_amount`, `reversing_amount`). Check constraints are the last net: nothing captured,
reversed or refunded (with what is reserved) beyond the amount, nothing negative.

A payment's `state` says where its processing stands: IN_FLIGHT while the network is asked (the
row is committed before the call, so a retry finds it and a janitor resolves it if the answer
never comes), PENDING while the shopper authenticates (3-D Secure), DONE once answered.

Card data: the PAN only as AES-GCM ciphertext (`pan_ciphertext`, key id inside) and a keyed HMAC
fingerprint; BIN and last four in clear; the CVV is never stored.
"""

from decimal import Decimal

from django.db import models
from django.db.models import F, Q

from core.envelope import new_id
from core.lifecycle import Lifecycle
from merchants.models import Entity, Merchant
from terminals.models import Terminal


class PaymentType(models.TextChoices):
    """paymentType."""

    PA = "PA", "PA preauthorization"
    DB = "DB", "DB debit (authorization and capture)"
    CD = "CD", "CD credit"
    CV = "CV", "CV card verification"
    CP = "CP", "CP capture of a PA"
    RV = "RV", "RV reversal"
    RF = "RF", "RF refund"
    PR = "PR", "PR POS refund"


def payment_type_name(code: str, *, full: bool = False) -> str:
    """What a person calls a paymentType: DB -> "debit" ("debit (authorization and capture)"
    with `full`); the code itself when it is none of ours."""
    try:
        label = str(PaymentType(code).label)
    except ValueError:
        return code
    name = label.split(" ", 1)[1]
    return name if full else name.split(" (", 1)[0]


REFERENCED_TYPES = frozenset({PaymentType.CP, PaymentType.RV, PaymentType.RF, PaymentType.PR})


class TransactionSource(models.TextChoices):
    """transactionSource of a reversal."""

    CARDHOLDER = "CARDHOLDER", "Cardholder (usually a void)"
    ERROR = "ERROR", "Original failed"
    PARTIAL = "PARTIAL", "Partial reversal"
    SUSPECT = "SUSPECT", "Suspected fraud"
    TIMEOUT = "TIMEOUT", "Original response arrived late"


ZERO = Decimal("0.00")


class PaymentState(models.TextChoices):
    """Where a payment's processing stands (not its outcome: that is its result code)."""

    IN_FLIGHT = "IN_FLIGHT", "In flight: the network is being asked"
    PENDING = "PENDING", "Pending: waiting for the shopper (3-D Secure)"
    DONE = "DONE", "Done: answered"


PAYMENT_STATE = Lifecycle(
    "payment processing",
    {
        PaymentState.PENDING: {PaymentState.IN_FLIGHT, PaymentState.DONE},
        # Claimed, then answered, or sent to the shopper for 3-D Secure.
        PaymentState.IN_FLIGHT: {PaymentState.DONE, PaymentState.PENDING},
        PaymentState.DONE: set(),
    },
    field="state",
)


class Payment(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.PROTECT, related_name="payments")
    terminal = models.ForeignKey(
        Terminal, null=True, blank=True, on_delete=models.PROTECT, related_name="payments"
    )
    entity = models.ForeignKey(
        Entity,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The entity the request acted as.",
    )
    entity_type = models.CharField(max_length=16)
    payment_type = models.CharField(max_length=2, choices=PaymentType.choices)
    merchant_transaction_id = models.CharField("merchant transaction ID", max_length=32)
    request_hash = models.CharField(max_length=64)
    referenced = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )

    amount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    tax_amount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    payment_brand = models.CharField(max_length=32, blank=True)

    state = models.CharField(max_length=10, choices=PaymentState.choices, default=PaymentState.DONE)
    in_flight_since = models.DateTimeField(
        null=True, blank=True, help_text="When the network was asked (while IN_FLIGHT)."
    )
    result_code = models.CharField(max_length=11, db_index=True)
    result_description = models.CharField(max_length=255)
    successful = models.BooleanField(default=False)

    card_bin = models.CharField(max_length=6, blank=True)
    card_last4 = models.CharField(max_length=4, blank=True, db_index=True)
    card_holder = models.CharField(max_length=128, blank=True)
    card_expiry_month = models.CharField(max_length=2, blank=True)
    card_expiry_year = models.CharField(max_length=4, blank=True)
    pan_ciphertext = models.TextField(blank=True, editable=False)
    pan_fingerprint = models.CharField(max_length=64, blank=True, db_index=True, editable=False)

    auth_code = models.CharField(max_length=6, blank=True)
    acquirer_response = models.CharField(max_length=16, blank=True)
    avs_response = models.CharField(max_length=1, blank=True)
    cvv_response = models.CharField(max_length=1, blank=True)
    mac_response = models.CharField(max_length=2, blank=True)
    stan = models.CharField("STAN", max_length=6, blank=True)
    retrieval_ref_no = models.CharField(max_length=12, blank=True)
    acquirer_ref_no = models.CharField("ARN", max_length=23, blank=True)
    entry_mode = models.CharField(max_length=2, blank=True)
    condition_code = models.CharField(max_length=2, blank=True)

    captured_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)
    refunded_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)
    reversed_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)
    # Reserved by operations in flight against this payment (moved to the totals above when the
    # network approves, released when it declines).
    capturing_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)
    refunding_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)
    reversing_amount = models.DecimalField(max_digits=12, decimal_places=2, default=ZERO)

    validity_period_ms = models.PositiveIntegerField("validity period (ms)", null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="Closed by the validityPeriod task."
    )

    transaction_source = models.CharField(max_length=32, blank=True)
    transaction_category = models.CharField(max_length=2, blank=True)
    descriptor = models.CharField(max_length=127, blank=True)
    merchant_invoice_id = models.CharField("merchant invoice ID", max_length=255, blank=True)
    merchant_memo = models.CharField(max_length=255, blank=True)
    checkout_type = models.CharField(max_length=10, blank=True)
    risk_score = models.CharField(max_length=32, blank=True)
    risk_decision = models.CharField(max_length=32, blank=True)
    test_mode = models.BooleanField(
        "connector test mode",
        default=False,
        help_text="Made while its merchant was in test mode: kept out of production settlement.",
    )
    network_reference = models.CharField(
        max_length=64, blank=True, help_text="The network's reference (additionalData.RequestId)."
    )
    clearing_institute = models.CharField(
        max_length=64,
        blank=True,
        help_text="Who took it (resultDetails.clearingInstituteName): the network, or the "
        "platform's own issuer for an on-us card.",
    )
    threeds_started = models.BooleanField(
        "3-D Secure by us",
        default=False,
        help_text="A 3-D Secure authentication of this platform was started for it.",
    )

    registration = models.ForeignKey(
        "payments.Registration",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payments",
        help_text="The stored card it paid with, or the one it stored (createRegistration).",
    )
    scheme_token = models.ForeignKey(
        "tokenization.Token",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payments",
        help_text="The scheme token it paid with (card.token).",
    )
    standing_instruction = models.ForeignKey(
        "payments.StandingInstruction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payments",
        help_text="The chain of a merchant-initiated payment (its initialTransactionId).",
    )

    data = models.JSONField(
        default=dict,
        blank=True,
        help_text="The request's data groups (customer, billing, cart, ...).",
    )
    response_body = models.JSONField(default=dict, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        # Acting on a payment from the admin (payments.backoffice): who may press which button.
        permissions = [
            ("capture_payment", "Can capture a preauthorization from the admin"),
            ("reverse_payment", "Can reverse (void) a payment from the admin"),
            ("refund_payment", "Can refund a payment from the admin"),
        ]
        indexes = [
            models.Index(fields=["merchant", "-created_at"]),
            # What staff search a payment by (payments.selectors.payments_found): exact matches.
            # Plain b-trees: no LIKE index beside each (as db_index would add on PostgreSQL).
            models.Index(fields=["merchant_transaction_id"], name="payment_mtid"),
            models.Index(fields=["acquirer_ref_no"], name="payment_arn"),
            models.Index(fields=["retrieval_ref_no"], name="payment_rrn"),
            models.Index(fields=["stan"], name="payment_stan"),
            models.Index(fields=["auth_code"], name="payment_auth_code"),
            models.Index(
                fields=["expires_at"],
                condition=Q(closed_at__isnull=True, payment_type="PA"),
                name="payment_open_pa_expiry",
            ),
            models.Index(
                fields=["in_flight_since"],
                condition=Q(state="IN_FLIGHT"),
                name="payment_in_flight",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "merchant_transaction_id"],
                name="payment_unique_mtid_per_merchant",
            ),
            models.CheckConstraint(
                condition=Q(
                    captured_amount__gte=0,
                    refunded_amount__gte=0,
                    reversed_amount__gte=0,
                    capturing_amount__gte=0,
                    refunding_amount__gte=0,
                    reversing_amount__gte=0,
                ),
                name="payment_totals_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(amount__isnull=True)
                | Q(
                    captured_amount__lte=F("amount") - F("capturing_amount"),
                    reversed_amount__lte=F("amount") - F("reversing_amount"),
                ),
                name="payment_captured_reversed_within_amount",
            ),
            models.CheckConstraint(
                condition=Q(refunded_amount__lte=F("captured_amount") - F("refunding_amount")),
                name="payment_refunded_within_captured",
            ),
            models.CheckConstraint(
                condition=Q(state="IN_FLIGHT", in_flight_since__isnull=False)
                | ~Q(state="IN_FLIGHT"),
                name="payment_in_flight_since",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.payment_type} {self.id}"

    @property
    def capturable(self) -> Decimal:
        """What a CP may still take: the PA amount less captures and reversals, done or in
        flight."""
        if self.amount is None:
            return ZERO
        return (
            self.amount
            - self.captured_amount
            - self.capturing_amount
            - self.reversed_amount
            - self.reversing_amount
        )

    @property
    def captured_so_far(self) -> Decimal | None:
        """A successful PA's captured amount (its inquiry answers it); None for anything else."""
        return self.captured_amount if self._answers_captures else None

    @property
    def left_to_capture(self) -> Decimal | None:
        """What a capture may still take of a successful PA, in flight ones counted (0 once it
        is closed); None for anything else."""
        if not self._answers_captures:
            return None
        return ZERO if self.closed_at is not None else max(self.capturable, ZERO)

    @property
    def _answers_captures(self) -> bool:
        return self.payment_type == PaymentType.PA and bool(self.successful)

    @property
    def refundable(self) -> Decimal:
        """What a refund may still take: captured less refunded, done or in flight."""
        return self.captured_amount - self.refunded_amount - self.refunding_amount

    @property
    def timeout_reversal_id(self) -> str | None:
        """The reversal (transactionSource TIMEOUT) of a payment that answers 900.100.301: no
        answer from the network in time, reversed. None for any other payment (no query)."""
        if self.result_code != "900.100.301":
            return None
        reversals = self.children.filter(
            payment_type=PaymentType.RV, transaction_source=TransactionSource.TIMEOUT
        )
        return reversals.order_by("-created_at").values_list("pk", flat=True).first()

    @property
    def reversible(self) -> Decimal:
        """What a reversal may still take: the amount less reversals, done or in flight."""
        return (self.amount or ZERO) - self.reversed_amount - self.reversing_amount


class TraceCounter(models.Model):
    """The acquirer's system trace audit numbers (STAN, field 11) where the database has no
    sequences (SQLite): one row a day (`stan_YYYYMMDD`), moved on by one UPDATE a number.
    PostgreSQL draws them from the day's sequence `payments_stan_YYYYMMDD` instead
    (payments/services/trace.py)."""

    name = models.CharField(primary_key=True, max_length=16)
    value = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.name} {self.value}"


class ReversalAdvice(models.Model):
    """A 0420 reversal advice the acquirer owes the network: the reversal (an RV with
    transactionSource TIMEOUT) is final here when it is recorded, and the network is told until
    it acknowledges (0430). A row, not memory: any worker sends it, after any restart
    (payments/services/advices.py; beat every `PAYMENTS_ADVICE_SWEEP_SECONDS`)."""

    class State(models.TextChoices):
        OWED = "OWED"
        ACKNOWLEDGED = "ACKNOWLEDGED"

    reversal = models.OneToOneField(
        Payment, primary_key=True, on_delete=models.PROTECT, related_name="advice"
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.OWED)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # While a sender has it (sending, up to the connector's timeout): nobody else takes it.
    leased_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=255, blank=True)
    response_code = models.CharField(max_length=2, blank=True)  # field 39 of the 0430
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="payments_advice_owed",
                condition=Q(state="OWED"),
            )
        ]

    def __str__(self) -> str:
        return f"reversal advice {self.reversal_id} {self.state}"


from .backoffice.models import PaymentAction  # noqa: E402, F401
from .checkouts.models import Checkout  # noqa: E402, F401
from .registrations.models import Registration, StandingInstruction  # noqa: E402, F401
from .threeds.models import FINAL_STATES, ThreeDSAuthentication, ThreeDSState  # noqa: E402, F401
