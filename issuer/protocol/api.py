"""The authorization API: `POST /issuer/v1/{group}/{Operation}` with a bearer access token and
a JWE body; the answer is a JWE to the requestor's registered RSA key.

The checks run in this order, each before anything else is read or decrypted:

1. the bearer access token (issuer.tokens: signature with a live issuer key, iss, aud, exp):
   401 with `WWW-Authenticate: Bearer error="invalid_token"`, or a bare `Bearer` without one;
2. the operation (issuer.operations): 404 when the catalogue has no such group/Operation;
3. its scope among the token's: 403 `insufficient_scope`;
   then the requestor's rate (API_RATE_LIMIT, core.ratelimit): 429 `too_many_requests` with
   `Retry-After`, the description starting with the result code 800.120.100;
4. the body: `application/jose` (415), at most ISSUER_MAX_JWE_BYTES (413), a compact JWE with
   RSA-OAEP-256 / A128GCM to a live issuer encryption key named by kid, decrypting to a JSON
   object (issuer.jwe): 400 `invalid_request` with the reason.

Those refusals are plain JSON `{"error", "error_description"}`: the requestor has not been
shown to hold the keys yet, so there is nothing to encrypt to. Everything after decryption is
answered HTTP 200 with a JWE whose payload is the platform's envelope; `result.code` in it is
the outcome (parameter errors, unknown ids and declined codes included).

The answer's key is the RSA key registered for the token's client (issuer.requestors), never one
named in the request: a stolen token cannot be used to read answers with the thief's key.
"""

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from jwcrypto import jwk

from core import ratelimit, results
from core.schema import documented

from .. import operations
from . import access_tokens, jwe, keys, openapi, requestors

logger = logging.getLogger("issuer.api")

JOSE = "application/jose"


def _error(status: int, error: str, description: str, **headers: str) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description}, status=status)
    response["Cache-Control"] = "no-store"
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _quoted(text: str) -> str:
    """A value safe inside a quoted WWW-Authenticate parameter (RFC 6750 allows no \\ or ")."""
    return "".join(c for c in text if c not in '"\\' and 0x20 <= ord(c) < 0x7F)


def _invalid_token(description: str) -> JsonResponse:
    challenge = f'Bearer error="invalid_token", error_description="{_quoted(description)}"'
    return _error(401, "invalid_token", description, WWW_Authenticate=challenge)


def _bearer(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip()


def encryption_key_of(client_id: str) -> tuple[str, jwk.JWK] | None:
    """(kid, public RSA key) the answers to this requestor are encrypted to: the first RSA key of
    its registered JWK set (the rule of requestors.requestor_encryption_key), or None when the
    client is no longer registered. JwksUnavailable when its jwks_uri cannot be read."""
    profile = requestors.requestor_get(client_id)
    if profile is None:
        return None
    for kid, key in requestors.requestor_keys(profile).items():
        if key.get("kty") == "RSA" and key.get("use") in (None, "enc"):
            return kid, key
    return None


def _media_type(request: HttpRequest) -> str:
    return request.META.get("CONTENT_TYPE", "").split(";", 1)[0].strip().lower()


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None


@documented(openapi.api_operations, openapi.api_components)
@csrf_exempt
def operation_view(request: HttpRequest, group: str, operation: str) -> HttpResponse:
    if request.method != "POST":
        return _error(405, "invalid_request", "use POST", Allow="POST")

    token = _bearer(request)
    if token is None:
        # RFC 6750 3.1: a request without credentials gets the bare challenge.
        return _error(
            401,
            "invalid_token",
            "an access token is required: Authorization: Bearer <access token>",
            WWW_Authenticate="Bearer",
        )
    try:
        claims = access_tokens.validate_access_token(token)
    except access_tokens.InvalidToken as exc:
        return _invalid_token(f"the access token is not valid: {exc}")
    # Counted once the token is verified (core.ratelimit): per requestor, before any decryption.
    wait = ratelimit.over_limit(
        f"issuer:{claims.get('client_id') or claims.get('sub') or ''}", group="issuer_api"
    )
    if wait is not None:
        refused = _error(
            429,
            "too_many_requests",
            f"{results.RATE_LIMITED.code} {results.RATE_LIMITED.description}",
            Retry_After=str(wait),
        )
        return refused

    op = operations.lookup(group, operation)
    if op is None:
        return _error(404, "invalid_request", f"no operation {group}/{operation}"[:200])
    if op.scope not in access_tokens.scopes_of(claims):
        challenge = f'Bearer error="insufficient_scope", scope="{op.scope}"'
        return _error(
            403,
            "insufficient_scope",
            f"{op.path} needs an access token with scope {op.scope}",
            WWW_Authenticate=challenge,
        )

    if _media_type(request) != JOSE:
        return _error(415, "invalid_request", f"the body must be a compact JWE ({JOSE})")
    limit = settings.ISSUER_MAX_JWE_BYTES
    length = _content_length(request)
    if length is None:
        return _error(400, "invalid_request", "Content-Length is not a number")
    if length > limit:
        return _error(413, "invalid_request", f"the body is larger than {limit} bytes")
    body = request.body
    if len(body) > limit:
        return _error(413, "invalid_request", f"the body is larger than {limit} bytes")

    client_id = str(claims.get("client_id") or claims.get("sub") or "")
    try:
        recipient = encryption_key_of(client_id)
    except requestors.JwksUnavailable as exc:
        logger.warning("requestor %s: %s", client_id, exc)
        return _error(
            503,
            "temporarily_unavailable",
            "the requestor's registered JWK set cannot be read now; try again later",
        )
    if recipient is None:
        return _invalid_token("the token's client is no longer registered")

    try:
        compact = body.decode("ascii")
        _header, payload = jwe.decrypt(compact, _issuer_private_key)
    except UnicodeDecodeError:
        return _error(400, "invalid_request", "the body must be a compact JWE (ASCII)")
    except jwe.JWEError as exc:
        return _error(400, "invalid_request", str(exc))

    answer = operations.perform(op, client_id=client_id, payload=payload)
    kid, key = recipient
    answered = HttpResponse(jwe.encrypt(answer, key, kid), content_type=JOSE)
    answered["Cache-Control"] = "no-store"
    return answered


def _issuer_private_key(kid: str) -> jwk.JWK | None:
    found = keys.key_by_kid(keys.ENC, kid)
    return found.key if found is not None else None
