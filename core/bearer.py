"""Bearer tokens: random, shown once, stored as SHA-256 + last four (+ vault copy)."""

import hashlib
import secrets


def new_token() -> str:
    """43 URL-safe characters from 32 random bytes."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
