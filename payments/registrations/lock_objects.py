"""Row locks of stored cards and standing instructions, in one place: each is re-read here
with `select_for_update()` inside the caller's transaction (a payment's claim or finalize, a
deregistration), so a deregistration and a payment on the card, or two MITs on one chain,
cannot cross."""

from django.db.models import QuerySet

from core.lookups import one

from .models import Registration, StandingInstruction


def registration_lock_among(
    *, reachable: QuerySet[Registration], registration_id: str
) -> Registration | None:
    """The registration if `reachable` holds it, locked; None otherwise."""
    return one(reachable.select_for_update().filter(pk=registration_id))


def instruction_lock_for(
    *, merchant_id: int, initial_transaction_id: str
) -> StandingInstruction | None:
    """The merchant's chain of standing instruction that an MIT names, locked; None if none."""
    return one(
        StandingInstruction.objects.select_for_update().filter(
            merchant_id=merchant_id, initial_transaction_id=initial_transaction_id
        )
    )


def instruction_lock(pk: str) -> StandingInstruction:
    return StandingInstruction.objects.select_for_update().get(pk=pk)
