"""Scheme tokens: every write.

| use case | function |
|---|---|
| CT: create a token for a card (the network's decision) | `token_create` |
| DT: delete tokens (DEACTIVATED, for good) | `tokens_delete` |
| activate, suspend, unsuspend, deactivate (bank staff, issuer) | `token_set_status` |
| publish card art (immutable assets) | `asset_publish` |

Status changes lock the token and go through TOKEN_LIFECYCLE, which records the history.
"""

import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from stdnum import luhn

from core import cards, outbox
from core.errors import ApplicationError, NotFound, ParameterError
from merchants.models import Entity, Merchant

from . import results, selectors
from .artwork.defaults import asset_id
from .artwork.png import png_size
from .lock_objects import (
    card_art_lock,
    live_token_lock,
    live_tokens_of_art_lock,
    token_lock_of,
    token_row_lock,
)
from .models import TOKEN_LIFECYCLE, Asset, CardArt, MediaContent, MediaType, Token, TokenStatus
from .render import notification_body

NOTIFICATION_TOPIC = "token.status"
APPROVED, DECLINED = "APPROVED", "DECLINED"
NEEDS_AUTHENTICATION = "REQUIRE_ADDITIONAL_AUTHENTICATION"
# The test-card table of tokenization (docs/api.md, "Tokenization"): the network's decision.
DECLINED_CARDS = frozenset({"4000000000000002", "4000000000009995", "4000000000000127"})
AUTHENTICATION_CARDS = frozenset({"4000000000003220", "5200000000003220"})
# The token PAN's BIN (token ranges differ from the funding card's) by brand; another brand
# keeps the funding card's BIN.
TOKEN_BINS = {"VISA": "489537", "MASTER": "522058", "AMEX": "379999"}


# Who decides a token request for a card before the network does: the platform's own issuer
# registers one for its cards (issuer.apps: the closed loop), so tokenization needs no import
# of it. A decider answers APPROVED, DECLINED or REQUIRE_ADDITIONAL_AUTHENTICATION, or None
# for a card that is not its own.
DECIDERS: list[Callable[[str], str | None]] = []


def decider_register(decider: Callable[[str], str | None]) -> None:
    if decider not in DECIDERS:
        DECIDERS.append(decider)


def decision_for(number: str) -> str:
    for decider in DECIDERS:
        decided = decider(number)
        if decided is not None:
            return decided
    if number in DECLINED_CARDS:
        return DECLINED
    if number in AUTHENTICATION_CARDS:
        return NEEDS_AUTHENTICATION
    return APPROVED


@dataclass(frozen=True)
class FundingCard:
    number: str
    expiry_month: str
    expiry_year: str
    holder: str = ""

    def __repr__(self) -> str:
        return f"FundingCard(bin={self.number[:6]}, last4={self.number[-4:]})"


def token_create(
    *,
    merchant: Merchant,
    entity: Entity,
    card: FundingCard,
    brand: str,
    now: datetime | None = None,
) -> tuple[str, Token | None]:
    """CT: the network's decision for `card` and, unless DECLINED, the token: ACTIVE when
    APPROVED, INACTIVE until activated when additional authentication is required. The same
    card tokenized again by the merchant answers its existing ACTIVE (or INACTIVE) token."""
    decision = decision_for(card.number)
    if decision == DECLINED:
        return decision, None
    fingerprint = cards.fingerprint(card.number)
    moment = now or timezone.now()
    with transaction.atomic():
        existing = live_token_lock(merchant=merchant, fingerprint=fingerprint)
        if existing is not None:
            return (APPROVED if existing.status == TokenStatus.ACTIVE else decision), existing
        status = TokenStatus.ACTIVE if decision == APPROVED else TokenStatus.INACTIVE
        token = Token(
            merchant=merchant,
            entity=entity,
            card_art=selectors.card_art_for(brand=brand, card_bin=card.number[:6]),
            status=status,
            status_timestamp=moment,
            decision=decision,
            brand=brand,
            pan_ciphertext=cards.encrypt_pan(card.number),
            pan_fingerprint=fingerprint,
            card_bin=card.number[:6],
            card_last4=card.number[-4:],
            card_holder=card.holder,
            card_expiry_month=card.expiry_month,
            card_expiry_year=card.expiry_year,
            token_bin=TOKEN_BINS.get(brand, card.number[:6]),
            token_pan_suffix=_token_suffix(),
            token_expiry=_token_expiry(moment),
        )
        token.save(force_insert=True)
        TOKEN_LIFECYCLE.record(token, "", status, actor=f"entity:{entity.entity_id}")
    return decision, token


