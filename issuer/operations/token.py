"""The Token group (docs/issuer.md): the scheme tokens (issue 9's) whose funding card is one of
this requestor's cards. TokenStateUpdate changes a token's status through tokenization's one
service, which notifies the token requestor (the merchant); the others read, decide or record."""

import hashlib
import hmac
from datetime import timedelta
from typing import Any

from django.db import transaction

from core import results
from core.errors import ApplicationError, NotFound
from core.fields import AN, UN, Choice
from core.tables import MANDATORY, OPTIONAL, F, Table
from tokenization import services as tokens
from tokenization.models import CardArt, Token, TokenStatus

from .. import results as issuer_results
from ..cards import secrets, services
from ..cards.models import Card, CardStatus, TokenEvent
from .common import CARD_REFERENCE, card_for, stamp
from .registry import Answer, Call, group

token = group("token")
TUR = F(
    "tokenUniqueReference",
    AN(64, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="DTKN" + "0" * 60),
    MANDATORY,
)
LUK_SECONDS = 24 * 3600
LUK_TRANSACTIONS = 10


def _token_of(call: Call, *, lock: bool = False) -> tuple[Token, Card]:
    query = Token.objects.filter(pk=call.fields["tokenUniqueReference"])
    if lock:
        query = query.select_for_update()
    found = query.select_related("merchant").first()
    card = None
    if found is not None:
        card = (
            Card.objects.filter(client_id=call.client_id, pan_fingerprint=found.pan_fingerprint)
            .select_related("product")
            .first()
        )
    if found is None or card is None:
        raise NotFound(issuer_results.TOKEN_NOT_FOUND)
    return found, card


def _token_fields(found: Token) -> dict[str, Any]:
    return {
        "tokenUniqueReference": found.pk,
        "status": found.status,
        "suspendedBy": list(found.suspended_by),
        "statusTimestamp": stamp(found.status_timestamp),
        "tokenRequestor": found.merchant.name,
        "tokenLast4": found.token_pan_suffix,
        "tokenExpiry": found.token_expiry,
        "brand": found.brand,
        "cardArtId": found.card_art_id,
    }


@token("TokenInquiry", Table([CARD_REFERENCE]), "the card's scheme tokens")
def inquiry(call: Call) -> Answer:
    card = card_for(call)
    found = Token.objects.filter(pan_fingerprint=card.pan_fingerprint).select_related("merchant")
    fields = {"cardReference": card.reference, "tokens": [_token_fields(t) for t in found]}
    return results.REQUEST_SUCCEEDED, fields, None


def decision_for(card: Card) -> tuple[str, str]:
    """The issuer's answer to a token request for its card: APPROVED for an ACTIVE card in
    date, REQUIRE_ADDITIONAL_AUTHENTICATION for one not yet activated or suspended, DECLINED
    for one lost, stolen, expired or ended."""
    if card.status == CardStatus.ACTIVE and not services.card_expired(card):
        return tokens.APPROVED, ""
    if card.status in (CardStatus.INACTIVE, CardStatus.SUSPENDED):
        return tokens.NEEDS_AUTHENTICATION, f"the card is {card.status}"
    return tokens.DECLINED, f"the card is {card.status}"


REQUEST = Table(
    [
        CARD_REFERENCE,
        F("tokenRequestorId", AN(64), OPTIONAL, meaning="the wallet or merchant asking"),
    ]
)


@token("TokenRequest", REQUEST, "the issuer's decision on tokenizing its card")
def request(call: Call) -> Answer:
    card = card_for(call)
    decision, why = decision_for(card)
    fields = {"cardReference": card.reference, "decision": decision}
    if why:
        fields["reason"] = why
    return results.REQUEST_SUCCEEDED, fields, None


ACTIONS = {
    "SUSPEND": "suspend",
    "RESUME": "unsuspend",
    "DELETE": "deactivate",
    "ACTIVATE": "activate",
}
STATE_UPDATE = Table(
    [
        TUR,
        F("action", Choice(tuple(ACTIONS)), MANDATORY),
        F("reason", AN(32), OPTIONAL, meaning="e.g. SUSPECTED_FRAUD"),
    ]
)


