"""The issuer's own keys: an EC P-256 signing key (access tokens, ES256) and an RSA encryption
key (requests are encrypted to it, RSA-OAEP-256), as PEM files in settings.ISSUER_KEYS_DIR.

Files are named `<use>-<created yyyymmddHHMMSS>-<kid>.pem` (use `sig` or `enc`); kid is the RFC
7638 thumbprint. The newest key of each use is active (new tokens are signed with it; clients
should encrypt to it). An older key stays published, and its private part keeps verifying and
decrypting, until `ISSUER_ACCESS_TOKEN_SECONDS` after the next key was created: no token signed
with it can still be valid then. `python manage.py issuer_keys generate|rotate|list|prune`.
"""

import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from jwcrypto import jwk

SIG, ENC = "sig", "enc"
ALG = {SIG: "ES256", ENC: "RSA-OAEP-256"}
RSA_BITS = 3072


@dataclass(frozen=True)
class IssuerKey:
    use: str
    kid: str
    created: datetime
    path: Path
    key: jwk.JWK

    def public_jwk(self) -> dict[str, str]:
        data = self.key.export_public(as_dict=True)
        data.update(kid=self.kid, use=self.use, alg=ALG[self.use])
        return data


def keys_dir() -> Path:
    return Path(settings.ISSUER_KEYS_DIR)


def _load(path: Path) -> IssuerKey:
    # Parsing a PEM costs more than signing a token: cache by file and modification time (a
    # rotated or replaced file has a new name or mtime, so nothing stale is served).
    return _load_cached(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _load_cached(path: Path, mtime_ns: int) -> IssuerKey:
    use, stamp, kid = path.stem.split("-", 2)
    key = jwk.JWK.from_pem(path.read_bytes())
    if key.thumbprint() != kid:
        raise ImproperlyConfigured(f"{path.name}: the kid in the name is not the key's thumbprint")
    created = datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return IssuerKey(use, kid, created, path, key)


def all_keys(use: str) -> list[IssuerKey]:
    """Every key file of a use, newest first. Listed again only when the directory changed (a
    rotation or a prune adds or removes a file, which changes the directory's modification
    time) or when KEYS_RELIST_SECONDS have passed: one stat per call on the hot path instead of
    a listing and a stat of every file."""
    directory = str(settings.ISSUER_KEYS_DIR)  # os.stat of the text: no Path built per call
    try:
        stamp = os.stat(directory).st_mtime_ns
    except FileNotFoundError:
        return []
    slot = int(time.monotonic() // KEYS_RELIST_SECONDS)
    return list(_listed(directory, use, stamp, slot))


KEYS_RELIST_SECONDS = 10  # a key file replaced in place (same name) is read again within this


@lru_cache(maxsize=16)
def _listed(directory: str, use: str, stamp: int, slot: int) -> tuple[IssuerKey, ...]:
    found = [_load(p) for p in Path(directory).glob(f"{use}-*.pem")]
    return tuple(sorted(found, key=lambda k: k.created, reverse=True))


def live_keys(use: str, *, now: datetime | None = None) -> list[IssuerKey]:
    """The active key and older ones still inside their grace period, newest first."""
    now = now or datetime.now(UTC)
    grace = timedelta(seconds=settings.ISSUER_ACCESS_TOKEN_SECONDS)
    keys = all_keys(use)
    live = keys[:1]
    for older, newer in zip(keys[1:], keys, strict=False):
        if newer.created + grace > now:
            live.append(older)
    return live


def active_key(use: str) -> IssuerKey:
    keys = all_keys(use)
    if not keys:
        raise ImproperlyConfigured(
            f"no issuer {use} key in {keys_dir()}: run `python manage.py issuer_keys generate`"
        )
    return keys[0]


def active_key_ages(*, now: datetime | None = None) -> list[tuple[tuple[str], float]]:
    """(use,), seconds since the active key of each use was made; none for a use without a key
    (the metrics' key age gauge)."""
    now = now or datetime.now(UTC)
    ages = []
    for use in (SIG, ENC):
        found = all_keys(use)
        if found:
            ages.append(((use,), (now - found[0].created).total_seconds()))
    return ages


def key_by_kid(use: str, kid: str) -> IssuerKey | None:
    return next((k for k in live_keys(use) if k.kid == kid), None)


def published_jwks() -> dict[str, list[dict[str, str]]]:
    """The JWK set at /.well-known/jwks.json: public parts of every live key."""
    return {"keys": [k.public_jwk() for use in (SIG, ENC) for k in live_keys(use)]}


def generate(use: str, *, now: datetime | None = None) -> IssuerKey:
    """Create a new key file of a use (it becomes the active key)."""
    now = now or datetime.now(UTC)
    key = (
        jwk.JWK.generate(kty="EC", crv="P-256")
        if use == SIG
        else jwk.JWK.generate(kty="RSA", size=RSA_BITS)
    )
    directory = keys_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{use}-{now:%Y%m%d%H%M%S}-{key.thumbprint()}.pem"
    path.write_bytes(key.export_to_pem(private_key=True, password=None))
    os.chmod(path, 0o600)
    return _load(path)


def prune(*, now: datetime | None = None) -> list[Path]:
    """Delete key files past their grace period. Returns what was removed."""
    removed = []
    for use in (SIG, ENC):
        live = {k.path for k in live_keys(use, now=now)}
        for key in all_keys(use):
            if key.path not in live:
                key.path.unlink()
                removed.append(key.path)
    return removed
