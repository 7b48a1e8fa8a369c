"""The issuer's endpoints in the OpenAPI document (core.schema.documented): the token endpoint,
the JWK set, the JOSE API and the cardholder's page.

The API's requests and answers are compact JWEs (`application/jose`): what they carry cannot be
a JSON Schema of the body, so each implemented operation's fields (its table) are listed in the
operation's description and given as a component schema (`issuer.<group>.<Operation>.request`)
of the decrypted payload. Refusals before decryption are the protocol's own JSON
`{"error", "error_description"}` (RFC 6749 5.2, RFC 6750 3.1).
"""

from typing import Any

from django.conf import settings

from core.fields import AN
from core.schema import table_schema
from core.schema.pages import (
    SERVER_ERROR,
    envelope,
    hex_id_parameter,
    html,
    path_parameter,
    response,
)
from core.schema.responses import ENVELOPE_COMPONENT, header
from core.schema.types import description

from .assertions import ASSERTION_TYPE

TOKEN_ERRORS = (
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
)
API_ERRORS = (
    "invalid_request",
    "invalid_token",
    "insufficient_scope",
    "temporarily_unavailable",
    "too_many_requests",
)
# A compact JWS (three base64url parts) and a compact JWE (five; the key part may be empty).
B64URL = "[A-Za-z0-9_-]*"
JWS = rf"^{B64URL}\.{B64URL}\.{B64URL}$"
JWE = rf"^{B64URL}\.{B64URL}\.{B64URL}\.{B64URL}\.{B64URL}$"
JOSE = "application/jose"
ACCESS_TOKEN_SCHEME = "issuerAccessToken"
NO_STORE = {"Cache-Control": header("`no-store`")}
EXAMPLE_JWE = (
    "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMTI4R0NNIiwia2lkIjoiZW5jLTEifQ"
    ".OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGe"
    ".48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6ji"
    ".XFBoMYUZodetZdvTiFvSkQ"
)


def error_schema(errors: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "error": {"type": "string", "enum": list(errors)},
            "error_description": {"type": "string"},
        },
        "required": ["error", "error_description"],
        "additionalProperties": False,
    }


def refusal(text: str, errors: tuple[str, ...], **headers: dict[str, Any]) -> dict[str, Any]:
    return response(text, "application/json", error_schema(errors), {**NO_STORE, **headers})


# --- POST /oauth2/token ------------------------------------------------------------------------


def token_operations() -> dict[str, dict[str, Any]]:
    return {
        "post": {
            "operationId": "issuer_token_post",
            "tags": ["issuer"],
            "summary": "An access token for the issuer API (client credentials, private_key_jwt)",
            "description": "OAuth 2.0 client credentials grant; the client authenticates with a "
            "signed JWT assertion (RFC 7521, 7523). Refusals are RFC 6749 5.2 JSON. See "
            "docs/issuer.md.",
            "security": [],
            "requestBody": {
                "required": True,
                "content": {"application/x-www-form-urlencoded": {"schema": _token_form()}},
            },
            "responses": _token_responses(),
        }
    }


def _token_form() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "grant_type": {"type": "string", "enum": ["client_credentials"]},
            "client_id": {
                "type": "string",
                "maxLength": 100,
                "pattern": r"^[^\x00-\x1f\x7f]+$",
                "description": "The requestor's client id.",
                "example": "oob-client",
            },
            "scope": {
                "type": "string",
                "description": "Scopes separated by spaces (those of the operations to call).",
                "example": "START_OOB CHECK_OOB",
            },
            "client_assertion_type": {"type": "string", "enum": [ASSERTION_TYPE]},
            "client_assertion": {
                "type": "string",
                "pattern": JWS,
                "maxLength": settings.ISSUER_MAX_ASSERTION_BYTES,
                "description": "A JWT signed ES256 with the requestor's registered key (RFC "
                "7523): iss and sub the client id, aud this endpoint's URL, exp, iat, jti.",
            },
        },
        "required": [
            "grant_type",
            "client_id",
            "scope",
            "client_assertion_type",
            "client_assertion",
        ],
        "description": "Other parameters are ignored (RFC 6749 3.2), except `client_secret`, "
        "which is refused: the assertion alone authenticates. No parameter may be repeated or "
        "sent in the query string.",
    }


def _token_responses() -> dict[str, Any]:
    """The token issued (200) and the RFC 6749 5.2 refusals."""
    issued = {
        "type": "object",
        "properties": {
            "access_token": {"type": "string", "pattern": JWS, "description": "ES256 JWT"},
            "token_type": {"type": "string", "enum": ["Bearer"]},
            "expires_in": {"type": "integer", "minimum": 1},
            "scope": {"type": "string"},
        },
        "required": ["access_token", "token_type", "expires_in", "scope"],
        "additionalProperties": False,
    }
    pragma = {"Pragma": header("`no-cache`")}
    return {
        "200": response("The access token.", "application/json", issued, {**NO_STORE, **pragma}),
        "400": refusal(
            "invalid_request (a malformed or oversized form, a missing, repeated or "
            "misplaced parameter, another media type), unsupported_grant_type, "
            "invalid_grant (an expired, replayed or invalid assertion), invalid_scope, "
            "unauthorized_client.",
            TOKEN_ERRORS,
            **pragma,
        ),
        "401": refusal(
            "invalid_client: unknown client or a signature that does not verify.",
            TOKEN_ERRORS,
            **pragma,
            **{"WWW-Authenticate": header('`Bearer error="invalid_client", ...`')},
        ),
        "405": refusal("Use POST.", TOKEN_ERRORS, Allow=header("`POST`"), **pragma),
        "500": envelope(SERVER_ERROR),
    }