def _token_suffix() -> str:
    """The last four of the token's own PAN (a random 16-digit number with a valid Luhn digit;
    only its BIN and last four are kept)."""
    body = "".join(secrets.choice("0123456789") for _ in range(15))
    return (body + luhn.calc_check_digit(body))[-4:]


def _token_expiry(moment: datetime) -> str:
    """MMYY, three years on: tokens have their own expiry, independent of the card's."""
    return f"{moment.month:02d}{(moment.year + 3) % 100:02d}"


def tokens_delete(
    *, tokens: Sequence[Token], caused_by: str, reason: str, actor: str
) -> list[Token]:
    """DT: every token DEACTIVATED, for good (one already DEACTIVATED stays so)."""
    deleted = []
    with transaction.atomic():
        for reference in sorted(t.pk for t in tokens):
            token = token_row_lock(reference)
            if token.status != TokenStatus.DEACTIVATED:
                _apply(token, TokenStatus.DEACTIVATED, reason=reason, actor=actor, suspended=[])
            deleted.append(token)
    return deleted


def token_set_status(
    *,
    reference: str,
    action: str,
    actor: str,
    reason: str = "",
    suspender: str = "",
    now: datetime | None = None,
) -> Token:
    """activate (INACTIVE -> ACTIVE), suspend (ACTIVE or SUSPENDED: `suspender` added),
    unsuspend (`suspender` removed; ACTIVE when none remains), deactivate (any -> DEACTIVATED).
    Refused with 700.150.200 where the lifecycle does not allow it."""
    with transaction.atomic():
        token = token_lock_of(reference=reference)
        if token is None:
            raise NotFound(results.TOKEN_NOT_FOUND)
        suspended = list(token.suspended_by)
        if action == "activate":
            if token.status != TokenStatus.INACTIVE:
                raise ApplicationError(
                    results.TOKEN_STATUS_NOT_ALLOWED,
                    f"only an INACTIVE token is activated (this one is {token.status})",
                )
            target = TokenStatus.ACTIVE
        elif action == "suspend":
            if not suspender:
                raise ParameterError([("suspendedBy", None, "names who suspends the token")])
            if token.status == TokenStatus.INACTIVE:
                TOKEN_LIFECYCLE.check(token.status, TokenStatus.SUSPENDED)
            suspended = sorted({*suspended, suspender})
            target = TokenStatus.SUSPENDED
        elif action == "unsuspend":
            if token.status != TokenStatus.SUSPENDED or suspender not in suspended:
                raise ApplicationError(
                    results.TOKEN_STATUS_NOT_ALLOWED,
                    f"the token is not suspended by {suspender or 'anyone named'}",
                )
            suspended = [s for s in suspended if s != suspender]
            target = TokenStatus.SUSPENDED if suspended else TokenStatus.ACTIVE
        elif action == "deactivate":
            target, suspended = TokenStatus.DEACTIVATED, []
        else:
            raise ParameterError(
                [("action", action, "is not activate, suspend, unsuspend or deactivate")]
            )
        _apply(token, target, reason=reason, actor=actor, suspended=suspended, now=now)
        return token


def _apply(
    token: Token,
    target: str,
    *,
    reason: str,
    actor: str,
    suspended: list[str],
    now: datetime | None = None,
) -> None:
    token.suspended_by = suspended if target == TokenStatus.SUSPENDED else []
    token.status_timestamp = now or timezone.now()
    TOKEN_LIFECYCLE.apply(
        token,
        target,
        actor=actor,
        save_fields=["suspended_by", "status_timestamp"],
        history={"reason": reason, "suspended_by": token.suspended_by},
    )
    notify(token, reason=reason)


def notify(token: Token, *, reason: str) -> None:
    """In the change's transaction: a token status notification to the token requestor (the
    merchant), when it has a notification URL (core.outbox delivers it after commit)."""
    merchant = token.merchant
    if not merchant.notification_url:
        return
    outbox.enqueue(
        topic=NOTIFICATION_TOPIC,
        subject=token.pk,
        url=merchant.notification_url,
        credential=str(merchant.entity_id),
        body=notification_body(token, reason=reason),
    )


