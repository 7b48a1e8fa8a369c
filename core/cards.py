"""Card numbers, shared by payments and tokenization: brand detection from the BIN, Luhn
(python-stdnum), encryption and fingerprints.

The PAN is held in memory only as long as a request needs it: encrypted with the vault
(AES-GCM, key id in the ciphertext) before it is stored, fingerprinted with a keyed HMAC for
look-ups, and reduced to BIN and last four for display. Nothing here logs a card number.
"""

import hashlib
import hmac
from datetime import date

from django.conf import settings
from stdnum import luhn

from core import vault

PAN_PURPOSE = "pan"

# Issuer identification number ranges (ISO/IEC 7812 prefixes published by the schemes), most
# specific first. paymentBrand values follow the anchor API's names.
_BRANDS: list[tuple[str, list[tuple[int, int]]]] = [
    ("AMEX", [(34, 34), (37, 37)]),
    ("JCB", [(3528, 3589)]),
    ("DINERS", [(300, 305), (36, 36), (38, 39)]),
    ("DISCOVER", [(6011, 6011), (644, 649), (65, 65)]),
    ("UNIONPAY", [(62, 62)]),
    ("MASTER", [(51, 55), (2221, 2720)]),
    ("MAESTRO", [(50, 50), (56, 58), (63, 63), (67, 67)]),
    ("VISA", [(4, 4)]),
]
BRANDS = tuple(sorted({brand for brand, _ in _BRANDS}))


def detect_brand(pan: str) -> str:
    """The brand of a card number from its leading digits, or "" when no range matches."""
    for brand, ranges in _BRANDS:
        for low, high in ranges:
            width = len(str(low))
            if low <= int(pan[:width]) <= high:
                return brand
    return ""


def luhn_ok(pan: str) -> bool:
    return luhn.is_valid(pan)


def expired(month: str, year: str, today: date) -> bool:
    """A card is valid through the last day of its expiry month."""
    return (int(year), int(month)) < (today.year, today.month)


def encrypt_pan(pan: str) -> str:
    return vault.encrypt(pan, purpose=PAN_PURPOSE)


def decrypt_pan(ciphertext: str) -> str:
    return vault.decrypt(ciphertext, purpose=PAN_PURPOSE)


def fingerprint(pan: str) -> str:
    """HMAC-SHA256 of the PAN under CARD_FINGERPRINT_KEY: the same card gives the same value,
    without the PAN being recoverable from it (unlike a plain hash of a 16-digit number)."""
    key = settings.CARD_FINGERPRINT_KEY.encode()
    return hmac.new(key, pan.encode(), hashlib.sha256).hexdigest()


def masked_parts(card_bin: str, last4: str) -> str:
    """A stored card shown from its kept parts: the first six and last four digits around six
    asterisks ("" when they are not known)."""
    return f"{card_bin}******{last4}" if card_bin and last4 else ""


def masked(pan: str) -> str:
    return f"{pan[:6]}{'*' * (len(pan) - 10)}{pan[-4:]}"
