"""The reference server's keys, in one JSON file (REFERENCE_KEYS_FILE): its EC P-256 key that
signs access tokens, its RSA key that requests are encrypted to, and the client's public JWK set
(the EC key that signs client assertions, the RSA key answers are encrypted to). Parsed once per
process, as any server keeps its keys."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from jwcrypto import jwk

ISSUER = "reference"
AUDIENCE = "reference-api"


def make(client_public_jwks: dict[str, Any], *, client_id: str, rsa_bits: int = 3072) -> dict:
    """A new key file's content for a client whose public JWK set is given."""
    signing = jwk.JWK.generate(kty="EC", crv="P-256")
    encryption = jwk.JWK.generate(kty="RSA", size=rsa_bits)
    return {
        "client_id": client_id,
        "signing_key": {**signing.export_private(as_dict=True), "kid": signing.thumbprint()},
        "encryption_key": {
            **encryption.export_private(as_dict=True),
            "kid": encryption.thumbprint(),
        },
        "client_jwks": client_public_jwks,
    }


def write(path: Path, content: dict[str, Any]) -> None:
    """Written 0600: the file holds private keys."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(content, handle)


def _client_key(content: dict[str, Any], kty: str) -> dict[str, Any]:
    for key in content["client_jwks"]["keys"]:
        if key.get("kty") == kty:
            return dict(key)
    raise ValueError(f"the client's JWK set has no {kty} key")


@dataclass(frozen=True)
class Keys:
    client_id: str
    signing: Any  # cryptography EC private key (PyJWT signs with it)
    signing_public: Any
    signing_kid: str
    encryption: jwk.JWK  # private RSA (jwcrypto decrypts with it)
    client_ec: Any  # cryptography EC public key (PyJWT verifies assertions with it)
    client_rsa: jwk.JWK  # public RSA (jwcrypto encrypts answers to it)
    client_rsa_kid: str


def parse(content: dict[str, Any]) -> Keys:
    signing = jwt.PyJWK(content["signing_key"], algorithm="ES256").key
    client_rsa = _client_key(content, "RSA")
    return Keys(
        client_id=content["client_id"],
        signing=signing,
        signing_public=signing.public_key(),
        signing_kid=content["signing_key"]["kid"],
        encryption=jwk.JWK(**content["encryption_key"]),
        client_ec=jwt.PyJWK(_client_key(content, "EC"), algorithm="ES256").key,
        client_rsa=jwk.JWK(**client_rsa),
        client_rsa_kid=str(client_rsa.get("kid") or jwk.JWK(**client_rsa).thumbprint()),
    )


def setting(name: str) -> str:
    """A setting of the reference project (mypy's Django plugin knows the platform's only)."""
    from django.conf import settings

    return str(getattr(settings, name))


def base_url() -> str:
    return setting("REFERENCE_BASE_URL")


@functools.cache
def loaded() -> Keys:
    return parse(json.loads(Path(setting("REFERENCE_KEYS_FILE")).read_text()))
