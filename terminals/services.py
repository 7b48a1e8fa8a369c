"""Every write to terminals: create, update, status (locked, with history)."""

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction

from core import results as core_results
from core.errors import ApplicationError
from core.status import operating_lifecycle
from core.writes import save_changes
from merchants.models import Merchant

from . import results
from .lock_objects import terminal_lock
from .models import TERMINAL_DATA_FIELDS, Terminal, TerminalStatusChange

TERMINAL_STATUS = operating_lifecycle(
    "terminal status",
    refusal=lambda current, target: ApplicationError(results.TERMINAL_STATUS_NOT_ALLOWED),
    history=TerminalStatusChange,
    subject="terminal",
)


def terminal_create(
    *, merchant: Merchant, terminal_id: str, values: Mapping[str, Any], changed_by: str
) -> Terminal:
    """Create a terminal; a pos.terminalId that exists already is refused with 200.300.405."""
    if Terminal.objects.filter(terminal_id=terminal_id).exists():
        raise _duplicate(terminal_id)
    try:
        with transaction.atomic():
            terminal = Terminal.objects.create(terminal_id=terminal_id, merchant=merchant, **values)
            TERMINAL_STATUS.record(terminal, "", terminal.status, actor=changed_by)
    except IntegrityError:
        if Terminal.objects.filter(terminal_id=terminal_id).exists():
            raise _duplicate(terminal_id) from None
        raise
    return terminal


def _duplicate(terminal_id: str) -> ApplicationError:
    return ApplicationError(
        core_results.DUPLICATE_ENTRY,
        f"duplicate entry: pos.terminalId {terminal_id} already exists",
    )


@transaction.atomic
def terminal_update(*, terminal: Terminal, values: Mapping[str, Any]) -> Terminal:
    """Change registered data (TERMINAL_DATA_FIELDS only), under the row lock."""
    locked = terminal_lock(terminal.pk)
    save_changes(locked, values, allowed=TERMINAL_DATA_FIELDS)
    return locked


@transaction.atomic
def terminal_set_status(*, terminal: Terminal, status: str, changed_by: str) -> Terminal:
    """Set terminal.status with history; NORMAL from CLOSED/TERMINATED is refused (700.500.101)."""
    locked = terminal_lock(terminal.pk)
    TERMINAL_STATUS.apply(locked, status, actor=changed_by)
    return locked
