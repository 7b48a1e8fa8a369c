"""The Token group (docs/issuer.md): the scheme tokens (issue 9's) whose funding card is one of
this requestor's cards (issuer.cards.tokens). TokenStateUpdate changes a token's status through
tokenization's one service, which notifies the token requestor (the merchant)."""

from typing import Any

from core import results
from core.fields import AN, UN, Choice
from core.tables import MANDATORY, OPTIONAL, F, Table
from tokenization.models import Token, TokenStatus

from ..cards import tokens
from .common import CARD_REFERENCE, card_for, stamp
from .registry import Answer, Call, group

token = group("token")
TUR = F(
    "tokenUniqueReference",
    AN(64, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="DTKN" + "0" * 60),
    MANDATORY,
)


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
    fields = {
        "cardReference": card.reference,
        "tokens": [_token_fields(t) for t in tokens.tokens_of(card)],
    }
    return results.REQUEST_SUCCEEDED, fields, None


REQUEST = Table(
    [
        CARD_REFERENCE,
        F("tokenRequestorId", AN(64), OPTIONAL, meaning="the wallet or merchant asking"),
    ]
)


@token("TokenRequest", REQUEST, "the issuer's decision on tokenizing its card")
def request(call: Call) -> Answer:
    card = card_for(call)
    decision, why = tokens.decision_for(card)
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
    updated = tokens.token_change_status(
        client_id=call.client_id,
        tur=call.fields["tokenUniqueReference"],
        action=ACTIONS[call.fields["action"]],
        reason=call.fields.get("reason") or "",
        actor=call.actor,
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
    "TokenStateNotification",
    NOTIFICATION,
    "record a token state change the token service reports",
)
def state_notification(call: Call) -> Answer:
    event = tokens.token_notification_record(
        client_id=call.client_id,
        tur=call.fields["tokenUniqueReference"],
        status=call.fields["status"],
        reason=call.fields.get("eventReasonCode") or "",
    )
    fields = {
        "tokenUniqueReference": event.tur,
        "received": True,
        "receivedAt": stamp(event.created_at),
    }
    return results.REQUEST_SUCCEEDED, fields, None


METADATA = Table(
    [TUR, F("cardArtId", UN(9), OPTIONAL, meaning="another card art (admin: Card arts)")]
)


@token("TokenMetadataUpdate", METADATA, "refresh a token's card data and card art; notifies")
def metadata_update(call: Call) -> Answer:
    art = call.fields.get("cardArtId")
    found = tokens.token_metadata_refresh(
        client_id=call.client_id,
        tur=call.fields["tokenUniqueReference"],
        card_art_id=int(art) if art else None,
    )
    return results.REQUEST_SUCCEEDED, _token_fields(found), None


@token("ReplenishTokenLUK", Table([TUR]), "new limited-use key for a cloud-based token")
def replenish_luk(call: Call) -> Answer:
    found, luk = tokens.luk_replenish(
        client_id=call.client_id, tur=call.fields["tokenUniqueReference"]
    )
    fields = {
        "tokenUniqueReference": found.pk,
        "lukId": luk.luk_id,
        "luk": luk.key,
        "validUntil": stamp(luk.valid_until),
        "maxTransactions": luk.max_transactions,
    }
    return results.REQUEST_SUCCEEDED, fields, None
