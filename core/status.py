"""The operating status of a merchant or a terminal, and its state machine.

NORMAL may transact; BLOCKED stops it for a while; CLOSED (by the bank) and TERMINATED
(voluntarily) end it. Any status may be set again, except NORMAL from CLOSED or TERMINATED
(spec "Errors" 3 for merchants; terminals follow the same rule, docs/decisions.md). Setting the
current status again is allowed and recorded.
"""

from collections.abc import Callable

from django.db import models
from django.db.models import Model

from .lifecycle import Lifecycle


class OperatingStatus(models.TextChoices):
    """merchant.status / terminal.status."""

    NORMAL = "NORMAL", "Normal: may transact"
    CLOSED = "CLOSED", "Closed by the bank"
    BLOCKED = "BLOCKED", "Blocked: temporarily stopped"
    TERMINATED = "TERMINATED", "Terminated: voluntarily closed"


ALL = frozenset(OperatingStatus.values)
ENDED = frozenset({OperatingStatus.CLOSED, OperatingStatus.TERMINATED})

OPERATING_TRANSITIONS: dict[str, frozenset[str]] = {
    state: ALL - {OperatingStatus.NORMAL} if state in ENDED else ALL for state in ALL
}


def operating_lifecycle(
    name: str, *, refusal: Callable[[str, str], Exception], history: type[Model], subject: str
) -> Lifecycle:
    """The operating-status machine of one kind of object, with its refusal and history."""
    return Lifecycle(name, OPERATING_TRANSITIONS, refusal=refusal, history=history, subject=subject)
