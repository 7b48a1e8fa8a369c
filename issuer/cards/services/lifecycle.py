"""A card's status: one lifecycle (CARD_LIFECYCLE, beside the model) for Activation,
StatusUpdate, Cancellation and Replacement, each recording who, when and why.

Every change locks the card's row (lock_objects.py) and checks the transition after the lock:
CANCELLED and REPLACED are final. Replacement issues a new card for the same customer and
account (applying.py's number helpers) and retires the old one, in one transaction.
"""

from django.db import transaction
from stdnum import luhn

from core.errors import ApplicationError, ParameterError

from ... import results
from ..lock_objects import card_lock, card_lock_of, customer_lock
from ..lookups import NEW_NUMBER_REASONS
from ..models import (
    CARD_LIFECYCLE,
    BinRange,
    Card,
    CardForm,
    CardLimit,
    CardProduct,
    CardStatus,
    KycStatus,
)
from ..selectors import card_expired, card_number
from .applying import NO_ADDRESS, Address, card_expiry, delivery_fields, save_new_card, store_number


def _refuse_transition(card: Card, target: str) -> None:
    if not CARD_LIFECYCLE.allows(card.status, target):
        raise ApplicationError(
            results.CARD_STATUS_NOT_ALLOWED,
            f"a card in status {card.status} cannot become {target}",
            data={"status": card.status},
        )


def card_set_status(*, card: Card, target: str, reason: str, actor: str) -> Card:
    """Move a locked card to `target` (the lifecycle's map), recording who, when and why."""
    _refuse_transition(card, target)
    card.status_reason = reason
    CARD_LIFECYCLE.apply(
        card, target, actor=actor, save_fields=["status_reason"], history={"reason": reason}
    )
    return card


def card_change_status(
    *, client_id: str, reference: str, target: str, reason: str, actor: str
) -> Card:
    """StatusUpdate (and the staff's actions): the requestor's card, locked, to `target`."""
    with transaction.atomic():
        card = card_lock_of(client_id=client_id, reference=reference)
        return card_set_status(card=card, target=target, reason=reason, actor=actor)


def card_activate(*, card: Card, actor: str) -> Card:
    """Activation: INACTIVE -> ACTIVE, once the customer's KYC is VERIFIED and the card is in
    date. The customer's row is locked after the card's: its KYC status cannot change under
    the check."""
    with transaction.atomic():
        card = card_lock(card=card)
        card.customer = customer_lock(customer=card.customer)
        _refuse_transition(card, CardStatus.ACTIVE)
        if card.status != CardStatus.INACTIVE:
            raise ApplicationError(
                results.CARD_STATUS_NOT_ALLOWED,
                f"only an INACTIVE card is activated (this one is {card.status})",
                data={"status": card.status},
            )
        if card.customer.kyc_status != KycStatus.VERIFIED:
            raise ApplicationError(results.KYC_NOT_VERIFIED)
        if card_expired(card=card):
            raise ApplicationError(results.CARD_EXPIRED)
        return card_set_status(card=card, target=CardStatus.ACTIVE, reason="ACTIVATED", actor=actor)


def card_cancel(*, card: Card, reason: str, actor: str) -> Card:
    with transaction.atomic():
        card = card_lock(card=card)
        return card_set_status(card=card, target=CardStatus.CANCELLED, reason=reason, actor=actor)


REPLACE_SAME, REPLACE_SPECIFIC, REPLACE_RANDOM = "SAME", "SPECIFIC", "RANDOM"


def card_replace(
    *,
    card: Card,
    mode: str,
    reason: str,
    actor: str,
    number: str = "",
    form: str = "",
    delivery: Address = NO_ADDRESS,
) -> Card:
    """Replacement: a new card for the same customer and account; the old one becomes
    REPLACED (after LOST or STOLEN when that is the reason) and points at the new one. The new
    number is the same (SAME: not for a lost, stolen or compromised card), one the requestor
    chose in the product's BIN range (SPECIFIC) or a random one (RANDOM). `form` PHYSICAL turns
    a virtual card into a physical one (delivery address needed). The new card keeps the
    limits, the PIN and the 3-D Secure channel, and starts INACTIVE."""
    with transaction.atomic():
        old = card_lock(card=card)
        form, delivery = _replacement_form(
            old, mode=mode, reason=reason, form=form, delivery=delivery
        )
        bin_range = _bin_range_for(old.product, number) if mode == REPLACE_SPECIFIC else None
        if reason in ("LOST", "STOLEN") and CARD_LIFECYCLE.allows(old.status, reason):
            card_set_status(card=old, target=reason, reason=reason, actor=actor)
        new = _successor(old, form=form, delivery=delivery)
        _number_successor(old, new, mode=mode, number=number, bin_range=bin_range)
        CARD_LIFECYCLE.record(new, "", CardStatus.INACTIVE, actor=actor, reason=reason)
        _copy_limits(old, new)
        old.replaced_by = new
        old.save(update_fields=["replaced_by"])
        card_set_status(card=old, target=CardStatus.REPLACED, reason=reason, actor=actor)
    return new


