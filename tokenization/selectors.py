"""Reads of tokens, card art and assets."""

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from core.errors import NotFound
from core.lookups import one
from merchants.models import Entity
from merchants.selectors import merchants_reachable

from . import results
from .artwork import defaults
from .models import Asset, CardArt, MediaContent, Token


def tokens_reachable(*, entity: Entity) -> QuerySet[Token]:
    """The tokens of the merchants the entity reaches (its own, or its channel's)."""
    return Token.objects.filter(merchant__in=merchants_reachable(entity=entity))


def token_get(*, entity: Entity, reference: str) -> Token:
    """404 (700.150.100) for an unknown token or one the entity does not reach."""
    token = one(
        tokens_reachable(entity=entity)
        .filter(pk=reference)
        .select_related(
            "card_art",
            "card_art__brand_logo",
            "card_art__issuer_logo",
            "card_art__icon",
            "card_art__card_background",
            "card_art__card_background_combined",
        )
    )
    if token is None:
        raise NotFound(results.TOKEN_NOT_FOUND)
    return token


def tokens_by_fingerprint(*, pan_fingerprint: str) -> QuerySet[Token]:
    """The tokens whose funding card has this PAN fingerprint, with their merchants: for the
    card's issuer (issuer.cards.tokens), which reaches tokens by its cards, not by an entity."""
    return Token.objects.filter(pan_fingerprint=pan_fingerprint).select_related("merchant")


def token_by_reference(*, reference: str) -> Token | None:
    """The token with this reference (its TUR), with its merchant, or None: for the card's
    issuer, which checks the token's card is one of the requestor's itself."""
    return Token.objects.filter(pk=reference).select_related("merchant").first()


def card_art_by_id(*, card_art_id: int) -> CardArt | None:
    """The card art with this id (cardArtId), or None."""
    return CardArt.objects.filter(pk=card_art_id).first()


def card_art_for(*, brand: str, card_bin: str) -> CardArt:
    """The card art of a BIN range of the brand, else the brand's default (installed from the
    artwork shipped with the project when a database has none)."""
    ranged = one(
        CardArt.objects.filter(brand=brand, bin_from__lte=card_bin, bin_to__gte=card_bin).exclude(
            bin_from=""
        )
    )
    if ranged is not None:
        return ranged
    default = one(CardArt.objects.filter(Q(brand=brand) & Q(bin_from="")))
    if default is None:
        try:
            with transaction.atomic():
                defaults.install(Asset, MediaContent, CardArt)
        except IntegrityError:
            pass  # installed by a concurrent request
        default = CardArt.objects.get(brand=brand, bin_from="")
    return default


def asset_get(*, asset_id: str) -> Asset:
    asset = one(Asset.objects.filter(pk=asset_id).prefetch_related("contents"))
    if asset is None:
        raise NotFound(results.ASSET_NOT_FOUND)
    return asset