@token("TokenStateUpdate", STATE_UPDATE, "suspend, resume, delete or activate a token")
def state_update(call: Call) -> Answer:
    found, card = _token_of(call)
    action = ACTIONS[call.fields["action"]]
    updated = tokens.token_set_status(
        reference=found.pk,
        action=action,
        actor=call.actor,
        reason=call.fields.get("reason") or "",
        suspender="ISSUER" if action in ("suspend", "unsuspend") else "",
    )
    TokenEvent.objects.create(
        tur=found.pk,
        card=card,
        client_id=call.client_id,
        event="STATE_UPDATE",
        status=updated.status,
        reason=call.fields.get("reason") or "",
    )
    return results.REQUEST_SUCCEEDED, _token_fields(updated), None


NOTIFICATION = Table(
    [
        TUR,
        F("status", Choice(tuple(TokenStatus.values)), MANDATORY),
        F("eventReasonCode", AN(64), OPTIONAL),
    ]
)


@token(
    "TokenStateNotification", NOTIFICATION, "record a token state change the token service reports"
)
def state_notification(call: Call) -> Answer:
    found, card = _token_of(call)
    event = TokenEvent.objects.create(
        tur=found.pk,
        card=card,
        client_id=call.client_id,
        event="STATE_NOTIFICATION",
        status=call.fields["status"],
        reason=call.fields.get("eventReasonCode") or "",
    )
    fields = {
        "tokenUniqueReference": found.pk,
        "received": True,
        "receivedAt": stamp(event.created_at),
    }
    return results.REQUEST_SUCCEEDED, fields, None


METADATA = Table(
    [TUR, F("cardArtId", UN(9), OPTIONAL, meaning="another card art (admin: Card arts)")]
)


@token("TokenMetadataUpdate", METADATA, "refresh a token's card data and card art; notifies")
def metadata_update(call: Call) -> Answer:
    with transaction.atomic():
        found, card = _token_of(call, lock=True)
        if call.fields.get("cardArtId"):
            art = CardArt.objects.filter(pk=int(call.fields["cardArtId"])).first()
            if art is None:
                raise ApplicationError(
                    results.REFERENCE_NOT_FOUND, "no card art with this cardArtId"
                )
            found.card_art = art
        found.card_last4 = card.last4
        found.card_expiry_month = f"{card.expiry_month:02d}"
        found.card_expiry_year = str(card.expiry_year)
        found.save(
            update_fields=["card_art", "card_last4", "card_expiry_month", "card_expiry_year"]
        )
        TokenEvent.objects.create(
            tur=found.pk, card=card, client_id=call.client_id, event="METADATA_UPDATE"
        )
        tokens.notify(found, reason="METADATA_UPDATED")
    return results.REQUEST_SUCCEEDED, _token_fields(found), None


@token("ReplenishTokenLUK", Table([TUR]), "new limited-use key for a cloud-based token")
def replenish_luk(call: Call) -> Answer:
    found, card = _token_of(call)
    if found.status != TokenStatus.ACTIVE:
        raise ApplicationError(
            issuer_results.CARD_NOT_ACTIVE, f"the token is {found.status}: no new key"
        )
    event = TokenEvent.objects.create(
        tur=found.pk, card=card, client_id=call.client_id, event="LUK_REPLENISHED"
    )
    # Derived from the card verification key, the token and the event: never stored.
    luk = hmac.new(
        secrets._key(), f"luk|{found.pk}|{event.pk}".encode(), hashlib.sha256
    ).hexdigest()[:32]
    fields = {
        "tokenUniqueReference": found.pk,
        "lukId": event.pk,
        "luk": luk,
        "validUntil": stamp(event.created_at + timedelta(seconds=LUK_SECONDS)),
        "maxTransactions": LUK_TRANSACTIONS,
    }
    return results.REQUEST_SUCCEEDED, fields, None
