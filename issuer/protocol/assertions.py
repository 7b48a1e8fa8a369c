"""Client assertions (RFC 7523 section 2.2, private_key_jwt): checks and the single-use store.

Every JOSE operation is jwcrypto's (its ES256 primitive verifies the exact signing input
received); this module decides what jwcrypto is asked to verify:

- Shape first: a compact JWS of three base64url parts, at most ISSUER_MAX_ASSERTION_BYTES. A JWE
  (five parts) or a JSON serialization is a malformed parameter (400 invalid_request).
- Header, before any key is touched: alg exactly ES256 (so none, HS256 keyed with the public key
  and RS256 never reach a verifier), no crit (we understand no extension) and no b64, typ JWT or
  absent, kid naming one of *this client's* registered EC P-256 keys. jku, x5u, jwk and x5c are
  never read: keys come from the registration only. Failing here, or a signature that does not
  verify, is 401 invalid_client: the client did not authenticate.
- Claims, only once the signature holds: iss = sub = client_id, aud exactly the token endpoint
  URL (a single string: an array would let an assertion made for another audience count here),
  exp, iat and jti present, exp - iat at most ISSUER_MAX_ASSERTION_LIFETIME_SECONDS, iat not
  beyond the clock skew in the future, exp not beyond it in the past. Failing here is 400
  invalid_grant.
- jti: `assertion_consume` inserts (client_id, jti) into UsedAssertion inside the transaction
  that issues the token. The unique constraint decides between two workers presenting the same
  assertion: the second insert waits for the first to commit and then fails, so a replay is
  refused on every worker and machine sharing the database. Rows are kept until exp + skew, when
  the assertion would be refused as expired anyway, then purged (issuer.tasks).
"""

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from jwcrypto.common import JWException, base64url_decode
from jwcrypto.jwa import JWA

from core.fields import CONTROL_CHARACTERS
from core.rows import Insert

from ..models import RequestorProfile, UsedAssertion
from . import requestors

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
REQUIRED_CLAIMS = ("iss", "sub", "aud", "exp", "iat", "jti")
MAX_JTI_LENGTH = 255  # UsedAssertion.jti
ES256_SIGNATURE_BYTES = 64
_ES256 = JWA.signing_alg("ES256")
_COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


class OAuthError(Exception):
    """A refusal at the token endpoint (RFC 6749 section 5.2). `description` goes to the client;
    `reason` (defaults to it) goes to the log. invalid_client is 401, everything else 400."""

    def __init__(self, error: str, description: str, *, reason: str = "", client_id: str = ""):
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description
        self.reason = reason or description
        self.client_id = client_id

    @property
    def http_status(self) -> int:
        return 401 if self.error == "invalid_client" else 400


@dataclass(frozen=True)
class VerifiedAssertion:
    client_id: str
    jti: str
    iat: int
    exp: int
    kid: str


def token_endpoint_url() -> str:
    """The `aud` every client assertion must carry."""
    return settings.ISSUER_BASE_URL.rstrip("/") + "/oauth2/token"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # RFC 7515 section 4: a header (or claim set) naming a member twice is refused rather than
    # read "last one wins", so two parsers can never disagree about what was signed.
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ValueError(f"duplicate member {name!r}")
        result[name] = value
    return result


def _json_object(raw: bytes) -> dict[str, Any]:
    value = json.loads(raw, object_pairs_hook=_no_duplicates)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _check_shape(assertion: str) -> dict[str, Any]:
    """The protected header of a compact JWS; invalid_request for anything else."""
    if len(assertion.encode()) > settings.ISSUER_MAX_ASSERTION_BYTES:
        raise OAuthError(
            "invalid_request",
            f"client_assertion exceeds {settings.ISSUER_MAX_ASSERTION_BYTES} bytes",
        )
    if assertion.lstrip().startswith("{"):
        raise OAuthError(
            "invalid_request", "client_assertion must be a compact JWS, not a JSON serialization"
        )
    if assertion.count(".") == 4:
        raise OAuthError("invalid_request", "client_assertion must be a JWS (signed), not a JWE")
    if not _COMPACT_JWS.fullmatch(assertion):
        raise OAuthError("invalid_request", "client_assertion is not a compact JWS")
    try:
        return _json_object(base64url_decode(assertion.split(".", 1)[0]))
    except ValueError as exc:
        raise OAuthError(
            "invalid_request", "client_assertion header is not a JSON object", reason=str(exc)
        ) from exc


def _check_header(header: dict[str, Any]) -> str:
    """The kid, once alg, crit, b64 and typ are acceptable (invalid_client otherwise)."""
    if header.get("alg") != "ES256":
        raise OAuthError(
            "invalid_client",
            "client_assertion alg must be ES256",
            reason=f"alg {str(header.get('alg'))[:20]!r} refused",
        )
    if "crit" in header:
        raise OAuthError("invalid_client", "client_assertion crit header is not supported")
    if "b64" in header:
        raise OAuthError("invalid_client", "client_assertion b64 header is not supported")
    typ = header.get("typ")
    if typ is not None and (not isinstance(typ, str) or typ.upper() != "JWT"):
        raise OAuthError("invalid_client", "client_assertion typ must be JWT")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise OAuthError("invalid_client", "client_assertion header has no kid")
    return kid


