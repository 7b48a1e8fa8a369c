"""The OAuth 2.0 token endpoint (`POST /oauth2/token`) and the issuer JWK set
(`GET /.well-known/jwks.json`).

A custom token view, not django-oauth-toolkit's TokenView: oauthlib (under DOT) has no
server-side support for RFC 7523 client assertions (client_assertion / client_assertion_type),
and its client-credentials flow issues opaque tokens, where the spec wants ES256 JWTs. DOT still
keeps the client registry (Application, with a RequestorProfile beside it), its admin, and one
AccessToken row per issued token for audit (token = the JWT's jti, which is not a usable token).

The flow: `token_request_parse` checks the form (RFC 6749 sections 3.2 and 4.4, RFC 7521 section
4.2), `token_grant` authenticates the client by its assertion (issuer.assertions), checks the
scope, and in one transaction consumes the jti, signs the access token (issuer.tokens) and writes
the audit row. Every refusal is logged with the client_id and the reason, never the assertion.
"""

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.models import AccessToken, Application

from core.fields import CONTROL_CHARACTERS
from core.rows import Insert
from core.schema import documented

from . import access_tokens, keys, openapi, requestors
from .assertions import ASSERTION_TYPE, OAuthError, assertion_consume, assertion_verify

logger = logging.getLogger("issuer.oauth")

GRANT_TYPE = "client_credentials"
FORM = "application/x-www-form-urlencoded"
PARAMETERS = (
    "grant_type",
    "client_id",
    "scope",
    "client_assertion_type",
    "client_assertion",
    "client_secret",
)
MAX_FIELDS = 20
# The assertion plus room for the other fields; a larger body is refused before it is parsed.
FORM_OVERHEAD_BYTES = 2048


@dataclass(frozen=True)
class TokenRequest:
    client_id: str
    scope: list[str]
    assertion: str


def _max_body() -> int:
    # The assertion is form-encoded in the body; base64url and "." need no escaping.
    return int(settings.ISSUER_MAX_ASSERTION_BYTES) + FORM_OVERHEAD_BYTES


def _too_large() -> str:
    return (
        f"the request exceeds the size limit (client_assertion at most "
        f"{settings.ISSUER_MAX_ASSERTION_BYTES} bytes)"
    )


def token_request_parse(request: HttpRequest) -> TokenRequest:
    """The token request's fields; OAuthError (invalid_request, unsupported_grant_type) when
    the form is not a client-credentials request authenticated by a client assertion alone."""
    if request.content_type != FORM:
        raise OAuthError("invalid_request", f"the request body must be {FORM}")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > _max_body():
        raise OAuthError("invalid_request", _too_large())
    body = request.body
    if len(body) > _max_body():
        raise OAuthError("invalid_request", _too_large())
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            max_num_fields=MAX_FIELDS,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise OAuthError("invalid_request", "the form body cannot be parsed") from exc
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        fields.setdefault(name, []).append(value)
    client_ids = fields.get("client_id", [])
    client_id = client_ids[0][:100] if len(client_ids) == 1 else ""
    if CONTROL_CHARACTERS.search(client_id):
        # Before anything looks it up (PostgreSQL refuses NUL in text) or logs it.
        raise OAuthError("invalid_request", "client_id contains control characters")

    def refuse(error: str, description: str) -> OAuthError:
        return OAuthError(error, description, client_id=client_id)

    in_query = sorted(set(PARAMETERS) & request.GET.keys())
    if in_query:
        raise refuse("invalid_request", f"send {', '.join(in_query)} in the body, not the URL")
    repeated = sorted(name for name in PARAMETERS if len(fields.get(name, [])) > 1)
    if repeated:
        raise refuse("invalid_request", f"parameter(s) repeated: {', '.join(repeated)}")
    one = {name: values[0] for name, values in fields.items() if len(values) == 1}
    if not one.get("grant_type"):
        raise refuse("invalid_request", "grant_type is required")
    if one["grant_type"] != GRANT_TYPE:
        raise refuse("unsupported_grant_type", f"only grant_type={GRANT_TYPE} is supported")
    if "client_secret" in one or "HTTP_AUTHORIZATION" in request.META:
        raise refuse(
            "invalid_request",
            "authenticate with client_assertion only (no client_secret, no Authorization header)",
        )
    missing = [
        name
        for name in ("client_id", "scope", "client_assertion_type", "client_assertion")
        if not one.get(name, "").strip()
    ]
    if missing:
        raise refuse("invalid_request", f"missing parameter(s): {', '.join(missing)}")
    if one["client_assertion_type"] != ASSERTION_TYPE:
        raise refuse("invalid_request", f"client_assertion_type must be {ASSERTION_TYPE}")
    scope = requestors.scopes_parse(one["scope"])
    if not scope:
        raise refuse("invalid_request", "scope is required")
    return TokenRequest(client_id=one["client_id"], scope=scope, assertion=one["client_assertion"])


