"""JOSE helpers of the authorization API: JWE compact serialization with RSA-OAEP-256 and
A128GCM, both directions, with jwcrypto's JWA primitives of that one pair.

The protected header is checked before jwcrypto sees the token, so every refusal has a clear
reason and nothing but the one algorithm pair is ever run: exactly five parts, `alg`
RSA-OAEP-256, `enc` A128GCM, a `kid`, no `zip` (a compressed plaintext could expand far beyond
the size bound) and no `crit` (this profile defines no extensions); then a 96-bit
initialization vector and a 128-bit tag (RFC 7518 5.3). Headers that name keys (`jku`, `jwk`,
`x5u`, `x5c`) are ignored: the key is always chosen by the receiver, by kid, from its own key
store. The plaintext must be a JSON object of bounded size without duplicate
members.

The server decrypts with `decrypt(token, key_for_kid)` and encrypts its answer with
`encrypt(payload, key, kid)` to the requestor's registered RSA key; the requestor client
(issuer.protocol.client) uses the same two functions the other way round.
"""

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from cryptography.exceptions import InvalidTag
from jwcrypto import jwk
from jwcrypto.common import JWException, base64url_decode, base64url_encode, json_encode
from jwcrypto.jwa import JWA

ALG = "RSA-OAEP-256"
ENC = "A128GCM"
# An operation's request is a few hundred bytes; anything beyond this is not a valid request.
MAX_PLAINTEXT_BYTES = 16 * 1024
MAX_KID_LENGTH = 128
IV_BYTES, TAG_BYTES = 12, 16
_KEY_WRAP, _CONTENT = JWA.keymgmt_alg(ALG), JWA.encryption_alg(ENC)


class JWEError(ValueError):
    """A JWE that is refused; the message says why (safe to show the sender)."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise JWEError(f"duplicate member {key!r} in a JSON object")
        seen[key] = value
    return seen


def loads_object(data: bytes | str, what: str) -> dict[str, Any]:
    """Strict JSON: UTF-8, an object at the top, no duplicate members, decimals kept exact
    (`10.50` stays Decimal("10.50"))."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, object_pairs_hook=_json_object, parse_float=Decimal)
    except JWEError:
        raise
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise JWEError(f"{what} is not valid JSON") from exc
    if not isinstance(value, dict):
        raise JWEError(f"{what} must be a JSON object")
    return value


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def dumps(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), default=_default).encode()


def header_of(token: str) -> dict[str, Any]:
    """The checked protected header of a compact JWE (see the module docstring)."""
    token = token.strip()
    if token.startswith("{"):
        raise JWEError("JWE JSON serialization is not accepted: send the compact serialization")
    parts = token.split(".")
    if len(parts) != 5:
        raise JWEError(
            f"not a JWE compact serialization: expected 5 dot-separated parts, got {len(parts)}"
        )
    try:
        raw = base64url_decode(parts[0])
    except (ValueError, TypeError) as exc:
        raise JWEError("the protected header is not base64url") from exc
    header = loads_object(raw, "the protected header")
    alg, enc, kid = header.get("alg"), header.get("enc"), header.get("kid")
    if alg != ALG:
        raise JWEError(f"alg must be {ALG} (got {str(alg)[:40]!r})")
    if enc != ENC:
        raise JWEError(f"enc must be {ENC} (got {str(enc)[:40]!r})")
    if "zip" in header:
        raise JWEError("compressed plaintext (zip) is not accepted")
    if "crit" in header:
        raise JWEError("crit is not accepted: this profile defines no critical extensions")
    if not isinstance(kid, str) or not kid or len(kid) > MAX_KID_LENGTH:
        raise JWEError("kid is required: the key id of the recipient's RSA key")
    if not all(parts[1:]):
        raise JWEError("a JWE part is empty: encrypted key, IV, ciphertext and tag are required")
    # RFC 7518 5.3: AES GCM in JWE uses a 96-bit IV and a 128-bit authentication tag.
    if _decoded_length(parts[2]) != IV_BYTES:
        raise JWEError("the A128GCM initialization vector must be 96 bits")
    if _decoded_length(parts[4]) != TAG_BYTES:
        raise JWEError("the A128GCM authentication tag must be 128 bits")
    return header


def _decoded_length(part: str) -> int:
    try:
        return len(base64url_decode(part))
    except (ValueError, TypeError):
        return -1


def decrypt(
    token: str,
    key_for_kid: Callable[[str], jwk.JWK | None],
    *,
    max_plaintext: int = MAX_PLAINTEXT_BYTES,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Decrypt a compact JWE; returns (header, JSON object). `key_for_kid` returns the private
    key the header's kid names, or None: the token is refused then."""
    header = header_of(token)
    key = key_for_kid(header["kid"])
    if key is None:
        raise JWEError(
            f"kid {header['kid'][:80]!r} does not name a current encryption key of the "
            "recipient: fetch its JWKS and encrypt to its RSA key"
        )
    protected, encrypted_key, iv, ciphertext, tag = token.strip().split(".")
    try:
        # The JWA primitives of the one pair the header allows (checked above): jwe.JWE would
        # add a deep copy of its header registry and a second parse of the token per request.
        cek = _KEY_WRAP.unwrap(key, _CONTENT.wrap_key_size, base64url_decode(encrypted_key), header)
        plaintext = _CONTENT.decrypt(
            cek,
            protected.encode("ascii"),  # the AAD: the protected header as sent (RFC 7516 5.2)
            base64url_decode(iv),
            base64url_decode(ciphertext),
            base64url_decode(tag),
        )
    except (JWException, ValueError, TypeError, InvalidTag) as exc:
        # One message for a wrong key, a tampered tag, ciphertext, IV or header: telling them
        # apart would help an attacker, not the sender.
        raise JWEError(
            "the JWE could not be decrypted: tampered, truncated, or not encrypted to this kid"
        ) from exc
    if len(plaintext) > max_plaintext:
        raise JWEError(f"the plaintext is larger than {max_plaintext} bytes")
    return header, loads_object(plaintext, "the decrypted plaintext")


def encrypt(payload: dict[str, Any], key: jwk.JWK, kid: str) -> str:
    """Encrypt a JSON object to a public RSA key: compact JWE, RSA-OAEP-256 / A128GCM, kid."""
    if key.get("kty") != "RSA":
        raise ValueError("JWE recipients must be RSA keys")
    header = {"alg": ALG, "enc": ENC, "kid": kid}
    protected = base64url_encode(json_encode(header))
    wrapped = _KEY_WRAP.wrap(key, _CONTENT.wrap_key_size, None, header)
    iv, ciphertext, tag = _CONTENT.encrypt(
        wrapped["cek"], protected.encode("ascii"), dumps(payload)
    )
    return ".".join(
        [protected, *(base64url_encode(part) for part in (wrapped["ek"], iv, ciphertext, tag))]
    )


__all__ = ["ALG", "ENC", "JWEError", "MAX_PLAINTEXT_BYTES", "decrypt", "encrypt", "header_of"]