# --- GET /.well-known/jwks.json ----------------------------------------------------------------


def jwks_operations() -> dict[str, dict[str, Any]]:
    text = {"type": "string"}
    key = {
        "type": "object",
        "properties": {
            "kty": {"type": "string", "enum": ["EC", "RSA"]},
            "kid": text,
            "use": {"type": "string", "enum": ["sig", "enc"]},
            "alg": {"type": "string", "enum": ["ES256", "RSA-OAEP-256"]},
            "crv": text,
            "x": text,
            "y": text,
            "n": text,
            "e": text,
        },
        "required": ["kty", "kid", "use", "alg"],
        "additionalProperties": False,
    }
    jwks = {
        "type": "object",
        "properties": {"keys": {"type": "array", "items": key}},
        "required": ["keys"],
        "additionalProperties": False,
    }
    return {
        "get": {
            "operationId": "issuer_jwks_get",
            "tags": ["issuer"],
            "summary": "The issuer's public keys (access tokens' signatures, requests' JWE)",
            "description": "Every live signing (EC P-256, ES256) and encryption (RSA, "
            "RSA-OAEP-256) key; a rotated key stays published while anything it made can be "
            "valid.",
            "security": [],
            "responses": {
                "200": response(
                    "The JWK set.",
                    "application/json",
                    jwks,
                    {"Cache-Control": header("`public, max-age=300`")},
                ),
                "500": envelope(SERVER_ERROR),
            },
        }
    }


# --- POST /issuer/v1/{group}/{operation} -------------------------------------------------------


def _implemented() -> dict[tuple[str, str], Any]:
    from .. import operations

    return dict(sorted(operations.IMPLEMENTED.items()))


def api_operations() -> dict[str, dict[str, Any]]:
    implemented = _implemented()
    return {
        "post": {
            "operationId": "issuer_operation_post",
            "tags": ["issuer"],
            "summary": "Call an issuer operation: a JWE request, a JWE answer",
            "description": _api_description(implemented),
            "security": [{ACCESS_TOKEN_SCHEME: sorted({op.scope for op in implemented.values()})}],
            "parameters": _api_parameters(implemented),
            "requestBody": {
                "required": True,
                "content": {
                    JOSE: {
                        "schema": {
                            "type": "string",
                            "pattern": JWE,
                            "maxLength": settings.ISSUER_MAX_JWE_BYTES,
                        },
                        "example": EXAMPLE_JWE,
                    }
                },
            },
            "responses": _api_responses(),
        }
    }


def _api_description(implemented: dict[tuple[str, str], Any]) -> str:
    """The protocol, the order of the checks, and every implemented operation with its fields."""
    listing = []
    for (group, name), op in implemented.items():
        fields = "; ".join(f"`{spec.name}` ({description(spec).rstrip('.')})" for spec in op.table)
        listing.append(
            f"- `{group}/{name}` (scope {op.scope}): {op.summary}. Payload "
            f"`issuer.{group}.{name}.request`: {fields or 'no fields'}."
        )
    return (
        "The body is a compact JWE (RSA-OAEP-256, A128GCM) to the issuer's "
        "encryption key (kid from /.well-known/jwks.json) of a JSON object of the "
        "operation's fields; the answer a compact JWE to the requestor's registered RSA key "
        "of the platform's envelope (`result.code` is the outcome). Checked in order: the "
        "access token (401), the requestor's rate (429), the operation (404), its scope (403), "
        "the media type (415), "
        "the size (413), the JWE (400). See docs/issuer.md. The implemented operations:\n\n"
        + "\n".join(listing)
    )


def _api_parameters(implemented: dict[tuple[str, str], Any]) -> list[dict[str, Any]]:
    """The path's group and operation: the implemented ones."""
    groups = sorted({group for group, _ in implemented})
    names = sorted({name for _, name in implemented})
    return [
        {
            "name": "group",
            "in": "path",
            "required": True,
            "description": "The catalogue group of an implemented operation.",
            "schema": {"type": "string", "enum": groups},
        },
        {
            "name": "operation",
            "in": "path",
            "required": True,
            "description": "The operation (a name of that group: see the list above).",
            "schema": {"type": "string", "enum": names},
        },
    ]


