"""Row locks of tokenization, in one place: a token (or card art) is re-read here with
`select_for_update()` inside the caller's transaction before its status or art changes, and
several tokens are locked in primary-key order. Other apps lock a token through the service
`services.token_lock` (a payment's claim), never here directly."""

from core.lookups import one
from merchants.models import Merchant

from .models import CardArt, Token, TokenStatus


def token_row_lock(reference: str) -> Token:
    return Token.objects.select_for_update().get(pk=reference)


def token_lock_of(*, reference: str, merchant: Merchant | None = None) -> Token | None:
    """The token (of `merchant`, when given), locked; None when there is none."""
    tokens = Token.objects.filter(pk=reference)
    if merchant is not None:
        tokens = tokens.filter(merchant=merchant)
    return one(tokens.select_for_update())


def live_token_lock(*, merchant: Merchant, fingerprint: str) -> Token | None:
    """The merchant's newest ACTIVE or INACTIVE token of the card (by its fingerprint), locked:
    the same card tokenized twice at once answers one token."""
    return one(
        Token.objects.select_for_update()
        .filter(
            merchant=merchant,
            pan_fingerprint=fingerprint,
            status__in=(TokenStatus.ACTIVE, TokenStatus.INACTIVE),
        )
        .order_by("-created_at")
    )


def card_art_lock(pk: int) -> CardArt:
    return CardArt.objects.select_for_update().get(pk=pk)


def live_tokens_of_art_lock(art: CardArt) -> list[Token]:
    """The tokens showing `art` that are not DEACTIVATED, with their merchants, locked in
    primary-key order (the tokens' rows only)."""
    live = art.tokens.exclude(status=TokenStatus.DEACTIVATED).select_related("merchant")
    return list(live.select_for_update(of=("self",)).order_by("pk"))