def asset_publish(*, description: str, contents: Iterable[tuple[str, bytes]]) -> Asset:
    """Publish card art: the same contents are the same asset (its id is their SHA-256), so a
    published asset never changes. PNGs are checked (a real PNG with alpha, sensible size);
    anything else is refused with 700.150.500."""
    items = list(contents)
    checked: list[tuple[str, bytes, tuple[int, int] | None]] = []
    for media_type, data in items:
        if media_type not in MediaType.values:
            raise ApplicationError(
                results.ARTWORK_INVALID, f"{media_type} is not a media type of card art"
            )
        if media_type != MediaType.PNG:
            check_media(media_type, data)
        checked.append((media_type, data, png_size(data) if media_type == MediaType.PNG else None))
    key = asset_id(items)
    with transaction.atomic():
        asset, created = Asset.objects.get_or_create(pk=key, defaults={"description": description})
        if created:
            for position, (media_type, data, size) in enumerate(checked):
                MediaContent.objects.create(
                    asset=asset,
                    type=media_type,
                    data=data,
                    width=size[0] if size else None,
                    height=size[1] if size else None,
                    position=position,
                )
    return asset


def token_lock(*, merchant: Merchant, reference: str) -> Token:
    """A token of `merchant`, locked in the caller's transaction (a payment's claim): a status
    change cannot cross the payment. 404 (700.150.100) for any other merchant's or an unknown
    reference."""
    token = token_lock_of(reference=reference, merchant=merchant)
    if token is None:
        raise NotFound(results.TOKEN_NOT_FOUND)
    return token


@dataclass(frozen=True)
class CardArtChange:
    """What bank staff set on a card product's art: the texts, and new artwork (PNG bytes) for
    any of the four images (None keeps the published asset)."""

    name: str
    brand: str
    bin_from: str
    bin_to: str
    issuer_name: str
    short_description: str
    foreground_color: str
    brand_logo: bytes | None = None
    issuer_logo: bytes | None = None
    icon: bytes | None = None
    card_background_combined: bytes | None = None
    # Published with the background image as more media contents of its asset, when a card
    # product has them: vector artwork (application/pdf or image/svg+xml) and terms
    # (text/plain or text/html).
    background_vector: tuple[str, bytes] | None = None
    terms: tuple[str, bytes] | None = None


IMAGES = ("brand_logo", "issuer_logo", "icon", "card_background_combined")


def _png_of(asset: Asset | None) -> bytes | None:
    content = asset.contents.filter(type=MediaType.PNG).first() if asset else None
    return bytes(content.data) if content else None


def check_media(media_type: str, data: bytes) -> None:
    """Vector artwork and terms: what their media type says they are (700.150.500 otherwise,
    its description saying what is wrong: "is not a PDF document")."""
    if media_type == MediaType.PDF and not data.startswith(b"%PDF-"):
        raise ApplicationError(results.ARTWORK_INVALID, "is not a PDF document")
    if media_type == MediaType.SVG and b"<svg" not in data[:4096]:
        raise ApplicationError(results.ARTWORK_INVALID, "is not an SVG image")
    if media_type in (MediaType.TEXT, MediaType.HTML):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise ApplicationError(results.ARTWORK_INVALID, "is not UTF-8 text") from None
    if len(data) > 2 * 1024 * 1024:
        raise ApplicationError(results.ARTWORK_INVALID, "is larger than 2048 KiB")


def card_art_save(*, card_art_id: int | None, change: CardArtChange) -> CardArt:
    """Create or change a card product's art. New artwork is published as new assets (a
    published asset never changes); the card art then names them. A PNG that is not valid
    refuses the whole change (700.150.500, its description naming the image)."""
    with transaction.atomic():
        art = card_art_lock(card_art_id) if card_art_id is not None else CardArt()
        for name in ("name", "brand", "bin_from", "bin_to", "issuer_name", "short_description"):
            setattr(art, name, getattr(change, name))
        art.foreground_color = change.foreground_color.upper()
        extras = [item for item in (change.background_vector, change.terms) if item]
        for image in IMAGES:
            data = getattr(change, image)
            if image == "card_background_combined" and extras:
                data = data or _png_of(art.card_background_combined)
                contents = [(MediaType.PNG, data), *extras] if data else extras
                art.card_background_combined = asset_publish(
                    description=f"{change.name}: card background", contents=contents
                )
                continue
            if data is None:
                continue
            try:
                asset = asset_publish(
                    description=f"{change.name}: {image.replace('_', ' ')}",
                    contents=[(MediaType.PNG, data)],
                )
            except ApplicationError as exc:
                raise ApplicationError(
                    results.ARTWORK_INVALID, f"{image.replace('_', ' ')} {exc.description}"
                ) from None
            setattr(art, image, asset)
        art.save()
        # Every live token showing this art tells its requestor (new assets, texts).
        for token in live_tokens_of_art_lock(art):
            token.card_art = art
            notify(token, reason="OTHER")
        return art
