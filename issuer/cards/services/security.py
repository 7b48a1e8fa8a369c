"""What proves the card: its PIN (PINReset, PINChange, PINVerify) and its security codes (CVV2
for a virtual card, the dynamic CVV), computed in ../secrets.py from the card verification key,
never stored; the PIN only as a salted slow hash.

A wrong PIN uses one of three tries under the card's row lock (stored: it is an outcome, not an
error). Codes are given only for a card that can still pay: never for one lost, stolen, expired
or ended.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from core import results as core_results
from core.errors import ApplicationError

from ... import results
from .. import secrets
from ..lock_objects import card_lock
from ..models import Card, CardForm, CardStatus
from ..selectors import card_number


@dataclass(frozen=True)
class PinOutcome:
    result: core_results.Result
    tries_left: int


def _pin_tries_left(card: Card) -> int:
    return max(0, secrets.MAX_PIN_FAILURES - card.pin_failures)


def pin_reset(*, card: Card, new_pin: str) -> Card:
    """PINReset: a new PIN (the issuer's reset, e.g. after it was blocked); the tries start
    again."""
    with transaction.atomic():
        card = card_lock(card=card)
        card.pin_hash = secrets.pin_hash(new_pin)
        card.pin_failures = 0
        card.save(update_fields=["pin_hash", "pin_failures", "updated_at"])
    return card


def _check_pin(card: Card, pin: str) -> PinOutcome:
    """On a locked card: a wrong PIN uses one of the three tries (stored: it is an outcome)."""
    if not card.pin_hash:
        return PinOutcome(results.PIN_NOT_SET, _pin_tries_left(card))
    if card.pin_blocked:
        return PinOutcome(results.PIN_BLOCKED, 0)
    if secrets.pin_matches(pin, card.pin_hash):
        if card.pin_failures:
            card.pin_failures = 0
            card.save(update_fields=["pin_failures", "updated_at"])
        return PinOutcome(core_results.REQUEST_SUCCEEDED, _pin_tries_left(card))
    card.pin_failures += 1
    card.save(update_fields=["pin_failures", "updated_at"])
    blocked = card.pin_blocked
    return PinOutcome(results.PIN_BLOCKED if blocked else results.WRONG_PIN, _pin_tries_left(card))


def pin_verify(*, card: Card, pin: str) -> PinOutcome:
    with transaction.atomic():
        return _check_pin(card_lock(card=card), pin)


def pin_change(*, card: Card, old_pin: str, new_pin: str) -> PinOutcome:
    with transaction.atomic():
        locked = card_lock(card=card)
        outcome = _check_pin(locked, old_pin)
        if outcome.result.is_success:
            locked.pin_hash = secrets.pin_hash(new_pin)
            locked.save(update_fields=["pin_hash", "updated_at"])
        return outcome


def _virtual_only(card: Card) -> None:
    if card.form != CardForm.VIRTUAL:
        raise ApplicationError(results.VIRTUAL_ONLY)
    _codes_allowed(card)


def _codes_allowed(card: Card) -> None:
    """Security codes only for a card that can still pay (INACTIVE, ACTIVE or SUSPENDED): never
    for one lost, stolen, expired or ended."""
    refusal = {
        CardStatus.LOST: results.CARD_LOST,
        CardStatus.STOLEN: results.CARD_STOLEN,
        CardStatus.EXPIRED: results.CARD_EXPIRED,
        CardStatus.CANCELLED: results.CARD_NOT_ACTIVE,
        CardStatus.REPLACED: results.CARD_NOT_ACTIVE,
    }.get(CardStatus(card.status))
    if refusal is not None:
        raise ApplicationError(refusal, f"no security code for a card in status {card.status}")


def card_cvv2(*, card: Card) -> str:
    """CVV2Inquiry: a virtual card's CVV2."""
    _virtual_only(card)
    return secrets.cvv2(card_number(card=card), card.expiry_month, card.expiry_year)


def card_cvv2_verify(*, card: Card, candidate: str) -> bool:
    _virtual_only(card)
    return secrets.cvv2_matches(
        card_number(card=card), card.expiry_month, card.expiry_year, candidate
    )


def card_dcvv(*, card: Card, moment: datetime | None = None) -> tuple[str, datetime]:
    """The dynamic CVV of the window holding `moment` (now), and when it stops being valid."""
    _codes_allowed(card)
    window = secrets.dcvv_window(moment)
    code = secrets.dcvv(card_number(card=card), card.expiry_month, card.expiry_year, window)
    return code, secrets.dcvv_valid_until(window)


def security_code_matches(*, card: Card, candidate: str) -> bool:
    """A CVV2 or a current dCVV (transaction/Verification, issue 15's on-us connector)."""
    number = card_number(card=card)
    return secrets.cvv2_matches(
        number, card.expiry_month, card.expiry_year, candidate
    ) or secrets.dcvv_matches(number, card.expiry_month, card.expiry_year, candidate)


def expiry_matches(*, card: Card, month: int, year: int) -> bool:
    return (card.expiry_month, card.expiry_year) == (month, year)
