"""Secrets at rest: AES-256-GCM with a key id stored beside each ciphertext.

Keys come from settings.VAULT_KEYS ("kid:base64key,..."); VAULT_ACTIVE_KEY_ID encrypts, every
listed key decrypts, so keys can be rotated: add the new key, make it active, re-encrypt, then
drop the old one. Ciphertext format: "v1:<kid>:<base64(nonce || ciphertext+tag)>". The
associated data binds a ciphertext to its purpose (a token cannot be swapped for a PAN).
"""

import base64
import os
from functools import lru_cache

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@lru_cache(maxsize=4)
def _keys(spec: str) -> dict[str, bytes]:
    keys: dict[str, bytes] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        kid, _, b64 = item.partition(":")
        key = base64.b64decode(b64)
        if len(key) != 32:
            raise ImproperlyConfigured(f"vault key {kid!r} must be 32 bytes (base64 of 32 bytes)")
        keys[kid] = key
    return keys


def keys() -> dict[str, bytes]:
    return _keys(settings.VAULT_KEYS)


def active_key_id() -> str:
    kid = settings.VAULT_ACTIVE_KEY_ID
    if kid not in keys():
        raise ImproperlyConfigured(f"VAULT_ACTIVE_KEY_ID {kid!r} is not in VAULT_KEYS")
    return kid


def encrypt(plaintext: str, *, purpose: str) -> str:
    kid = active_key_id()
    nonce = os.urandom(12)
    sealed = AESGCM(keys()[kid]).encrypt(nonce, plaintext.encode(), purpose.encode())
    return f"v1:{kid}:{base64.b64encode(nonce + sealed).decode()}"


def decrypt(ciphertext: str, *, purpose: str) -> str:
    version, kid, b64 = ciphertext.split(":", 2)
    if version != "v1":
        raise ValueError("unknown vault format")
    raw = base64.b64decode(b64)
    return AESGCM(keys()[kid]).decrypt(raw[:12], raw[12:], purpose.encode()).decode()


def key_id_of(ciphertext: str) -> str:
    return ciphertext.split(":", 2)[1]
