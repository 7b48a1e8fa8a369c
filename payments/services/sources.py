"""Where a payment's card comes from: exactly one of the card sent (`Card`), a registration's
stored card (`StoredCard`, card on file) or a scheme token (`SchemeToken`).

`card_source` runs in the claim transaction: it locks a registration or token of the caller's
merchant (404 for any other), and answers what the payment row keeps of the card (BIN, last
four, holder, expiry and brand in clear; the funding PAN only encrypted and fingerprinted), the
card to send to the network (a token is detokenized here), or the refusal when there is none
(a deregistered registration, a token that is not ACTIVE). A token's payment shows the token's
own BIN and last four, never the funding card's.
"""

from dataclasses import dataclass
from typing import Any

from core import cards
from core.results import Result
from tokenization import services as tokens
from tokenization.models import TokenStatus
from tokenization.results import TOKEN_NOT_ACTIVE

from .. import results as payment_results
from ..registrations import stored
from ..registrations.models import RegistrationStatus
from .types import Caller, Card, Details, SchemeToken, StoredCard

CardSource = Card | StoredCard | SchemeToken


@dataclass(frozen=True)
class Source:
    columns: dict[str, Any]  # the payment row's card columns (and its registration or token)
    card: Card | None  # what the network is sent
    refusal: Result | None = None


def card_source(caller: Caller, card: CardSource, details: Details) -> Source:
    if isinstance(card, Card):
        return Source(_sent(card, details.payment_brand or cards.detect_brand(card.number)), card)
    if isinstance(card, StoredCard):
        return _registration(caller, card, details)
    return _token(caller, card, details)


def _sent(card: Card, brand: str) -> dict[str, Any]:
    return {
        "payment_brand": brand,
        "card_bin": card.number[:6],
        "card_last4": card.number[-4:],
        "card_holder": card.holder,
        "card_expiry_month": card.expiry_month,
        "card_expiry_year": card.expiry_year,
        "pan_ciphertext": cards.encrypt_pan(card.number),
        "pan_fingerprint": cards.fingerprint(card.number),
    }


def _registration(caller: Caller, card: StoredCard, details: Details) -> Source:
    registration = stored.registration_lock(
        merchant=caller.merchant, registration_id=card.registration_id
    )
    brand = details.payment_brand or registration.payment_brand
    if registration.status != RegistrationStatus.ACTIVE:  # its card is gone
        columns = {
            "registration": registration,
            "payment_brand": brand,
            "card_bin": registration.card_bin,
            "card_last4": registration.card_last4,
            "card_holder": registration.card_holder,
            "card_expiry_month": registration.card_expiry_month,
            "card_expiry_year": registration.card_expiry_year,
        }
        return Source(columns, None, payment_results.REGISTRATION_DEREGISTERED)
    plain = Card(
        number=cards.decrypt_pan(registration.pan_ciphertext),
        expiry_month=registration.card_expiry_month,
        expiry_year=registration.card_expiry_year,
        holder=registration.card_holder,
        cvv=card.cvv,
    )
    return Source({"registration": registration, **_sent(plain, brand)}, plain)


def _token(caller: Caller, card: SchemeToken, details: Details) -> Source:
    token = tokens.token_lock(merchant=caller.merchant, reference=card.reference)
    shown = {
        "scheme_token": token,
        "payment_brand": details.payment_brand or token.brand,
        "card_bin": token.token_bin,
        "card_last4": token.token_pan_suffix,
        "card_holder": token.card_holder,
        "card_expiry_month": token.token_expiry[:2],
        "card_expiry_year": f"20{token.token_expiry[2:]}",
    }
    if token.status != TokenStatus.ACTIVE:
        return Source(shown, None, TOKEN_NOT_ACTIVE)
    funding = Card(
        number=cards.decrypt_pan(token.pan_ciphertext),
        expiry_month=token.card_expiry_month,
        expiry_year=token.card_expiry_year,
        holder=token.card_holder,
    )
    keep = {"pan_ciphertext": token.pan_ciphertext, "pan_fingerprint": token.pan_fingerprint}
    return Source({**shown, **keep}, funding)
