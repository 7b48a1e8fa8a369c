"""The request table of POST /pay/v3/tokenize (spec "Token (scheme token)") and what its
answers carry."""

from collections.abc import Iterable
from typing import Any

from stdnum import luhn

from core.cards import BRANDS, detect_brand
from core.fields import AN, Choice, N
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given
from core.tables.cards import CARD_NAMES, CARD_ROWS
from core.tables.common import ENTITY_ID, ENTITY_TYPE

from ..models import Suspender, TokenStatus

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

TYPES = ("CT", "DT", "GT", "GA")
TUR = AN(
    64,
    pattern=r"[A-Za-z0-9]+",
    what="a token unique reference (letters and digits)",
    example="DTKN" + "0" * 60,
)
ASSET_ID = AN(64, min=64, pattern=r"[0-9a-f]{64}", what="an asset id", example="a" * 64)
MTID = AN(32, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="tok00001")
MAX_REFERENCES = 100

TOKENIZE = Table(
    [
        ENTITY_ID,
        ENTITY_TYPE,
        F("merchantTransactionId", MTID, C, meaning="required on CT and DT"),
        F("merchant.id", N(15), M),
        F("token.Type", Choice(TYPES), M, aliases=("paymentType",)),
        F("token.Brand", Choice(BRANDS), C, aliases=("paymentBrand",), meaning="detected"),
        *CARD_ROWS,
        F("tokenUniqueReferences", TUR, C, meaning="the token of DT, GT, GA"),
        F("tokenUniqueReferences[n]", TUR, C, meaning="several tokens at once (DT)"),
        F("causedBy", Choice(("CARDHOLDER", "TOKEN_REQUESTOR")), C, meaning="required on DT"),
        F("reasonCode", Choice(("SUSPECTED_FRAUD", "OTHER")), OPT, meaning="DT; OTHER by default"),
    ],
    limits={"tokenUniqueReferences": MAX_REFERENCES},
)


def references(flat: dict[str, Any]) -> list[str]:
    """The token references of a request: `tokenUniqueReferences`, or the indexed ones."""
    single = flat.get("tokenUniqueReferences")
    indexed = [v for k, v in sorted(flat.items()) if k.startswith("tokenUniqueReferences[")]
    return ([single] if single else []) + indexed


def tokenize_rules(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    kind = flat.get("token.Type")
    refs = references(flat)
    if kind in ("CT", "DT") and not given(flat, "merchantTransactionId"):
        yield "merchantTransactionId", f"is required for token.Type {kind}"
    if kind == "CT":
        for name in ("card.number", "card.expiryMonth", "card.expiryYear"):
            if not given(flat, name):
                yield name, "is required for token.Type CT"
        number = flat.get("card.number")
        if number and not luhn.is_valid(number):
            yield "card.number", "is not a valid card number (Luhn check failed)"
        brand = flat.get("token.Brand")
        if number and not brand and not detect_brand(number):
            yield "token.Brand", "is required: the card number's brand cannot be detected"
        if number and brand and detect_brand(number) and detect_brand(number) != brand:
            yield "token.Brand", f"does not match the card number ({detect_brand(number)})"
        for name in ("tokenUniqueReferences", "causedBy", "reasonCode"):
            if given(flat, name):
                yield name, "is not taken by token.Type CT"
        return
    for name in CARD_NAMES + ("token.Brand",):
        if given(flat, name):
            yield name, f"is not taken by token.Type {kind}"
    if not refs:
        yield "tokenUniqueReferences", f"is required for token.Type {kind}"
    if kind in ("GT", "GA") and len(refs) > 1:
        yield "tokenUniqueReferences", f"token.Type {kind} takes one token"
    if given(flat, "tokenUniqueReferences") and len(refs) > 1:
        yield "tokenUniqueReferences", "give one reference, or several as tokenUniqueReferences[n]"
    if kind == "DT" and not given(flat, "causedBy"):
        yield "causedBy", "is required for token.Type DT (CARDHOLDER or TOKEN_REQUESTOR)"
    if kind != "DT":
        for name in ("causedBy", "reasonCode"):
            if given(flat, name):
                yield name, f"is not taken by token.Type {kind}"


TOKENIZE.rules.append(tokenize_rules)

# --- answers -----------------------------------------------------------------------------------

ADDITIONAL_DATA = [
    F("additionalData.brandLogoAssetId", ASSET_ID, attr="card_art.brand_logo_id"),
    F("additionalData.issuerLogoAssetId", ASSET_ID, attr="card_art.issuer_logo_id"),
    F("additionalData.iconAssetId", ASSET_ID, attr="card_art.icon_id"),
    F(
        "additionalData.cardBackgroundCombinedAssetId",
        ASSET_ID,
        attr="card_art.card_background_combined_id",
    ),
    F("additionalData.cardBackgroundAssetId", ASSET_ID, attr="card_art.card_background_id"),
    F(
        "additionalData.foregroundColor",
        AN(6, min=6, pattern=r"[0-9A-Fa-f]{6}", what="6 hexadecimal digits"),
        attr="card_art.foreground_color",
    ),
    F("additionalData.issuerName", AN(64), attr="card_art.issuer_name"),
    F("additionalData.shortDescription", AN(64), attr="card_art.short_description"),
]
TOKEN_EXPIRY = AN(4, min=4, pattern=r"(0[1-9]|1[0-2])[0-9]{2}", what="MMYY", example="1230")
STATUS_TIMESTAMP = AN(
    24,
    pattern=r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z",
    what="YYYY-MM-DDThh:mm:ss.sssZ",
)
TOKEN_ANSWER = Table(
    [
        F("decision", Choice(("APPROVED", "DECLINED", "REQUIRE_ADDITIONAL_AUTHENTICATION"))),
        F("tokenUniqueReference", TUR, attr="pk"),
        F("status", Choice(tuple(TokenStatus.values))),
        F("suspendedBy", Choice(tuple(Suspender.values)), meaning="a list; only when SUSPENDED"),
        F("statusTimestamp", STATUS_TIMESTAMP),
        F("tokenInfo.tokenPanSuffix", N(4, min=4), attr="token_pan_suffix"),
        F("tokenInfo.tokenExpiry", TOKEN_EXPIRY, attr="token_expiry", meaning="MMYY"),
        F("tokenInfo.brand", Choice(BRANDS), attr="brand"),
        F("tokens[n].tokenUniqueReference", TUR),
        F("tokens[n].status", Choice(tuple(TokenStatus.values))),
        *ADDITIONAL_DATA,
    ]
)
