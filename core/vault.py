"""Secrets at rest: AES-256-GCM with a key id stored beside each ciphertext.

Keys come from settings.VAULT_KEYS ("kid:base64key,..."); VAULT_ACTIVE_KEY_ID encrypts, every
listed key decrypts, so keys can be rotated: add the new key, make it active, re-encrypt, then
drop the old one (`python manage.py vault_rotate`). Each app registers the columns it encrypts
(`register`), so rotation reaches every one of them. Ciphertext format:
"v1:<kid>:<base64(nonce || ciphertext+tag)>". The associated data binds a ciphertext to its
purpose (a token cannot be swapped for a PAN).
"""

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Model, QuerySet


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


# --- what the vault encrypts, and its rotation ---------------------------------------------------


@dataclass(frozen=True)
class VaultField:
    """A model column holding vault ciphertext ("" when empty), and the purpose it is bound to."""

    model: type[Model]
    field: str
    purpose: str

    @property
    def label(self) -> str:
        return f"{self.model._meta.label}.{self.field}"


_FIELDS: dict[str, VaultField] = {}


def register(model: type[Model], field: str, *, purpose: str) -> None:
    """Declare a column the vault encrypts (each app, when it is ready), so rotation reaches it."""
    entry = VaultField(model, field, purpose)
    _FIELDS[entry.label] = entry


def registered() -> list[VaultField]:
    return list(_FIELDS.values())


@dataclass(frozen=True)
class Rotated:
    label: str
    stale: int  # ciphertexts not under the active key when the rotation started
    rewritten: int


def _stale(entry: VaultField, prefix: str) -> QuerySet[Model]:
    column = entry.field
    return (
        entry.model._default_manager.exclude(**{column: ""})
        .exclude(**{f"{column}__startswith": prefix})
        .order_by("pk")
    )


def vault_rotate(
    *,
    batch: int = 500,
    dry_run: bool = False,
    on_start: Callable[[VaultField, int], None] | None = None,
    on_batch: Callable[[VaultField, int], None] | None = None,
) -> list[Rotated]:
    """Re-encrypt every registered ciphertext that is not under the active key.

    Each batch is its own transaction: its rows are locked (`skip_locked`, so rows a payment is
    writing are taken in a later batch), decrypted and encrypted again under the active key. Safe
    to interrupt and run again. `dry_run` only counts."""
    from .lock_objects import stale_rows_lock  # core.models: the vault loads before the models

    active = active_key_id()
    prefix = f"v1:{active}:"
    report = []
    for entry in registered():
        stale = _stale(entry, prefix)
        total = stale.count()
        if on_start is not None:
            on_start(entry, total)
        done = 0
        while total and not dry_run:
            with transaction.atomic():
                rows = stale_rows_lock(stale, batch=batch)
                for row in rows:
                    plain = decrypt(getattr(row, entry.field), purpose=entry.purpose)
                    setattr(row, entry.field, encrypt(plain, purpose=entry.purpose))
                    row.save(update_fields=[entry.field])
            if not rows:
                break
            done += len(rows)
            if on_batch is not None:
                on_batch(entry, len(rows))
        report.append(Rotated(entry.label, total, done))
    return report