def _api_responses() -> dict[str, Any]:
    """The JWE answer (200), the envelope's refusals and RFC 6750's."""
    both = {
        "anyOf": [error_schema(API_ERRORS), {"$ref": f"#/components/schemas/{ENVELOPE_COMPONENT}"}]
    }
    return {
        "200": response(
            "The answer, a compact JWE of the envelope.",
            JOSE,
            {"type": "string", "pattern": JWE},
            NO_STORE,
        ),
        "400": response(
            "invalid_request: a body that is not a compact JWE to a live issuer key "
            "decrypting to a JSON object, or a Content-Length that is not a number; "
            "the envelope (200.300.404) for card data or secrets in the query string.",
            "application/json",
            both,
        ),
        "401": refusal(
            "invalid_token: no access token (a bare `Bearer` challenge), or one that is "
            "not valid, or whose client is no longer registered.",
            API_ERRORS,
            **{"WWW-Authenticate": header("`Bearer` (RFC 6750 3.1)")},
        ),
        "403": refusal(
            "insufficient_scope: the token lacks the operation's scope.",
            API_ERRORS,
            **{"WWW-Authenticate": header('`Bearer error="insufficient_scope", ...`')},
        ),
        "404": refusal("No such implemented operation.", API_ERRORS),
        "405": refusal("Use POST.", API_ERRORS, Allow=header("`POST`")),
        "413": response(
            f"The body is larger than {settings.ISSUER_MAX_JWE_BYTES} bytes.",
            "application/json",
            both,
        ),
        "415": refusal("The body is not application/jose.", API_ERRORS),
        "429": refusal(
            "too_many_requests: the requestor is over API_RATE_LIMIT in this window "
            "(800.120.100, docs/operations.md, Rate limiting); retry after `Retry-After` "
            "seconds. Checked once the access token is verified.",
            API_ERRORS,
            **{"Retry-After": header("Seconds to wait before retrying.")},
        ),
        "500": envelope(SERVER_ERROR),
        "503": refusal(
            "temporarily_unavailable: the requestor's registered JWK set cannot be read now.",
            API_ERRORS,
        ),
    }


def api_components() -> dict[str, dict[str, Any]]:
    from .. import operations

    implemented = _implemented()
    payloads = {
        f"issuer.{group}.{name}.request": {
            **table_schema(op.table),
            "description": f"The decrypted request of {group}/{name}: {op.summary}.",
        }
        for (group, name), op in implemented.items()
    }
    scheme = {
        "type": "oauth2",
        "description": "An access token from /oauth2/token (client credentials; the client "
        "authenticates with a private_key_jwt assertion, RFC 7523).",
        "flows": {
            "clientCredentials": {"tokenUrl": "/oauth2/token", "scopes": operations.scopes()}
        },
    }
    return {"schemas": payloads, "securitySchemes": {ACCESS_TOKEN_SCHEME: scheme}}


# --- /issuer/oob/{authentication_id}/{token}: the cardholder's page ----------------------------

LINK_SECRET = AN(43, min=43, pattern=r"[A-Za-z0-9_\-]+", what="the link's secret (URL-safe base64)")


def oob_page_operations() -> dict[str, dict[str, Any]]:
    parameters = [
        hex_id_parameter("authentication_id", "The out-of-band authentication's id."),
        path_parameter("token", LINK_SECRET, "The link's secret (only its keyed hash is kept)."),
    ]
    private = {
        "Cache-Control": header("`no-store`"),
        "Referrer-Policy": header("`no-referrer`"),
    }
    not_found = html(
        "This link is not valid (a wrong id and a wrong secret look the same).", private
    )
    # A segment that holds an encoded slash makes another path: the API's JSON 404.
    not_found["content"]["application/json"] = {
        "schema": {"$ref": f"#/components/schemas/{ENVELOPE_COMPONENT}"}
    }
    common = {
        "tags": ["browser pages"],
        "security": [],
        "parameters": parameters,
    }
    page = "A browser page, not an API: the cardholder opens it from the issuer's app."
    return {
        "get": {
            **common,
            "operationId": "issuer_oob_page_get",
            "summary": "The cardholder's page: approve or reject a payment",
            "description": page,
            "responses": {
                "200": html("The Approve / Reject page.", private),
                "404": not_found,
                "405": envelope("Another method: the envelope's 405 (a path under /issuer/)."),
                "409": html("Already answered.", private),
                "410": html("The request expired.", private),
            },
        },
        "post": {
            **common,
            "operationId": "issuer_oob_page_post",
            "summary": "The cardholder's answer",
            "description": page,
            "requestBody": {
                "required": True,
                "content": {
                    "application/x-www-form-urlencoded": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "decision": {"type": "string", "enum": ["approve", "reject"]}
                            },
                        }
                    }
                },
            },
            "responses": {
                "200": html("Approved or rejected.", private),
                "400": html("No decision (Approve or Reject) in the form.", private),
                "404": not_found,
                "405": envelope("Another method: the envelope's 405 (a path under /issuer/)."),
                "409": html("Already answered: nothing changed.", private),
                "410": html("The request expired: nothing changed.", private),
            },
        },
    }
