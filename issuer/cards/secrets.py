"""Card secrets: CVV2 and dynamic CVV computed from the card verification key, never stored;
PINs kept only as a salted slow hash.

- CVV2 = three decimal digits of HMAC-SHA256(key, "PAN|YYMM|000") (service code 000, as the
  schemes compute CVV2). dCVV adds the time window: HMAC(key, "PAN|YYMM|999|window") with
  windows of ISSUER_DCVV_SECONDS; a dCVV verifies in its own window and the one before it.
- The key is ISSUER_CARD_VERIFICATION_KEY (base64 of 32 bytes; in production an HSM's). Changing
  it changes every card's CVV2.
- PIN: Django's password hasher (PBKDF2-SHA256, random salt, many iterations): a copy of the
  database does not give the PIN without a brute force per card, and the check is constant
  time. Three wrong tries block the PIN until PINReset.
"""

import base64
import hashlib
import hmac
from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import timezone

CVV2_SERVICE_CODE = "000"
DCVV_SERVICE_CODE = "999"
MAX_PIN_FAILURES = 3


def verification_key() -> bytes:
    return base64.b64decode(settings.ISSUER_CARD_VERIFICATION_KEY)


def _digits(message: str, count: int = 3) -> str:
    digest = hmac.new(verification_key(), message.encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest[:8], "big") % 10**count
    return f"{value:0{count}d}"


def _yymm(month: int, year: int) -> str:
    return f"{year % 100:02d}{month:02d}"


def cvv2(pan: str, month: int, year: int) -> str:
    return _digits(f"{pan}|{_yymm(month, year)}|{CVV2_SERVICE_CODE}")


def cvv2_matches(pan: str, month: int, year: int, candidate: str) -> bool:
    return hmac.compare_digest(cvv2(pan, month, year), candidate)


def dcvv_window(moment: datetime | None = None) -> int:
    return int((moment or timezone.now()).timestamp()) // settings.ISSUER_DCVV_SECONDS


def dcvv(pan: str, month: int, year: int, window: int) -> str:
    return _digits(f"{pan}|{_yymm(month, year)}|{DCVV_SERVICE_CODE}|{window}")


def dcvv_valid_until(window: int) -> datetime:
    return datetime.fromtimestamp((window + 1) * settings.ISSUER_DCVV_SECONDS, tz=UTC)


def dcvv_matches(
    pan: str, month: int, year: int, candidate: str, moment: datetime | None = None
) -> bool:
    window = dcvv_window(moment)
    return any(
        hmac.compare_digest(dcvv(pan, month, year, w), candidate) for w in (window, window - 1)
    )


class _PinHasher(PBKDF2PasswordHasher):
    algorithm = "pin_pbkdf2_sha256"


_HASHER = _PinHasher()


def pin_hash(pin: str) -> str:
    if settings.ISSUER_PIN_HASH_ITERATIONS:
        return _HASHER.encode(pin, _HASHER.salt(), settings.ISSUER_PIN_HASH_ITERATIONS)
    return _HASHER.encode(pin, _HASHER.salt())


def pin_matches(pin: str, encoded: str) -> bool:
    return bool(encoded) and _HASHER.verify(pin, encoded)
