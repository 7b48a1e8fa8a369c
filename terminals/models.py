"""POS terminals of a merchant, with their status and its history.

pos.terminalId is acquirer-assigned, unique across the acquirer and never changed. Terminal
status has the merchant's states and the same restriction (CLOSED or TERMINATED cannot return to
NORMAL; docs/decisions.md).
"""

from django.db import models
from django.db.models import Q

from core.status import OperatingStatus
from merchants.models import Merchant


class TerminalType(models.TextChoices):
    POS = "POS"
    MPOS = "mPOS"
    DIGITAL_QR = "DigitalQR"
    WEB = "WEB"


class PinEntryCapability(models.TextChoices):
    UNKNOWN = "0", "0 unknown"
    AVAILABLE = "1", "1 available"
    NOT_AVAILABLE = "2", "2 not available"
    MPOS_SOFTWARE = "3", "3 mPOS software-based PIN"
    PIN_PAD_DOWN = "8", "8 PIN pad not operative now"


# The terminal's registered data: what terminal/create sets and terminal/update may change.
TERMINAL_DATA_FIELDS: tuple[str, ...] = (
    "name",
    "device_id",
    "device_info",
    "terminal_type",
    "postcode",
    "pin_entry_capability",
    "digital_id",
    "acct_id",
)


class Terminal(models.Model):
    terminal_id = models.CharField("terminal ID", max_length=8, unique=True, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.PROTECT, related_name="terminals")
    name = models.CharField(max_length=32)
    device_id = models.CharField("device serial number", max_length=32)
    device_info = models.CharField("device model", max_length=32)
    terminal_type = models.CharField(max_length=32, blank=True, choices=TerminalType.choices)
    postcode = models.CharField(max_length=10, blank=True)
    pin_entry_capability = models.CharField(max_length=1, choices=PinEntryCapability.choices)
    digital_id = models.CharField(max_length=15, blank=True)
    acct_id = models.CharField("account id", max_length=15, blank=True)
    status = models.CharField(
        max_length=10, choices=OperatingStatus.choices, default=OperatingStatus.NORMAL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["terminal_id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=OperatingStatus.values), name="terminal_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.terminal_id} {self.name}"

    @property
    def can_transact(self) -> bool:
        return self.status == OperatingStatus.NORMAL and self.merchant.can_transact


class TerminalStatusChange(models.Model):
    """Append-only history of terminal.status."""

    terminal = models.ForeignKey(Terminal, on_delete=models.CASCADE, related_name="status_changes")
    from_status = models.CharField(max_length=10)
    to_status = models.CharField(max_length=10)
    changed_by = models.CharField(max_length=100)
    ndc = models.CharField("request ID", max_length=69, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.terminal_id}: {self.from_status or '-'} -> {self.to_status}"
