"""Registrations (card on file): the use cases of the registrations paths.

| use case | function |
|---|---|
| store a card without a payment (a zero-amount CV) | `registration_create` |
| deregister: destroy the stored PAN | `registration_deregister` (staff: `..._by_staff`) |
| pay with a stored card | `payment_authorize` / `payment_debit` with a `StoredCard` |

A registration is made only by an approved payment or verification, in its finalize transaction
(`stored.store_card`): a declined card is never stored.
"""

from dataclasses import replace

from django.db import transaction
from django.db.models import QuerySet

from core.errors import NotFound
from merchants.models import Entity

from .. import results
from ..services import initial
from ..services.types import Caller, Card, Details, PaymentOutcome
from . import stored
from .lock_objects import registration_lock_among
from .models import Registration
from .selectors import registrations_reachable


def registration_create(
    *, caller: Caller, reference: str, request_hash: str, card: Card, details: Details
) -> PaymentOutcome:
    """Store `card` for the caller's merchant after the network verifies it as a zero-amount CV
    would (no amount): the answer is the verification's, with registrationId when approved; a
    declined card answers the decline and is not stored."""
    return initial.payment_verify(
        caller=caller,
        reference=reference,
        request_hash=request_hash,
        card=card,
        details=replace(details, create_registration=True),
    )


def registration_deregister(*, entity: Entity, registration_id: str) -> Registration:
    """Destroy the stored card (the row stays, DEREGISTERED, for the history); later payments
    with it answer 100.150.202, and so does a second deregistration. 404 (100.150.200) for a
    registration the entity does not reach."""
    return _deregister(
        registrations_reachable(entity=entity), registration_id, f"entity:{entity.entity_id}"
    )


def registration_deregister_by_staff(*, registration_id: str, actor: str) -> Registration:
    """The same, by bank staff in the admin (any merchant's registration)."""
    return _deregister(Registration.objects.all(), registration_id, actor)


def _deregister(
    reachable: QuerySet[Registration], registration_id: str, actor: str
) -> Registration:
    with transaction.atomic():
        registration = registration_lock_among(reachable=reachable, registration_id=registration_id)
        if registration is None:
            raise NotFound(results.REGISTRATION_NOT_FOUND)
        stored.destroy_card(registration, actor=actor)
        return registration