def _replacement_form(
    old: Card, *, mode: str, reason: str, form: str, delivery: Address
) -> tuple[str, Address]:
    """The new card's form and delivery address, once the locked `old` may be replaced so: the
    same number is refused for a lost, stolen or compromised card, a physical card needs an
    address (the old card's when it had one) and is never replaced by a virtual one."""
    _refuse_transition(old, CardStatus.REPLACED)
    if mode == REPLACE_SAME and (
        reason in NEW_NUMBER_REASONS or old.status in (CardStatus.LOST, CardStatus.STOLEN)
    ):
        why = old.status if old.status in (CardStatus.LOST, CardStatus.STOLEN) else reason
        raise ParameterError(
            [("replacementType", mode, f"a card replaced as {why} gets a new number")]
        )
    form = form or old.form
    if form == CardForm.PHYSICAL and not delivery.complete:
        if old.form == CardForm.PHYSICAL:
            delivery = Address(
                old.delivery_line1,
                old.delivery_line2,
                old.delivery_city,
                old.delivery_postcode,
                old.delivery_country,
            )
        else:
            raise ParameterError(
                [("deliveryAddress.line1", None, "a physical card needs a delivery address")]
            )
    if old.form == CardForm.PHYSICAL and form == CardForm.VIRTUAL:
        raise ParameterError([("cardForm", form, "a physical card is replaced by a physical card")])
    return form, delivery


def _successor(old: Card, *, form: str, delivery: Address) -> Card:
    """The new card (not saved, no number yet): the old one's customer, account, name, PIN and
    3-D Secure channel, with a new expiry."""
    month, year = card_expiry(product=old.product)
    return Card(
        product=old.product,
        customer_id=old.customer_id,
        account_id=old.account_id,
        client_id=old.client_id,
        expiry_month=month,
        expiry_year=year,
        embossed_name=old.embossed_name,
        form=form,
        pin_hash=old.pin_hash,
        secure_channel=old.secure_channel,
        **delivery_fields(address=delivery if form == CardForm.PHYSICAL else NO_ADDRESS),
    )


def _number_successor(
    old: Card, new: Card, *, mode: str, number: str, bin_range: BinRange | None
) -> None:
    """Number and save `new`: the old card's number (SAME), the chosen one (SPECIFIC) or a
    random one in the product's first active BIN range (RANDOM)."""
    if mode == REPLACE_SAME:
        # The same number on a new card: the old card's fingerprint moves to the new one.
        same = card_number(card=old)
        old.pan_fingerprint = f"replaced:{old.pk}"
        old.save(update_fields=["pan_fingerprint"])
        store_number(card=new, number=same)
        new.save(force_insert=True)
    elif mode == REPLACE_SPECIFIC:
        assert bin_range is not None
        save_new_card(card=new, bin_range=bin_range, number=number)
    else:
        bin_range = old.product.bin_ranges.filter(active=True).order_by("pk").first()
        if bin_range is None:
            raise ApplicationError(
                results.NOT_ENABLED, f"product {old.product.code} has no active BIN range"
            )
        save_new_card(card=new, bin_range=bin_range)


def _copy_limits(old: Card, new: Card) -> None:
    CardLimit.objects.bulk_create(
        CardLimit(
            card=new,
            region=limit.region,
            channel=limit.channel,
            per_transaction=limit.per_transaction,
            daily_amount=limit.daily_amount,
            daily_count=limit.daily_count,
            monthly_amount=limit.monthly_amount,
            monthly_count=limit.monthly_count,
        )
        for limit in old.limits.all()
    )


def _bin_range_for(product: CardProduct, number: str) -> BinRange:
    if not (number.isdigit() and luhn.is_valid(number)):
        raise ParameterError([("cardNumber", "***", "not a card number (Luhn check)")])
    for bin_range in product.bin_ranges.filter(active=True):
        if number.startswith(bin_range.bin) and len(number) == bin_range.pan_length:
            return bin_range
    raise ParameterError([("cardNumber", "***", f"not in a BIN range of product {product.code}")])
