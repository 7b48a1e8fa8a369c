"""A token as the API answers it and the notifications report it: its reference, the token's
own suffix and expiry, status, suspenders, the time of its last status change and its card art
(additionalData)."""

from datetime import UTC
from typing import Any

from .api.tables import TOKEN_ANSWER
from .models import Token, TokenStatus

CARD_ART_ROWS = [row.name for row in TOKEN_ANSWER if row.name.startswith("additionalData.")]


def status_timestamp(token: Token) -> str:
    """statusTimestamp: YYYY-MM-DDThh:mm:ss.sssZ (UTC, milliseconds)."""
    stamp = token.status_timestamp.astimezone(UTC)
    return f"{stamp:%Y-%m-%dT%H:%M:%S}.{stamp.microsecond // 1000:03d}Z"


def token_view(token: Token, *, status: bool = True) -> dict[str, Any]:
    """A token as GT and CT answer it: reference, the token's own suffix and expiry, status and
    the card art (additionalData)."""
    names = ["tokenUniqueReference", "tokenInfo.tokenPanSuffix", "tokenInfo.tokenExpiry"]
    names += ["tokenInfo.brand", *CARD_ART_ROWS]
    flat = TOKEN_ANSWER.render(token, names=names)
    if status:
        flat["status"] = token.status
        flat["statusTimestamp"] = status_timestamp(token)
        if token.status == TokenStatus.SUSPENDED:
            flat["suspendedBy"] = list(token.suspended_by)
    return flat


def notification_body(token: Token, *, reason: str) -> dict[str, Any]:
    """The token status notification (spec "Token status notification (outbound)"); core.outbox
    adds eventId and sequence."""
    flat = TOKEN_ANSWER.render(token, names=CARD_ART_ROWS)
    body: dict[str, Any] = {
        "tokenUniqueReference": token.pk,
        "status": token.status,
        "eventReasonCode": reason or "OTHER",
        "statusTimestamp": status_timestamp(token),
        "additionalData": {name.split(".", 1)[1]: value for name, value in flat.items()},
    }
    if token.status == TokenStatus.SUSPENDED:
        body["suspendedBy"] = list(token.suspended_by)
    return body
