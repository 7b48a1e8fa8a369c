"""Every write to terminals: create, update, status (locked, with history)."""

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction

from core import results
from core.context import get_ndc
from core.errors import ApplicationError
from merchants.models import Merchant
from merchants.services import status_change_allowed

from .models import Terminal, TerminalStatusChange


def terminal_create(
    *, merchant: Merchant, terminal_id: str, values: Mapping[str, Any], changed_by: str
) -> Terminal:
    """Create a terminal; a pos.terminalId that exists already is refused with 200.300.405."""
    if Terminal.objects.filter(terminal_id=terminal_id).exists():
        raise _duplicate(terminal_id)
    try:
        with transaction.atomic():
            terminal = Terminal.objects.create(terminal_id=terminal_id, merchant=merchant, **values)
            TerminalStatusChange.objects.create(
                terminal=terminal,
                from_status="",
                to_status=terminal.status,
                changed_by=changed_by,
                ndc=get_ndc(),
            )
    except IntegrityError:
        if Terminal.objects.filter(terminal_id=terminal_id).exists():
            raise _duplicate(terminal_id) from None
        raise
    return terminal


def _duplicate(terminal_id: str) -> ApplicationError:
    return ApplicationError(
        results.DUPLICATE_ENTRY, f"duplicate entry: pos.terminalId {terminal_id} already exists"
    )


@transaction.atomic
def terminal_update(*, terminal: Terminal, values: Mapping[str, Any]) -> Terminal:
    locked = Terminal.objects.select_for_update().get(pk=terminal.pk)
    for key, value in values.items():
        setattr(locked, key, value)
    locked.save()
    return locked


@transaction.atomic
def terminal_set_status(*, terminal: Terminal, status: str, changed_by: str) -> Terminal:
    """Set terminal.status with history; NORMAL from CLOSED/TERMINATED is refused (700.500.101)."""
    locked = Terminal.objects.select_for_update().get(pk=terminal.pk)
    if not status_change_allowed(locked.status, status):
        raise ApplicationError(results.TERMINAL_STATUS_NOT_ALLOWED)
    TerminalStatusChange.objects.create(
        terminal=locked,
        from_status=locked.status,
        to_status=status,
        changed_by=changed_by,
        ndc=get_ndc(),
    )
    locked.status = status
    locked.save(update_fields=["status", "updated_at"])
    return locked
