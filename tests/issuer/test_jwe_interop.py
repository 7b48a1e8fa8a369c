"""issuer.protocol.jwe works the JWA primitives itself (issue 21): what it encrypts, jwcrypto's
own JWE decrypts, and the other way round; a wrong key, a public key or a flipped bit is the one
refusal."""

import json

import pytest
from jwcrypto import jwe as jwcrypto_jwe
from jwcrypto import jwk
from jwcrypto.common import base64url_decode, base64url_encode, json_encode

from issuer.protocol import jwe


@pytest.fixture(scope="module")
def rsa() -> jwk.JWK:
    return jwk.JWK.generate(kty="RSA", size=2048, kid="k1")


def test_ours_to_jwcrypto_and_back(rsa):
    payload = {"cardReference": "C1", "amount": "10.50"}
    token = jwe.encrypt(payload, jwk.JWK(**rsa.export_public(as_dict=True)), "k1")
    header = json.loads(base64url_decode(token.split(".")[0]))
    assert header == {"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": "k1"}
    theirs = jwcrypto_jwe.JWE(algs=["RSA-OAEP-256", "A128GCM"])
    theirs.deserialize(token, key=rsa)
    assert json.loads(theirs.plaintext) == payload

    message = jwcrypto_jwe.JWE(
        json.dumps(payload).encode(),
        protected=json_encode(header),
        algs=["RSA-OAEP-256", "A128GCM"],
    )
    message.add_recipient(jwk.JWK(**rsa.export_public(as_dict=True)))
    found, plaintext = jwe.decrypt(message.serialize(compact=True), lambda kid: rsa)
    assert (found["kid"], plaintext) == ("k1", {"cardReference": "C1", "amount": "10.50"})


def test_a_wrong_key_a_public_key_or_a_flipped_bit_is_refused_alike(rsa):
    token = jwe.encrypt({"a": "b"}, rsa, "k1")
    other = jwk.JWK.generate(kty="RSA", size=2048)
    parts = token.split(".")
    flipped = bytearray(base64url_decode(parts[3]))
    flipped[0] ^= 1
    tampered = ".".join([*parts[:3], base64url_encode(bytes(flipped)), parts[4]])
    public = jwk.JWK(**rsa.export_public(as_dict=True))
    for candidate, key in ((token, other), (token, public), (tampered, rsa)):
        with pytest.raises(jwe.JWEError, match="could not be decrypted"):
            jwe.decrypt(candidate, lambda kid, key=key: key)
    with pytest.raises(ValueError, match="RSA"):
        jwe.encrypt({"a": "b"}, jwk.JWK.generate(kty="EC", crv="P-256"), "k2")
