"""Reads of checkouts: by the merchant (its API) or by the page's unguessable id."""

from django.db.models import QuerySet

from core.errors import NotFound
from core.lookups import one
from core.results import REFERENCE_NOT_FOUND
from merchants.models import Entity
from merchants.selectors import merchants_reachable

from ..models import Registration
from ..registrations.models import RegistrationStatus
from .models import Checkout


def checkout_get(*, entity: Entity, checkout_id: str) -> Checkout:
    """The checkout if the entity reaches its merchant; else 404 (700.100.100)."""
    checkout = one(
        Checkout.objects.filter(
            pk=checkout_id, merchant__in=merchants_reachable(entity=entity)
        ).select_related("payment", "merchant")
    )
    if checkout is None:
        raise NotFound(REFERENCE_NOT_FOUND)
    return checkout


def checkout_for_page(*, checkout_id: str) -> Checkout | None:
    return one(Checkout.objects.filter(pk=checkout_id).select_related("merchant", "payment"))


def stored_cards(*, checkout: Checkout) -> QuerySet[Registration]:
    """The merchant's active registrations of the checkout's customer (none without one)."""
    if not checkout.merchant_customer_id:
        return Registration.objects.none()
    return Registration.objects.filter(
        merchant=checkout.merchant,
        merchant_customer_id=checkout.merchant_customer_id,
        status=RegistrationStatus.ACTIVE,
    ).order_by("-created_at")


def stored_number(*, checkout: Checkout, registration_id: str) -> str:
    """The card number of one of the checkout's stored cards, in memory only, for the 3-D
    Secure protocol version of its BIN; "" when it has none any more."""
    from core import cards

    registration = stored_cards(checkout=checkout).filter(pk=registration_id).first()
    if registration is None or not registration.pan_ciphertext:
        return ""
    return cards.decrypt_pan(registration.pan_ciphertext)
