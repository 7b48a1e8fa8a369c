"""Requestor clients: registration (the `register_requestor` command and the admin both call
`requestor_register`) and their public keys.

A requestor's JWK set must hold public keys only, each with a kid: at least one EC P-256 key for
its client assertions (ES256) and one RSA key of 2048 bits or more that the issuer encrypts
answers to (RSA-OAEP-256). The set is stored on the RequestorProfile, or fetched from its
jwks_uri (a short timeout, no redirects, a size bound) and kept in Django's cache for
`JWKS_CACHE_SECONDS`, so every worker shares one copy and a requestor's rotation shows within
five minutes.
"""

import hashlib
import json
import re
import secrets
import time
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import requests
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from jwcrypto import jwk
from jwcrypto.common import JWException, base64url_decode
from oauth2_provider.models import Application

from core import outbound
from core.errors import Unavailable
from core.prepared import TEXT, PreparedRead

from .. import results
from ..lock_objects import application_lock
from ..models import RequestorProfile

MIN_RSA_BITS = 2048
# Members that only a private (or symmetric) JWK carries (RFC 7518 section 6).
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
JWKS_CACHE_SECONDS = 300
JWKS_FETCH_TIMEOUT_SECONDS = (2.0, 3.0)  # connect, read
JWKS_MAX_BYTES = 65536
# An unknown kid may mean the requestor rotated since we cached its set: fetch again, but not
# more often than this, so a stream of made-up kids cannot turn us into a request amplifier.
JWKS_REFETCH_AFTER_SECONDS = 30
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_SCOPE_SEPARATORS = re.compile(r"[\s+]+")


class JwksUnavailable(Unavailable):
    """A requestor's jwks_uri could not be fetched or did not hold a valid JWK set. The message
    (the URI and the reason) is for the log; the requestor sees the result code's description."""

    def __init__(self, reason: str):
        super().__init__(results.REQUESTOR_KEYS_UNAVAILABLE)
        self.args = (reason,)


# --- Scopes ------------------------------------------------------------------------------------


_KNOWN_SCOPES: dict[frozenset[tuple[str, str]], frozenset[str]] = {}


def known_scopes() -> frozenset[str]:
    """The scopes of the implemented operations (issuer.operations: the catalogue decides).
    Asked on every token request: kept per set of registered operations."""
    from ..operations import IMPLEMENTED, scopes

    registered = frozenset(IMPLEMENTED)
    known = _KNOWN_SCOPES.get(registered)
    if known is None:
        known = _KNOWN_SCOPES[registered] = frozenset(scopes())
    return known


def scopes_parse(value: str) -> list[str]:
    """Scope names in request order, without duplicates. Separated by spaces, or by "+" when a
    client plus-encoded them once more than form encoding already does (no scope name holds a
    "+")."""
    seen: dict[str, None] = {}
    for name in _SCOPE_SEPARATORS.split(value.strip()):
        if name:
            seen.setdefault(name, None)
    return list(seen)


def scopes_validate(value: str) -> str:
    """The normalised scope string a requestor may be granted; ValidationError otherwise."""
    names = scopes_parse(value)
    if not names:
        raise ValidationError("at least one scope is required", code="scopes")
    unknown = [name for name in names if name not in known_scopes()]
    if unknown:
        raise ValidationError(
            f"unknown scope(s): {', '.join(unknown)} (known: {', '.join(sorted(known_scopes()))})",
            code="scopes",
        )
    return " ".join(names)


# --- JWK sets ----------------------------------------------------------------------------------


def _is_signing_key(key: jwk.JWK) -> bool:
    return key.get("kty") == "EC" and key.get("crv") == "P-256" and key.get("use") in (None, "sig")


def _is_encryption_key(key: jwk.JWK) -> bool:
    return key.get("kty") == "RSA" and key.get("use") in (None, "enc")


def _rsa_bits(data: dict[str, Any]) -> int:
    modulus = base64url_decode(str(data["n"]))
    return int.from_bytes(modulus, "big").bit_length()


def _check_one(index: int, data: Any) -> jwk.JWK:
    where = f"key {index + 1}"
    if not isinstance(data, dict):
        raise ValidationError(f"{where} is not a JSON object", code="jwks")
    kid = data.get("kid")
    if not isinstance(kid, str) or not kid:
        raise ValidationError(f"{where} has no kid", code="jwks")
    where = f"key {kid!r}"
    private = sorted(PRIVATE_MEMBERS & data.keys())
    if private:
        raise ValidationError(
            f"{where} carries private key material ({', '.join(private)}): register the public "
            "key only",
            code="jwks",
        )
    kty = data.get("kty")
    if kty not in ("EC", "RSA"):
        raise ValidationError(f"{where}: kty must be EC or RSA, not {kty!r}", code="jwks")
    try:
        key = jwk.JWK(**data)
        # jwcrypto builds the key object lazily; this checks the point is on the curve now.
        key.export_to_pem()
    except (JWException, ValueError, TypeError, KeyError) as exc:
        raise ValidationError(f"{where} is not a valid JWK: {exc}", code="jwks") from exc
    if key.has_private:
        raise ValidationError(f"{where} carries private key material", code="jwks")
    if kty == "EC":
        if data.get("crv") != "P-256":
            raise ValidationError(f"{where}: EC keys must be on P-256 (ES256)", code="jwks")
        if data.get("alg") not in (None, "ES256"):
            raise ValidationError(f"{where}: an EC key's alg must be ES256", code="jwks")
    else:
        bits = _rsa_bits(data)
        if bits < MIN_RSA_BITS:
            raise ValidationError(
                f"{where}: RSA key of {bits} bits; at least {MIN_RSA_BITS} are required",
                code="jwks",
            )
        if data.get("alg") not in (None, "RSA-OAEP-256"):
            raise ValidationError(f"{where}: an RSA key's alg must be RSA-OAEP-256", code="jwks")
    return key