# The audit row of every token, as plain SQL (core/rows.py) rather than AccessToken.save(): the
# token path compiles nothing per request (tests/benchmarks/test_statements.py), and the row is
# the one django-oauth-toolkit's save() writes (each field's pre_save, its token checksum
# included; tests/core/test_rows.py). A column a later version adds fails at import.
ISSUED: Insert[AccessToken] = Insert(
    AccessToken,
    'INSERT INTO "oauth2_provider_accesstoken" ("user_id", "source_refresh_token_id", "token", '
    '"token_checksum", "id_token_id", "application_id", "expires", "scope", "resource", '
    '"created", "updated") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING "id"',
)


def token_grant(*, client_id: str, scope: list[str], assertion: str) -> dict[str, Any]:
    """Authenticate a requestor by its client assertion and issue an access token for `scope`.

    invalid_client (401) for an unknown client or a failed signature, invalid_grant for an
    expired, replayed or claim-violating assertion, invalid_scope for a scope the requestor may
    not have. The jti is consumed, the token signed and its audit row written in one transaction:
    a replay racing this request on another worker waits on the jti's unique index and fails."""
    profile = requestors.requestor_get(client_id)
    if profile is None:
        raise OAuthError(
            "invalid_client",
            "client authentication failed",
            reason="unknown client or no requestor profile",
            client_id=client_id,
        )
    application = profile.application
    if application.authorization_grant_type != Application.GRANT_CLIENT_CREDENTIALS:
        raise OAuthError(
            "unauthorized_client",
            "this client may not use client_credentials",
            client_id=client_id,
        )
    try:
        verified = assertion_verify(profile=profile, assertion=assertion)
    except OAuthError as exc:
        exc.client_id = client_id
        raise
    refused = [name for name in scope if name not in profile.scope_set]
    refused += [name for name in scope if name not in requestors.known_scopes()]
    if refused:
        raise OAuthError(
            "invalid_scope",
            f"scope not allowed for this client: {' '.join(sorted(set(refused)))}",
            client_id=client_id,
        )
    granted = " ".join(scope)
    with transaction.atomic():
        try:
            assertion_consume(verified)
        except OAuthError as exc:
            exc.client_id = client_id
            raise
        token, claims = access_tokens.issue_access_token(client_id=client_id, scope=granted)
        ISSUED.insert(
            AccessToken(
                application=application,
                token=claims["jti"],
                expires=datetime.fromtimestamp(claims["exp"], UTC),
                scope=granted,
            )
        )
    logger.info(
        "token issued: client_id=%r scope=%r assertion_kid=%r access_token_jti=%s",
        client_id,
        granted,
        verified.kid,
        claims["jti"],
    )
    return {
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": settings.ISSUER_ACCESS_TOKEN_SECONDS,
        "scope": granted,
    }


def _no_store(response: HttpResponse) -> HttpResponse:
    # RFC 6749 section 5.1: token responses must not be cached.
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    return response


def _refusal(exc: OAuthError) -> HttpResponse:
    response = JsonResponse(
        {"error": exc.error, "error_description": exc.description}, status=exc.http_status
    )
    if exc.http_status == 401:
        # RFC 6749 section 5.2 wants a challenge with a 401. No scheme is registered for client
        # assertions; this is the one oauthlib (and so DOT's own token view) sends.
        description = exc.description.replace("\\", "").replace('"', "'")
        response["WWW-Authenticate"] = (
            f'Bearer error="{exc.error}", error_description="{description}"'
        )
    return _no_store(response)


@documented(openapi.token_operations)
@csrf_exempt  # a machine-to-machine endpoint: no cookies, the assertion authenticates
def token_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        response = _refusal(OAuthError("invalid_request", "use POST"))
        response.status_code = 405
        response["Allow"] = "POST"
        return response
    try:
        parsed = token_request_parse(request)
        answer = token_grant(
            client_id=parsed.client_id, scope=parsed.scope, assertion=parsed.assertion
        )
    except OAuthError as exc:
        logger.info(
            "token refused: client_id=%r error=%s reason=%s",
            exc.client_id,
            exc.error,
            exc.reason,
        )
        return _refusal(exc)
    return _no_store(JsonResponse(answer))


@documented(openapi.jwks_operations)
@csrf_exempt  # read-only: another method is its own 405, not the CSRF check's 403
def jwks_view(request: HttpRequest) -> HttpResponse:
    """The issuer's public keys: every live signing and encryption key (rotation keeps an old
    one published until no token it signed can still be valid)."""
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, HEAD"
        return response
    response = JsonResponse(keys.published_jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response
