"""Stored cards inside the payment engine's transactions: the registration an approved payment
stores (createRegistration), and the registration a payment pays with, locked."""

from django.utils import timezone

from core.errors import NotFound
from core.nesting import nest
from merchants import webhooks
from merchants.models import Merchant

from .. import results
from ..models import Payment
from .lock_objects import registration_lock_among
from .models import REGISTRATION_LIFECYCLE, Registration, RegistrationStatus


def store_card(payment: Payment) -> Registration:
    """The registration of an approved payment that asked for one: its card as the payment holds
    it (the vault's ciphertext, never a CVV), for its merchant."""
    registration = Registration.objects.create(
        merchant_id=payment.merchant_id,
        entity_id=payment.entity_id,
        payment_brand=payment.payment_brand,
        card_bin=payment.card_bin,
        card_last4=payment.card_last4,
        card_holder=payment.card_holder,
        card_expiry_month=payment.card_expiry_month,
        card_expiry_year=payment.card_expiry_year,
        pan_ciphertext=payment.pan_ciphertext,
        pan_fingerprint=payment.pan_fingerprint,
        merchant_customer_id=payment.data.get("customer.merchantCustomerId", ""),
        created_by=payment,
    )
    payment.registration = registration
    _tell_webhooks(registration, "CREATED")
    return registration


def _tell_webhooks(registration: Registration, action: str) -> None:
    from .tables import REGISTRATION_ANSWER

    webhooks.emit(
        merchant=registration.merchant,
        kind="REGISTRATION",
        action=action,
        subject=registration.pk,
        payload=webhooks.without_card_details(nest(REGISTRATION_ANSWER.render(registration))),
    )


def wants_registration(payment: Payment) -> bool:
    return payment.data.get("createRegistration") == "true" and payment.registration_id is None


def registration_lock(*, merchant: Merchant, registration_id: str) -> Registration:
    """The merchant's registration, locked (a deregistration and a payment on it cannot cross);
    404 (100.150.200) for any other merchant's or an unknown id."""
    registration = registration_lock_among(
        reachable=Registration.objects.filter(merchant=merchant), registration_id=registration_id
    )
    if registration is None:
        raise NotFound(results.REGISTRATION_NOT_FOUND)
    return registration


def destroy_card(registration: Registration, *, actor: str = "") -> None:
    """Deregistration under the row lock: the stored PAN and its fingerprint are destroyed, the
    row is kept for the history (100.150.202 when it is deregistered already)."""
    REGISTRATION_LIFECYCLE.check(registration.status, RegistrationStatus.DEREGISTERED)
    registration.pan_ciphertext = ""
    registration.pan_fingerprint = ""
    registration.deregistered_at = timezone.now()
    REGISTRATION_LIFECYCLE.apply(
        registration,
        RegistrationStatus.DEREGISTERED,
        actor=actor,
        save_fields=["pan_ciphertext", "pan_fingerprint", "deregistered_at"],
    )
    _tell_webhooks(registration, "DELETED")