def _verify_signature(assertion: str, *, profile: RequestorProfile, kid: str) -> dict[str, Any]:
    try:
        keys = requestors.requestor_signing_keys(profile)
        if kid not in keys and profile.jwks_uri:
            keys = requestors.requestor_signing_keys(profile, refresh=True)
    except requestors.JwksUnavailable as exc:
        raise OAuthError(
            "invalid_client", "the client's JWK set is unavailable", reason=str(exc)
        ) from exc
    key = keys.get(kid)
    if key is None:
        raise OAuthError(
            "invalid_client",
            "client_assertion kid is not a registered signing key of this client",
            reason=f"unknown kid {kid[:80]!r}",
        )
    signing_input, _, encoded_signature = assertion.rpartition(".")
    try:
        signature = base64url_decode(encoded_signature)
        if len(signature) != ES256_SIGNATURE_BYTES:
            raise ValueError("an ES256 signature is r || s, 64 bytes")
        # The JWA primitive over the exact bytes received; jws.JWS() would add nothing here (the
        # header is vetted above) but a deep copy of its header registry on every request.
        _ES256.verify(key, signing_input.encode("ascii"), signature)
    except (InvalidSignature, JWException, ValueError) as exc:
        raise OAuthError(
            "invalid_client",
            "client_assertion signature is invalid",
            reason=f"signature with kid {kid[:80]!r} failed",
        ) from exc
    try:
        return _json_object(base64url_decode(signing_input.split(".")[1]))
    except ValueError as exc:
        raise OAuthError("invalid_grant", "client_assertion claims are not a JSON object") from exc


def _number(claims: dict[str, Any], name: str) -> int:
    value = claims[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OAuthError("invalid_grant", f"client_assertion {name} must be a NumericDate")
    return int(value)


def _check_claims(
    claims: dict[str, Any], *, client_id: str, kid: str, now: int
) -> VerifiedAssertion:
    missing = [name for name in REQUIRED_CLAIMS if name not in claims]
    if missing:
        raise OAuthError(
            "invalid_grant", f"client_assertion lacks required claim(s): {', '.join(missing)}"
        )
    if claims["iss"] != claims["sub"]:
        raise OAuthError("invalid_grant", "client_assertion iss and sub differ")
    if claims["iss"] != client_id:
        raise OAuthError("invalid_grant", "client_assertion iss is not the client_id")
    if claims["aud"] != token_endpoint_url():
        raise OAuthError(
            "invalid_grant",
            f"client_assertion aud must be the token endpoint URL {token_endpoint_url()}",
        )
    jti = claims["jti"]
    if not isinstance(jti, str) or not jti or len(jti) > MAX_JTI_LENGTH:
        raise OAuthError(
            "invalid_grant", f"client_assertion jti must be a string of 1 to {MAX_JTI_LENGTH}"
        )
    if CONTROL_CHARACTERS.search(jti):  # it is stored (UsedAssertion); PostgreSQL refuses NUL
        raise OAuthError("invalid_grant", "client_assertion jti contains control characters")
    exp, iat = _number(claims, "exp"), _number(claims, "iat")
    skew = settings.ISSUER_CLOCK_SKEW_SECONDS
    lifetime = settings.ISSUER_MAX_ASSERTION_LIFETIME_SECONDS
    if exp <= iat:
        raise OAuthError("invalid_grant", "client_assertion exp is not after iat")
    if exp - iat > lifetime:
        raise OAuthError(
            "invalid_grant", f"client_assertion lifetime (exp - iat) exceeds {lifetime} seconds"
        )
    if iat > now + skew:
        raise OAuthError("invalid_grant", "client_assertion iat is in the future")
    if exp + skew <= now:
        raise OAuthError("invalid_grant", "client_assertion has expired")
    if "nbf" in claims and _number(claims, "nbf") > now + skew:
        raise OAuthError("invalid_grant", "client_assertion is not valid yet (nbf)")
    return VerifiedAssertion(client_id=client_id, jti=jti, iat=iat, exp=exp, kid=kid)


def assertion_verify(
    *, profile: RequestorProfile, assertion: str, now: int | None = None
) -> VerifiedAssertion:
    """Check a client assertion for the requestor `profile` (see the module docstring for the
    order and the error of each check). Does not consume the jti: `assertion_consume` does, in
    the transaction that issues the token."""
    now = now if now is not None else int(timezone.now().timestamp())
    kid = _check_header(_check_shape(assertion))
    claims = _verify_signature(assertion, profile=profile, kid=kid)
    return _check_claims(claims, client_id=profile.application.client_id, kid=kid, now=now)


# One jti row per token, as plain SQL (core/rows.py).
_USED: Insert[UsedAssertion] = Insert(
    UsedAssertion,
    'INSERT INTO "issuer_usedassertion" ("client_id", "jti", "expires_at") VALUES (%s, %s, %s) '
    'RETURNING "id"',
)


def assertion_consume(verified: VerifiedAssertion) -> None:
    """Record the assertion's jti as used; invalid_grant if it already was. Call inside the
    transaction that issues the token, as its first write, so a failed issue leaves the jti
    unused. A replay's failed INSERT spoils that transaction, and the invalid_grant raised here
    rolls it back whole (nothing else was written): no savepoint of its own, two round trips
    fewer per token."""
    assert transaction.get_connection().in_atomic_block, "consume inside the issuing transaction"
    expires_at = datetime.fromtimestamp(verified.exp + settings.ISSUER_CLOCK_SKEW_SECONDS, UTC)
    try:
        _USED.insert(
            UsedAssertion(client_id=verified.client_id, jti=verified.jti, expires_at=expires_at)
        )
    except IntegrityError as exc:
        raise OAuthError(
            "invalid_grant",
            "client_assertion was already used (jti replay)",
            reason=f"replayed jti {verified.jti[:80]!r}",
        ) from exc


def used_assertions_purge(*, now: datetime | None = None) -> int:
    """Delete jti rows whose assertion can no longer be valid. Returns how many."""
    deleted, _ = UsedAssertion.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
