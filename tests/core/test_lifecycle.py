"""The state-machine helper: a transitions map, one apply that checks, saves and records."""

import pytest

from core.errors import ApplicationError
from core.lifecycle import Lifecycle, TransitionNotAllowed
from core.results import DUPLICATE_ENTRY
from core.status import OPERATING_TRANSITIONS, OperatingStatus
from merchants.models import MerchantStatusChange
from merchants.services import MERCHANT_STATUS
from tests.factories import MerchantFactory

MACHINE = Lifecycle("door", {"OPEN": {"CLOSED"}, "CLOSED": {"OPEN", "LOCKED"}, "LOCKED": set()})


def test_allows_and_final_states():
    assert MACHINE.allows("OPEN", "CLOSED")
    assert not MACHINE.allows("OPEN", "LOCKED")
    assert MACHINE.final_states == {"LOCKED"}
    assert MACHINE.is_final("LOCKED") and not MACHINE.is_final("OPEN")


def test_a_refused_transition_raises_the_machines_error_or_its_own():
    with pytest.raises(TransitionNotAllowed):
        MACHINE.check("LOCKED", "OPEN")
    refusing = Lifecycle(
        "x", {"A": set()}, refusal=lambda current, target: ApplicationError(DUPLICATE_ENTRY)
    )
    with pytest.raises(ApplicationError) as info:
        refusing.check("A", "A")
    assert info.value.result is DUPLICATE_ENTRY


def test_transitions_to_an_undeclared_state_are_a_programming_error():
    with pytest.raises(ValueError, match="undeclared"):
        Lifecycle("x", {"A": {"B"}})


def test_the_operating_status_machine():
    ended = (OperatingStatus.CLOSED, OperatingStatus.TERMINATED)
    for state, targets in OPERATING_TRANSITIONS.items():
        assert (OperatingStatus.NORMAL in targets) == (state not in ended)
        assert state in targets  # the same status may be set again


@pytest.mark.django_db
def test_apply_saves_the_state_and_writes_the_history_row():
    merchant = MerchantFactory()
    previous = MERCHANT_STATUS.apply(merchant, OperatingStatus.BLOCKED, actor="staff:alice")
    merchant.refresh_from_db()
    assert previous == OperatingStatus.NORMAL and merchant.status == OperatingStatus.BLOCKED
    row = MerchantStatusChange.objects.filter(merchant=merchant).first()
    assert (row.from_status, row.to_status, row.changed_by) == ("NORMAL", "BLOCKED", "staff:alice")