def jwks_validate(jwks: Any) -> dict[str, jwk.JWK]:
    """The keys of a requestor JWK set by kid; ValidationError with a clear reason otherwise."""
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list) or not jwks["keys"]:
        raise ValidationError('a JWK set is a JSON object {"keys": [...]}', code="jwks")
    found: dict[str, jwk.JWK] = {}
    for index, data in enumerate(jwks["keys"]):
        key = _check_one(index, data)
        kid = str(data["kid"])
        if kid in found:
            raise ValidationError(f"kid {kid!r} appears twice", code="jwks")
        found[kid] = key
    if not any(_is_signing_key(k) for k in found.values()):
        raise ValidationError(
            "the JWK set needs an EC P-256 key (use sig or absent) to verify client assertions",
            code="jwks",
        )
    if not any(_is_encryption_key(k) for k in found.values()):
        raise ValidationError(
            "the JWK set needs an RSA key (use enc or absent) to encrypt answers to",
            code="jwks",
        )
    return found


def jwks_uri_validate(uri: str) -> str:
    """HTTPS to a public host (core.outbound.url_problem: no user name, a host every parser
    reads alike), or plain HTTP on the loopback interface where NOTIFICATION_ALLOW_INSECURE_URLS
    allows it (local development and tests)."""
    problem = outbound.url_problem(uri)
    parts = urlsplit(uri)
    if not problem and parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
        problem = "must be an https URL"
    if problem:
        message = "jwks_uri must be an https URL" if "https" in problem else f"jwks_uri {problem}"
        raise ValidationError(message, code="jwks_uri")
    return uri


def jwks_fetch(uri: str) -> dict[str, Any]:
    """GET a requestor's JWK set (core.outbound: no redirects, the host resolved to a public
    address at this moment, bounded size and time) and validate it."""
    try:
        answer = outbound.call(
            "GET",
            uri,
            timeout=JWKS_FETCH_TIMEOUT_SECONDS,
            headers={"Accept": "application/jwk-set+json, application/json"},
            max_bytes=JWKS_MAX_BYTES,
        )
    except outbound.Refused as exc:
        raise JwksUnavailable(f"{uri}: {exc}") from exc
    except (requests.RequestException, OSError) as exc:
        raise JwksUnavailable(f"{uri}: {exc.__class__.__name__}") from exc
    if answer.status != 200:
        raise JwksUnavailable(f"{uri} answered HTTP {answer.status}")
    body = answer.body
    if len(body) > JWKS_MAX_BYTES:
        raise JwksUnavailable(f"{uri}: the JWK set exceeds {JWKS_MAX_BYTES} bytes")
    try:
        jwks = json.loads(body)
        jwks_validate(jwks)
    except (ValueError, ValidationError) as exc:
        raise JwksUnavailable(f"{uri}: not a valid requestor JWK set: {_message(exc)}") from exc
    return jwks


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc)


def _cache_key(uri: str) -> str:
    return "issuer:requestor-jwks:" + hashlib.sha256(uri.encode()).hexdigest()


def _remote_jwks(uri: str, *, refresh: bool = False) -> dict[str, Any]:
    cached = cache.get(_cache_key(uri))
    if cached is not None:
        age = time.time() - cached["fetched_at"]
        if not refresh or age < JWKS_REFETCH_AFTER_SECONDS:
            return dict(cached["jwks"])
    jwks = jwks_fetch(uri)
    cache.set(_cache_key(uri), {"jwks": jwks, "fetched_at": time.time()}, JWKS_CACHE_SECONDS)
    return jwks


@lru_cache(maxsize=256)
def _parsed(jwks_json: str) -> dict[str, jwk.JWK]:
    # Parsing keys costs more than verifying a signature; the set's JSON is a stable cache key.
    return jwks_validate(json.loads(jwks_json))


