"""Access tokens: JWTs signed ES256 with the issuer's active signing key (header kid, typ
at+jwt), validated before any API request is processed (signature with a live key, iss, aud,
exp, iat, scope)."""

import json
import time
import uuid
from typing import Any

from cryptography.exceptions import InvalidSignature
from django.conf import settings
from jwcrypto import jws
from jwcrypto.common import JWException, base64url_encode, json_encode
from jwcrypto.jwa import JWA

from . import keys

TYP = "at+jwt"
ES256_SIGNATURE_BYTES = 64
_ES256 = JWA.signing_alg("ES256")


class InvalidToken(Exception):
    pass


def issuer_id() -> str:
    return settings.ISSUER_ID or settings.ISSUER_BASE_URL.rstrip("/")


def issue_access_token(
    *, client_id: str, scope: str, now: int | None = None
) -> tuple[str, dict[str, Any]]:
    """Sign an access token for a client; returns (compact JWT, its claims)."""
    now = now if now is not None else int(time.time())
    signer = keys.active_key(keys.SIG)
    claims = {
        "iss": issuer_id(),
        "sub": client_id,
        "aud": settings.ISSUER_API_AUDIENCE,
        "scope": scope,
        "iat": now,
        "exp": now + settings.ISSUER_ACCESS_TOKEN_SECONDS,
        "jti": uuid.uuid4().hex,
        "client_id": client_id,
    }
    # The JWA primitive over the compact serialisation (as tokens are checked): jwt.JWT would
    # add a deep copy of its header registry and a second JSON round of the claims per token.
    header = {"alg": "ES256", "kid": signer.kid, "typ": TYP}
    signing_input = ".".join(base64url_encode(json_encode(part)) for part in (header, claims))
    signature = _ES256.sign(signer.key, signing_input.encode("ascii"))
    return f"{signing_input}.{base64url_encode(signature)}", claims


def validate_access_token(token: str, *, now: int | None = None) -> dict[str, Any]:
    """The claims of a valid access token; InvalidToken with a reason otherwise."""
    now = now if now is not None else int(time.time())
    if token.count(".") != 2:
        raise InvalidToken("not a compact JWS")
    try:
        header = json.loads(jws.base64url_decode(token.split(".", 1)[0]))
    except (ValueError, JWException) as exc:
        raise InvalidToken("malformed header") from exc
    if header.get("alg") != "ES256" or header.get("typ") != TYP:
        raise InvalidToken("wrong alg or typ")
    if header.get("crit"):
        raise InvalidToken("unsupported crit header")
    signer = keys.key_by_kid(keys.SIG, str(header.get("kid", "")))
    if signer is None:
        raise InvalidToken("unknown signing key")
    # The JWA primitive over the exact bytes received (as the client assertions are checked):
    # the header is vetted above, and jws.JWS() would add a deep copy of its header registry
    # and a second parse of the token on every API request.
    signing_input, _, encoded_signature = token.rpartition(".")
    try:
        signature = jws.base64url_decode(encoded_signature)
        if len(signature) != ES256_SIGNATURE_BYTES:
            raise ValueError("an ES256 signature is r || s, 64 bytes")
        _ES256.verify(signer.key, signing_input.encode("ascii"), signature)
        claims = json.loads(jws.base64url_decode(signing_input.split(".", 1)[1]))
    except (InvalidSignature, JWException, ValueError, UnicodeEncodeError) as exc:
        raise InvalidToken("bad signature") from exc
    if not isinstance(claims, dict):
        raise InvalidToken("the claims are not a JSON object")
    if claims.get("iss") != issuer_id():
        raise InvalidToken("wrong issuer")
    if claims.get("aud") != settings.ISSUER_API_AUDIENCE:
        raise InvalidToken("wrong audience")
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int) or not isinstance(iat, int):
        raise InvalidToken("exp and iat are required")
    if exp <= now:
        raise InvalidToken("expired")
    if iat > now + settings.ISSUER_CLOCK_SKEW_SECONDS:
        raise InvalidToken("issued in the future")
    return claims


def scopes_of(claims: dict[str, Any]) -> set[str]:
    return set(str(claims.get("scope", "")).split())
