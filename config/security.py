"""The keys, and the page's Content-Security-Policy (imported by config.settings).

SECRET_KEY, the vault's keys, the card fingerprint key and the card verification key each have a
public development default so the embedded demo runs; with DEBUG off they are refused.
"""

import sys
from pathlib import Path

from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.environment import DEBUG, env

__all__ = [
    "CARD_FINGERPRINT_KEY",
    "CONTENT_SECURITY_POLICY",
    "DEV_CARD_FINGERPRINT_KEY",
    "DEV_CARD_VERIFICATION_KEY",
    "DEV_SECRET_KEY",
    "DEV_VAULT_KEY",
    "ISSUER_CARD_VERIFICATION_KEY",
    "SECRET_KEY",
    "VAULT_ACTIVE_KEY_ID",
    "VAULT_KEYS",
]

# The default key is for the embedded demo only: with DEBUG off it is refused (below).
DEV_SECRET_KEY = "dev-insecure-secret-key-change-me-in-production"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=DEV_SECRET_KEY)

# --- Card data vault (AES-GCM) ----------------------------------------------------------------
# VAULT_KEYS: "kid1:base64key,kid2:base64key" (32-byte keys); the active key encrypts, every listed
# key decrypts. The default key exists only so the embedded demo runs; production must set both.
DEV_VAULT_KEY = "ZGV2LW9ubHktdmF1bHQta2V5LWRvLW5vdC11c2UtISE="
VAULT_KEYS = env.str("VAULT_KEYS", default=f"dev1:{DEV_VAULT_KEY}")
VAULT_ACTIVE_KEY_ID = env.str("VAULT_ACTIVE_KEY_ID", default="dev1")
# Key of the HMAC that fingerprints card numbers (look-ups without decrypting). Not rotated with
# the vault keys: changing it changes every fingerprint.
DEV_CARD_FINGERPRINT_KEY = "dev-only-card-fingerprint-key"
CARD_FINGERPRINT_KEY = env.str("CARD_FINGERPRINT_KEY", default=DEV_CARD_FINGERPRINT_KEY)
# The card verification key: CVV2 and dynamic CVV are HMACs of the card's data under it (issuer.
# cards.secrets); base64 of 32 bytes. The default is public, for the demo only (refused with
# DEBUG off, like the vault key).
DEV_CARD_VERIFICATION_KEY = "ZGV2LW9ubHktY2FyZC12ZXJpZmljYXRpb24ta2V5ISE="
ISSUER_CARD_VERIFICATION_KEY = env.str(
    "ISSUER_CARD_VERIFICATION_KEY", default=DEV_CARD_VERIFICATION_KEY
)


# --- The public development keys never run with DEBUG off --------------------------------------
# The defaults above are in the repository: whatever they encrypt, fingerprint or sign is not
# protected. DEBUG off is production (or a production-like benchmark or test, which brings keys
# of its own), so starting with any of them is refused. One exception: `collectstatic`, which the
# Docker build runs with DEBUG off and, rightly, without secrets; it reads none (Django, too,
# lets commands that need no SECRET_KEY run without one).
def _development_keys_in_use() -> list[str]:
    found = []
    if SECRET_KEY == DEV_SECRET_KEY:
        found.append("DJANGO_SECRET_KEY")
    vault_keys = {key.strip() for _, _, key in (i.partition(":") for i in VAULT_KEYS.split(","))}
    if DEV_VAULT_KEY in vault_keys:
        found.append("VAULT_KEYS (with VAULT_ACTIVE_KEY_ID)")
    if CARD_FINGERPRINT_KEY == DEV_CARD_FINGERPRINT_KEY:
        found.append("CARD_FINGERPRINT_KEY")
    if ISSUER_CARD_VERIFICATION_KEY == DEV_CARD_VERIFICATION_KEY:
        found.append("ISSUER_CARD_VERIFICATION_KEY")
    return found


_COLLECTSTATIC = sys.argv[1:2] == ["collectstatic"] and Path(sys.argv[0]).name in (
    "manage.py",
    "django-admin",
)
if not DEBUG and not _COLLECTSTATIC and (_dev_keys := _development_keys_in_use()):
    raise ImproperlyConfigured(
        "DJANGO_DEBUG is false but the public development keys are in use: set "
        + ", ".join(_dev_keys)
        + " (docs/operations.md, Secrets and the vault)"
    )


# --- Content-Security-Policy (django-csp; docs/operations.md, "Security headers") -------------
# Every page: its own scripts and styles only, inline ones by the request's nonce (never
# 'unsafe-inline'), no plugins, no <base> elsewhere, and never framed. The 3-D Secure pages widen
# frame-ancestors to the merchant's origin (payments/threeds/views.py), the Redoc page its styles
# (config/urls.py); form-action stays open: the 3-D Secure result and the hosted checkout post
# the shopper back to the merchant's shopperResultUrl.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
    },
}