def requestor_keys(profile: RequestorProfile, *, refresh: bool = False) -> dict[str, jwk.JWK]:
    """The requestor's public keys by kid: its stored set, or the one at its jwks_uri (cached;
    `refresh` asks for a new fetch when the cached copy is older than 30 seconds).
    JwksUnavailable if the URI cannot give a valid set."""
    jwks = _remote_jwks(profile.jwks_uri, refresh=refresh) if profile.jwks_uri else profile.jwks
    try:
        return dict(_parsed(json.dumps(jwks, sort_keys=True)))
    except ValidationError as exc:
        # Only a row written around requestor_register (a shell, a raw SQL fix) gets here.
        raise JwksUnavailable(f"stored JWK set is invalid: {_message(exc)}") from exc


def requestor_signing_keys(
    profile: RequestorProfile, *, refresh: bool = False
) -> dict[str, jwk.JWK]:
    """The EC P-256 keys that may sign this requestor's client assertions, by kid."""
    keys = requestor_keys(profile, refresh=refresh)
    return {kid: key for kid, key in keys.items() if _is_signing_key(key)}


def requestor_encryption_key(profile: RequestorProfile) -> jwk.JWK:
    """The RSA key the issuer encrypts answers to (the first one of the set), never a key named
    in a request."""
    keys = requestor_keys(profile)
    return next(key for key in keys.values() if _is_encryption_key(key))


# --- Registration ------------------------------------------------------------------------------


def requestor_check(
    *, jwks: dict[str, Any] | None, jwks_uri: str, scopes: str
) -> tuple[dict[str, Any], str, str]:
    """Validate what a registration names; returns (jwks, jwks_uri, scopes) normalised.
    ValidationError keyed by field (jwks, jwks_uri, scopes)."""
    errors: dict[str, list[str]] = {}
    jwks = jwks or {}
    jwks_uri = (jwks_uri or "").strip()
    try:
        scopes = scopes_validate(scopes)
    except ValidationError as exc:
        errors["scopes"] = exc.messages
    if jwks and jwks_uri:
        errors["jwks"] = ["give a JWK set or a jwks_uri, not both"]
    elif not jwks and not jwks_uri:
        errors["jwks"] = ["a JWK set or a jwks_uri is required"]
    elif jwks:
        try:
            jwks_validate(jwks)
        except ValidationError as exc:
            errors["jwks"] = exc.messages
    else:
        try:
            jwks_uri_validate(jwks_uri)
            jwks_fetch(jwks_uri)
        except ValidationError as exc:
            errors["jwks_uri"] = exc.messages
        except JwksUnavailable as exc:
            errors["jwks_uri"] = [str(exc)]
    if errors:
        raise ValidationError(errors)
    return jwks, jwks_uri, scopes


@transaction.atomic
def requestor_register(
    *,
    client_id: str,
    jwks: dict[str, Any] | None = None,
    jwks_uri: str = "",
    scopes: str,
    name: str = "",
) -> RequestorProfile:
    """Create or update a requestor: its DOT Application (confidential, client credentials, no
    usable secret: it authenticates with private_key_jwt only) and its RequestorProfile.
    ValidationError (keyed by field) when the keys, URI or scopes are not acceptable."""
    client_id = client_id.strip()
    if not client_id or len(client_id) > 100:
        raise ValidationError({"client_id": ["a client id of 1 to 100 characters is required"]})
    jwks, jwks_uri, scopes = requestor_check(jwks=jwks, jwks_uri=jwks_uri, scopes=scopes)
    application = application_lock(client_id=client_id)
    if application is None:
        application = Application(client_id=client_id)
    application.name = name or application.name or client_id
    application.client_type = Application.CLIENT_CONFIDENTIAL
    application.authorization_grant_type = Application.GRANT_CLIENT_CREDENTIALS
    application.redirect_uris = ""
    # DOT requires a secret on a confidential client; this one is random, stored hashed and
    # never shown, and the token endpoint refuses client_secret anyway.
    application.client_secret = secrets.token_urlsafe(48)
    application.hash_client_secret = True
    application.save()
    profile, _ = RequestorProfile.objects.update_or_create(
        application=application,
        defaults={"jwks": jwks, "jwks_uri": jwks_uri, "scopes": scopes},
    )
    if jwks_uri:
        cache.delete(_cache_key(jwks_uri))
    return profile


# A client id names one application (unique). Read on every token and every API request: its
# SQL is compiled once per process (core.prepared).
_REQUESTOR = PreparedRead(
    lambda client_id: RequestorProfile.objects.select_related("application").filter(
        application__client_id=client_id
    ),
    client_id=TEXT,
)


def requestor_get(client_id: str) -> RequestorProfile | None:
    """The requestor profile (with its application) of a client id, or None."""
    return _REQUESTOR.one(client_id=client_id)


def kids_summary(keys: Iterable[tuple[str, jwk.JWK]]) -> list[str]:
    """`kid (EC P-256, sig)` lines, for the command's output and the admin."""
    lines = []
    for kid, key in keys:
        kind = f"EC {key.get('crv')}" if key.get("kty") == "EC" else "RSA"
        if key.get("kty") == "RSA":
            kind += f" {_rsa_bits(key.export_public(as_dict=True))}"
        role = "sig" if _is_signing_key(key) else "enc" if _is_encryption_key(key) else "unused"
        lines.append(f"{kid} ({kind}, {role})")
    return lines
