"""The Token group's services over issue 9's scheme tokens whose funding card is one of the
issuer's cards: find them, decide a token request, record what the token service reports,
refresh a token's card data, derive a limited-use key. A token's status changes only through
tokenization's own service (which notifies the token requestor), and a token is locked only
through tokenization's own lock (`token_lock`)."""

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import QuerySet

from core import cards as core_cards
from core import results as core_results
from core.errors import ApplicationError, NotFound
from tokenization import services as tokenization
from tokenization.models import Token, TokenStatus
from tokenization.selectors import card_art_by_id, token_by_reference, tokens_by_fingerprint

from .. import results
from . import secrets
from .models import Card, CardStatus, TokenEvent
from .selectors import card_expired

LUK_SECONDS = 24 * 3600
LUK_TRANSACTIONS = 10


def tokens_of(card: Card) -> QuerySet[Token]:
    return tokens_by_fingerprint(pan_fingerprint=card.pan_fingerprint)


def token_of(client_id: str, tur: str) -> tuple[Token, Card]:
    """A token whose funding card is one of the requestor's cards, with that card."""
    found = token_by_reference(reference=tur)
    card = None
    if found is not None:
        card = Card.objects.filter(
            client_id=client_id, pan_fingerprint=found.pan_fingerprint
        ).first()
    if found is None or card is None:
        raise NotFound(results.TOKEN_NOT_FOUND)
    return found, card


def decision_for(card: Card) -> tuple[str, str]:
    """The issuer's answer to a token request for its card: APPROVED for an ACTIVE card in
    date, REQUIRE_ADDITIONAL_AUTHENTICATION for one not yet activated or suspended, DECLINED
    for one lost, stolen, expired or ended."""
    if card.status == CardStatus.ACTIVE and not card_expired(card=card):
        return tokenization.APPROVED, ""
    if card.status in (CardStatus.INACTIVE, CardStatus.SUSPENDED):
        return tokenization.NEEDS_AUTHENTICATION, f"the card is {card.status}"
    return tokenization.DECLINED, f"the card is {card.status}"


def decide_token_request(number: str) -> str | None:
    """tokenization's decider for the issuer's own cards (the closed loop: a CT on an on-us card
    is decided by TokenRequest's rule); None for a card that is not the issuer's."""
    card = Card.objects.filter(pan_fingerprint=core_cards.fingerprint(number)).first()
    return None if card is None else decision_for(card)[0]


def token_change_status(*, client_id: str, tur: str, action: str, reason: str, actor: str) -> Token:
    """The issuer suspends (suspender ISSUER), resumes, deletes or activates a token."""
    found, card = token_of(client_id, tur)
    with transaction.atomic():
        updated = tokenization.token_set_status(
            reference=found.pk,
            action=action,
            actor=actor,
            reason=reason,
            suspender="ISSUER" if action in ("suspend", "unsuspend") else "",
        )
        TokenEvent.objects.create(
            tur=found.pk,
            card=card,
            client_id=client_id,
            event="STATE_UPDATE",
            status=updated.status,
            reason=reason,
        )
    return updated


def token_notification_record(*, client_id: str, tur: str, status: str, reason: str) -> TokenEvent:
    found, card = token_of(client_id, tur)
    return TokenEvent.objects.create(
        tur=found.pk,
        card=card,
        client_id=client_id,
        event="STATE_NOTIFICATION",
        status=status,
        reason=reason,
    )


def token_metadata_refresh(*, client_id: str, tur: str, card_art_id: int | None) -> Token:
    """The token's copy of its card's data (last four, expiry) from the card, and another card
    art when named; the token requestor is notified (product-configuration change)."""
    with transaction.atomic():
        found, card = token_of(client_id, tur)
        found = tokenization.token_lock(merchant=found.merchant, reference=found.pk)
        if card_art_id is not None:
            art = card_art_by_id(card_art_id=card_art_id)
            if art is None:
                raise ApplicationError(
                    core_results.REFERENCE_NOT_FOUND, "no card art with this cardArtId"
                )
            found.card_art = art
        found.card_last4 = card.last4
        found.card_expiry_month = f"{card.expiry_month:02d}"
        found.card_expiry_year = str(card.expiry_year)
        found.save(
            update_fields=["card_art", "card_last4", "card_expiry_month", "card_expiry_year"]
        )
        TokenEvent.objects.create(
            tur=found.pk, card=card, client_id=client_id, event="METADATA_UPDATE"
        )
        tokenization.notify(found, reason="METADATA_UPDATED")
    return found


@dataclass(frozen=True)
class LimitedUseKey:
    luk_id: int
    key: str
    valid_until: datetime
    max_transactions: int


def luk_replenish(*, client_id: str, tur: str) -> tuple[Token, LimitedUseKey]:
    """A new limited-use key for an ACTIVE cloud-based token: derived from the card
    verification key, the token and the event, so it is never stored."""
    found, card = token_of(client_id, tur)
    if found.status != TokenStatus.ACTIVE:
        raise ApplicationError(results.CARD_NOT_ACTIVE, f"the token is {found.status}: no new key")
    event = TokenEvent.objects.create(
        tur=found.pk, card=card, client_id=client_id, event="LUK_REPLENISHED"
    )
    key = hmac.new(
        secrets.verification_key(), f"luk|{found.pk}|{event.pk}".encode(), hashlib.sha256
    ).hexdigest()[:32]
    return found, LimitedUseKey(
        event.pk, key, event.created_at + timedelta(seconds=LUK_SECONDS), LUK_TRANSACTIONS
    )
