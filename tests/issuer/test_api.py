"""The authorization API (`POST /issuer/v1/{group}/{Operation}`): the four Authentication
operations with real JWE both ways, token validation, scope enforcement, JWE refusals, and the
key the answer is encrypted to."""

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from jwcrypto import jwe as jwcrypto_jwe
from jwcrypto import jwk, jwt
from jwcrypto.common import base64url_decode, json_encode

from issuer.models import OOBAuthentication, OTPChallenge
from issuer.protocol import access_tokens as tokens
from issuer.protocol import jwe, keys
from tests.issuer.conftest import Requestor, new_ec_key, new_rsa_key, public_jwks

pytestmark = pytest.mark.django_db

ALL_SCOPES = "START_OOB CHECK_OOB OTP"
JOSE = "application/jose"
START = "/issuer/v1/authentication/StartOOBAuthen"
INQUIRY = "/issuer/v1/authentication/OOBResultInquiry"
SEND_OTP = "/issuer/v1/authentication/SendOTP"
VERIFY_OTP = "/issuer/v1/authentication/VerifyOTP"
SUCCESS = "000.000.100"
INVALID_PARAMETER = "200.300.404"


def start_payload(**overrides: Any) -> dict[str, Any]:
    payload = {
        "cardReference": "411111******1111",
        "transactionId": uuid.uuid4().hex,
        "amount": "10.00",
        "currency": "EUR",
        "merchantName": "Demo Shop",
    }
    payload.update(overrides)
    return {k: v for k, v in payload.items() if v is not None}


def issuer_enc() -> keys.IssuerKey:
    return keys.active_key(keys.ENC)


def encrypt_to_issuer(
    payload: Any, *, header: dict[str, Any] | None = None, key: jwk.JWK | None = None
) -> str:
    """A compact JWE of `payload` (dict -> JSON, bytes as they are) with the standard header,
    `header` entries overriding it (None drops one), to the issuer's key or `key`."""
    enc_key = issuer_enc()
    base = {"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": enc_key.kid}
    merged = {k: v for k, v in {**base, **(header or {})}.items() if v is not None}
    plaintext = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    message = jwcrypto_jwe.JWE(
        plaintext, protected=json_encode(merged), algs=[merged["alg"], merged["enc"]]
    )
    message.add_recipient(key or enc_key.key)
    return message.serialize(compact=True)


class Api:
    """Calls the API as one requestor with a token of `scope`, decrypting answers with its RSA
    key."""

    def __init__(self, requestor: Requestor, scope: str = ALL_SCOPES):
        self.requestor = requestor
        self.client = Client()
        self.token = requestor.access_token(self.client, scope=scope)

    def post(self, path: str, body: str | bytes, *, token: str | None = None, **extra: Any):  # type: ignore[no-untyped-def]
        extra.setdefault("content_type", JOSE)
        if token is not None or "HTTP_AUTHORIZATION" not in extra:
            extra["HTTP_AUTHORIZATION"] = f"Bearer {token or self.token}"
        return self.client.post(path, body, **extra)

    def raw(self, path: str, payload: dict[str, Any], **extra: Any):  # type: ignore[no-untyped-def]
        return self.post(path, encrypt_to_issuer(payload), **extra)

    def call(self, path: str, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
        response = self.raw(path, payload, **extra)
        assert response.status_code == 200, response.content
        assert response["Content-Type"] == JOSE
        return decrypt(response.content, self.requestor.rsa_key)


def decrypt(body: bytes, key: jwk.JWK) -> dict[str, Any]:
    header, payload = jwe.decrypt(body.decode(), lambda kid: key)
    assert header["alg"] == "RSA-OAEP-256" and header["enc"] == "A128GCM"
    return payload


def header_of(body: bytes) -> dict[str, Any]:
    return json.loads(base64url_decode(body.decode().split(".")[0]))


@pytest.fixture
def api(issuer_keys, make_requestor) -> Api:
    return Api(make_requestor("oob-client", scopes=ALL_SCOPES))


def errors_of(answer: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["message"] for e in answer["result"].get("parameterErrors", [])}


# --- happy paths ---------------------------------------------------------------------------------


def test_start_oob_authentication(api):
    answer = api.call(START, start_payload(transactionId="txn-1", expiry=120))
    assert answer["result"]["code"] == SUCCESS
    assert answer["status"] == "PENDING"
    assert answer["transactionId"] == "txn-1"
    auth = OOBAuthentication.objects.get(pk=answer["authenticationId"])
    assert answer["id"] == auth.pk
    assert auth.client_id == "oob-client" and str(auth.amount) == "10.00"
    assert 115 <= (auth.expires_at - auth.created_at).total_seconds() <= 121
    assert answer["expiresAt"].endswith("+0000")
    assert f"/issuer/oob/{auth.pk}/" in answer["cardholderUrl"]
    # Only a hash of the link's secret is kept.
    secret = answer["cardholderUrl"].rsplit("/", 1)[1]
    assert len(secret) >= 43 and secret not in auth.link_token_hash
    assert {"timestamp", "ndc", "buildNumber"} <= answer.keys()


def test_oob_result_inquiry(api):
    started = api.call(START, start_payload())
    answer = api.call(INQUIRY, {"authenticationId": started["authenticationId"]})
    assert answer["result"]["code"] == SUCCESS
    assert answer["status"] == "PENDING"
    assert answer["authenticationId"] == started["authenticationId"]
    assert "decidedAt" not in answer


def test_send_and_verify_otp(api):
    sent = api.call(
        SEND_OTP, {"cardReference": "tok_abc123", "transactionId": "t1", "channel": "SMS"}
    )
    assert sent["result"]["code"] == SUCCESS
    assert sent["attemptsLeft"] == 3 and sent["channel"] == "SMS"
    code = sent["simulatorCode"]
    assert len(code) == 6 and code.isdigit()
    otp = OTPChallenge.objects.get(pk=sent["otpId"])
    assert code not in otp.code_hash
    verified = api.call(VERIFY_OTP, {"otpId": sent["otpId"], "code": code})
    assert verified["result"]["code"] == SUCCESS
    assert verified["verified"] is True and verified["attemptsLeft"] == 3


def test_numbers_in_json_keep_their_digits(api):
    text = json.dumps(start_payload(amount="AMOUNT", expiry=60)).replace('"AMOUNT"', "10.50")
    assert '"amount": 10.50' in text
    answer = decrypt(
        api.post(START, encrypt_to_issuer(text.encode())).content, api.requestor.rsa_key
    )
    assert answer["result"]["code"] == SUCCESS
    assert str(OOBAuthentication.objects.get(pk=answer["id"]).amount) == "10.50"


# --- validation of the decrypted request ---------------------------------------------------------


@pytest.mark.parametrize(
    "pan", ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "tok4111111111111111"]
)
def test_a_card_number_is_refused_as_card_reference_and_never_echoed(api, pan):
    answer = api.call(START, start_payload(cardReference=pan))
    assert answer["result"]["code"] == INVALID_PARAMETER
    assert "never a card number" in errors_of(answer)["cardReference"]
    assert "4111111111111111" not in json.dumps(answer)
    assert not OOBAuthentication.objects.exists()


def test_masked_references_and_tokens_are_accepted(api):
    for ref in ("411111******1111", "tok_9f8e7d6c", "DNITHE000000000000000001"):
        answer = api.call(START, start_payload(cardReference=ref))
        assert answer["result"]["code"] == SUCCESS, (ref, answer)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("amount", "10", "N10.N2"),
        ("amount", "10.5", "N10.N2"),
        ("amount", "-1.00", "N10.N2"),
        ("currency", "eur", "ISO 4217"),
        ("currency", "XYZ", "ISO 4217"),
        ("expiry", 901, "from 30 to 900"),
        ("expiry", 10, "from 30 to 900"),
        ("expiry", "1.5", "seconds"),
        ("merchantName", "x" * 101, "AN100"),
        ("transactionId", "a b", "AN64"),
        ("cardReference", "abc", "AN64"),
        ("amount", True, "N10.N2"),
        ("amount", {"value": "10.00"}, "required"),
    ],
)
def test_start_oob_field_errors(api, field, value, message):
    answer = api.call(START, start_payload(**{field: value}))
    assert answer["result"]["code"] == INVALID_PARAMETER
    assert message in json.dumps(errors_of(answer)), answer
    assert not OOBAuthentication.objects.exists()


def test_missing_and_unknown_fields(api):
    answer = api.call(START, {"cardReference": "tok_1234", "colour": "blue"})
    errors = errors_of(answer)
    assert answer["result"]["code"] == INVALID_PARAMETER
    assert errors["colour"] == "unknown parameter"
    for name in ("transactionId", "amount", "currency", "merchantName"):
        assert errors[name].startswith("is required")
    assert "expiry" not in errors


def test_a_transaction_id_is_used_once_per_requestor(api, make_requestor):
    first = api.call(START, start_payload(transactionId="same"))
    again = api.call(START, start_payload(transactionId="same"))
    assert again["result"]["code"] == "200.300.405"
    assert again["authenticationId"] == first["authenticationId"]
    other = Api(make_requestor("other-client", scopes=ALL_SCOPES))
    assert other.call(START, start_payload(transactionId="same"))["result"]["code"] == SUCCESS


def test_otp_field_errors(api):
    answer = api.call(
        SEND_OTP, {"cardReference": "tok_1234", "transactionId": "t", "channel": "FAX"}
    )
    assert "one of SMS, EMAIL" in errors_of(answer)["channel"]
    answer = api.call(VERIFY_OTP, {"otpId": "x" * 32, "code": "12345"})
    errors = errors_of(answer)
    assert set(errors) == {"otpId", "code"}
    assert all(e["value"] != "12345" for e in answer["result"]["parameterErrors"])


def test_unknown_authentication_id(api):
    answer = api.call(INQUIRY, {"authenticationId": uuid.uuid4().hex})
    assert answer["result"]["code"] == "700.100.100"
    assert "status" not in answer


def test_a_requestor_cannot_inquire_about_another_requestors_authentication(api, make_requestor):
    started = api.call(START, start_payload())
    other = Api(make_requestor("other-client", scopes=ALL_SCOPES))
    answer = other.call(INQUIRY, {"authenticationId": started["authenticationId"]})
    assert answer["result"]["code"] == "700.100.100"
    assert "status" not in answer and "PENDING" not in json.dumps(answer)
    # ... nor verify its one-time password.
    sent = api.call(SEND_OTP, {"cardReference": "tok_1234", "transactionId": "t", "channel": "SMS"})
    answer = other.call(VERIFY_OTP, {"otpId": sent["otpId"], "code": sent["simulatorCode"]})
    assert answer["result"]["code"] == "700.100.100"
    assert OTPChallenge.objects.get(pk=sent["otpId"]).verified_at is None


# --- the answer's key -------------------------------------------------------------------------


def test_the_answer_is_encrypted_only_to_the_requestors_registered_rsa_key(
    issuer_keys, make_requestor
):
    own_rsa = new_rsa_key(2048)
    requestor = make_requestor("oob-client", scopes=ALL_SCOPES)
    requestor.profile.jwks = public_jwks(requestor.ec_key, own_rsa)
    requestor.profile.save()
    requestor.rsa_key = own_rsa
    api = Api(requestor)
    attacker = new_rsa_key(2048)
    body = encrypt_to_issuer(
        start_payload(),
        header={
            "jwk": attacker.export_public(as_dict=True),
            "jku": "https://attacker.example/jwks.json",
            "x5u": "https://attacker.example/cert.pem",
        },
    )
    response = api.post(START, body)
    assert response.status_code == 200
    assert header_of(response.content)["kid"] == own_rsa["kid"]
    assert set(header_of(response.content)) == {"alg", "enc", "kid"}
    assert decrypt(response.content, own_rsa)["result"]["code"] == SUCCESS
    for wrong in (attacker, issuer_enc().key, new_rsa_key(2048)):
        with pytest.raises(jwe.JWEError):
            decrypt(response.content, wrong)


# --- token validation ---------------------------------------------------------------------------


def _signed(claims: dict[str, Any], key: jwk.JWK, kid: str, typ: str = "at+jwt") -> str:
    token = jwt.JWT(header={"alg": "ES256", "kid": kid, "typ": typ}, claims=claims)
    token.make_signed_token(key)
    return token.serialize()


def _claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims = {
        "iss": tokens.issuer_id(),
        "sub": "oob-client",
        "client_id": "oob-client",
        "aud": "issuer-authorization-api",
        "scope": ALL_SCOPES,
        "iat": now,
        "exp": now + 600,
        "jti": uuid.uuid4().hex,
    }
    claims.update(overrides)
    return claims


def _assert_invalid_token(response, *, bare: bool = False) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 401, response.content
    challenge = response["WWW-Authenticate"]
    if bare:
        assert challenge == "Bearer"
    else:
        assert challenge.startswith('Bearer error="invalid_token", error_description="')
    assert response.json()["error"] == "invalid_token"
    assert response.json()["error_description"]


def test_a_valid_hand_made_token_is_accepted(api):
    signer = keys.active_key(keys.SIG)
    token = _signed(_claims(), signer.key, signer.kid)
    response = api.post(START, encrypt_to_issuer(start_payload()), token=token)
    assert response.status_code == 200


def test_missing_token(api):
    response = api.client.post(START, encrypt_to_issuer(start_payload()), content_type=JOSE)
    _assert_invalid_token(response, bare=True)
    response = api.post(START, encrypt_to_issuer(start_payload()), HTTP_AUTHORIZATION="Basic eDp5")
    _assert_invalid_token(response, bare=True)


@pytest.mark.parametrize(
    "token", ["", "garbage", "a.b", "a.b.c", "e30.e30.", "x" * 5000, "a.b.c.d.e"]
)
def test_malformed_tokens(api, token):
    response = api.post(START, encrypt_to_issuer(start_payload()), token=token or " ")
    _assert_invalid_token(response)


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": int(time.time()) - 10, "iat": int(time.time()) - 700}, "expired"),
        ({"aud": "another-api"}, "audience"),
        ({"aud": ["issuer-authorization-api", "x"]}, "audience"),
        ({"iss": "https://evil.example"}, "issuer"),
        ({"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}, "future"),
        ({"exp": None}, "required"),
    ],
)
def test_tokens_with_bad_claims(api, claims, reason):
    signer = keys.active_key(keys.SIG)
    token = _signed(
        {k: v for k, v in _claims(**claims).items() if v is not None}, signer.key, signer.kid
    )
    response = api.post(START, encrypt_to_issuer(start_payload()), token=token)
    _assert_invalid_token(response)
    assert reason in response.json()["error_description"]


def test_a_token_signed_by_an_unknown_key(api):
    signer = keys.active_key(keys.SIG)
    stranger = new_ec_key()
    for kid in (stranger["kid"], signer.kid):  # its own kid, or the issuer's kid
        response = api.post(
            START, encrypt_to_issuer(start_payload()), token=_signed(_claims(), stranger, kid)
        )
        _assert_invalid_token(response)
        assert not OOBAuthentication.objects.exists()


def test_a_token_with_the_wrong_typ_or_alg(api):
    signer = keys.active_key(keys.SIG)
    response = api.post(
        START,
        encrypt_to_issuer(start_payload()),
        token=_signed(_claims(), signer.key, signer.kid, typ="JWT"),
    )
    _assert_invalid_token(response)
    hs = jwt.JWT(header={"alg": "HS256", "kid": signer.kid, "typ": "at+jwt"}, claims=_claims())
    hs.make_signed_token(jwk.JWK.from_password(json.dumps(signer.public_jwk())))
    _assert_invalid_token(api.post(START, encrypt_to_issuer(start_payload()), token=hs.serialize()))


def test_a_token_of_an_issuer_key_pruned_after_rotation(issuer_keys, settings, make_requestor):
    for path in issuer_keys.glob("sig-*.pem"):
        path.unlink()
    grace = settings.ISSUER_ACCESS_TOKEN_SECONDS
    now = datetime.now(UTC)
    old = keys.generate(keys.SIG, now=now - timedelta(seconds=3 * grace))
    api = Api(make_requestor("oob-client", scopes=ALL_SCOPES))  # its token is signed by `old`
    assert json.loads(base64url_decode(api.token.split(".")[0]))["kid"] == old.kid
    assert api.post(START, encrypt_to_issuer(start_payload())).status_code == 200
    keys.generate(keys.SIG, now=now - timedelta(seconds=2 * grace))  # rotated long ago
    assert old.path in keys.prune()
    response = api.post(START, encrypt_to_issuer(start_payload()))
    _assert_invalid_token(response)
    assert "unknown signing key" in response.json()["error_description"]


def test_a_token_of_an_old_key_works_inside_the_grace_period(issuer_keys, make_requestor):
    api = Api(make_requestor("oob-client", scopes=ALL_SCOPES))
    keys.generate(keys.SIG, now=datetime.now(UTC) + timedelta(seconds=2))  # rotate now
    assert api.post(START, encrypt_to_issuer(start_payload())).status_code == 200


def test_a_token_of_a_client_no_longer_registered(api):
    api.requestor.profile.application.delete()
    response = api.post(START, encrypt_to_issuer(start_payload()))
    _assert_invalid_token(response)
    assert "no longer registered" in response.json()["error_description"]


def test_token_checks_come_before_the_body(api):
    response = api.post(START, b"not a jwe", content_type="text/plain", token="bad")
    assert response.status_code == 401


# --- scopes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "scope"),
    [(START, "START_OOB"), (INQUIRY, "CHECK_OOB"), (SEND_OTP, "OTP"), (VERIFY_OTP, "OTP")],
)
def test_each_operation_needs_its_scope(issuer_keys, make_requestor, path, scope):
    requestor = make_requestor("oob-client", scopes=ALL_SCOPES)
    others = " ".join(s for s in ALL_SCOPES.split() if s != scope)
    api = Api(requestor, scope=others)
    response = api.post(path, encrypt_to_issuer({"anything": "1"}))
    assert response.status_code == 403
    assert response["WWW-Authenticate"] == f'Bearer error="insufficient_scope", scope="{scope}"'
    assert response.json()["error"] == "insufficient_scope"
    assert not OOBAuthentication.objects.exists() and not OTPChallenge.objects.exists()


def test_unknown_operation_and_method(api):
    response = api.post("/issuer/v1/authentication/StartOOB", encrypt_to_issuer({}))
    assert response.status_code == 404
    assert response.json()["error"] == "invalid_request"
    response = api.post("/issuer/v1/card/Activate", encrypt_to_issuer({}))
    assert response.status_code == 404
    response = api.client.get(START, HTTP_AUTHORIZATION=f"Bearer {api.token}")
    assert response.status_code == 405 and response["Allow"] == "POST"


# --- JWE refusals --------------------------------------------------------------------------------


def _refused(response, words: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_request"
    assert words in body["error_description"], body
    assert not OOBAuthentication.objects.exists()


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ({"alg": "RSA1_5"}, "alg must be RSA-OAEP-256"),
        ({"alg": "RSA-OAEP"}, "alg must be RSA-OAEP-256"),
        ({"enc": "A256GCM"}, "enc must be A128GCM"),
        ({"enc": "A128CBC-HS256"}, "enc must be A128GCM"),
        ({"zip": "DEF"}, "zip"),
        ({"crit": ["exp"], "exp": 1}, "crit"),
        ({"kid": None}, "kid is required"),
        ({"kid": "no-such-key"}, "does not name a current encryption key"),
    ],
)
def test_jwe_header_refusals(api, header, words):
    _refused(api.post(START, encrypt_to_issuer(start_payload(), header=header)), words)


def test_alg_dir_and_ecdh_are_refused(api):
    body = encrypt_to_issuer(start_payload()).split(".")
    header = json_encode({"alg": "dir", "enc": "A128GCM", "kid": issuer_enc().kid})
    from jwcrypto.common import base64url_encode

    forged = ".".join([base64url_encode(header), "", *body[2:]])
    _refused(api.post(START, forged), "alg must be RSA-OAEP-256")


def test_a_tampered_tag_ciphertext_or_header(api):
    parts = encrypt_to_issuer(start_payload()).split(".")

    def flip(text: str) -> str:
        return ("A" if text[0] != "A" else "B") + text[1:]

    for index in (1, 2, 3, 4):
        tampered = list(parts)
        tampered[index] = flip(tampered[index])
        _refused(api.post(START, ".".join(tampered)), "could not be decrypted")
    # A header changed after encryption (the AAD): still the accepted algorithms, other bytes.
    header = json.loads(base64url_decode(parts[0]))
    from jwcrypto.common import base64url_encode

    tampered = [base64url_encode(json_encode({**header, "cty": "json"})), *parts[1:]]
    _refused(api.post(START, ".".join(tampered)), "could not be decrypted")


def test_encrypted_to_the_requestors_own_key(api):
    own = api.requestor.rsa_key
    _refused(
        api.post(START, encrypt_to_issuer(start_payload(), header={"kid": own["kid"]}, key=own)),
        "does not name a current encryption key",
    )
    # ... or to its own key with the issuer's kid in the header.
    _refused(api.post(START, encrypt_to_issuer(start_payload(), key=own)), "could not be decrypted")


def test_an_old_issuer_encryption_key_after_its_grace_period(api, settings):
    old = issuer_enc()
    body = encrypt_to_issuer(start_payload())
    grace = settings.ISSUER_ACCESS_TOKEN_SECONDS
    old_path = old.path.rename(old.path.with_name(f"enc-20000101000000-{old.kid}.pem"))
    assert old_path.exists()
    keys.generate(keys.ENC, now=datetime.now(UTC) - timedelta(seconds=2 * grace))
    _refused(api.post(START, body), "does not name a current encryption key")


def test_json_serialization_is_refused(api):
    enc_key = issuer_enc()
    message = jwcrypto_jwe.JWE(
        json.dumps(start_payload()).encode(),
        protected=json_encode({"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": enc_key.kid}),
    )
    message.add_recipient(enc_key.key)
    _refused(api.post(START, message.serialize()), "JSON serialization")
    _refused(api.post(START, encrypt_to_issuer(start_payload()) + ".x"), "5 dot-separated")
    _refused(api.post(START, "a.b.c"), "5 dot-separated")


def test_a_body_that_is_too_large(api, settings):
    body = encrypt_to_issuer({"merchantName": "x" * settings.ISSUER_MAX_JWE_BYTES})
    response = api.post(START, body)
    assert response.status_code == 413
    assert response.json()["error"] == "invalid_request"


def test_a_plaintext_above_the_bound(api):
    response = api.post(
        START, encrypt_to_issuer({"merchantName": "x" * (jwe.MAX_PLAINTEXT_BYTES + 1)})
    )
    _refused(response, "larger than")


def test_wrong_content_type(api):
    body = encrypt_to_issuer(start_payload())
    for content_type in ("application/json", "text/plain", "application/jose+json"):
        response = api.post(START, body, content_type=content_type)
        assert response.status_code == 415
        assert response.json()["error"] == "invalid_request"
    assert (
        api.post(START, body, content_type="application/jose; charset=us-ascii").status_code == 200
    )


@pytest.mark.parametrize(
    ("plaintext", "words"),
    [
        (b"not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'"text"', "must be a JSON object"),
        (b'{"a": 1, "a": 2}', "duplicate member"),
        (b"[" * 5000 + b"]" * 5000, "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_plaintext_that_is_not_a_json_object(api, plaintext, words):
    _refused(api.post(START, encrypt_to_issuer(plaintext)), words)


def test_errors_before_decryption_are_plain_json_and_never_cached(api):
    response = api.post(START, encrypt_to_issuer(start_payload(), header={"enc": "A256GCM"}))
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    ok = api.post(START, encrypt_to_issuer(start_payload()))
    assert ok["Cache-Control"] == "no-store"


def _encrypted_with_iv(payload: dict[str, Any], iv: bytes, tag_bytes: int = 16) -> str:
    """A JWE made by hand, as a sloppy (or hostile) requestor would: RSA-OAEP-256 key wrap,
    AES-GCM with an initialization vector of any length, the tag cut to `tag_bytes`."""
    import os

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    from jwcrypto.common import base64url_encode

    enc = issuer_enc()
    header = base64url_encode(
        json_encode({"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": enc.kid})
    )
    cek = os.urandom(16)
    public = load_pem_public_key(enc.key.export_to_pem())
    wrapped = public.encrypt(
        cek,
        padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None),
    )
    sealed = AESGCM(cek).encrypt(iv, json.dumps(payload).encode(), header.encode("ascii"))
    ciphertext, tag = sealed[:-16], sealed[-16:][:tag_bytes]
    return ".".join(
        [
            header,
            base64url_encode(wrapped),
            base64url_encode(iv),
            base64url_encode(ciphertext),
            base64url_encode(tag),
        ]
    )


def test_a128gcm_initialization_vectors_are_96_bits(api):
    """RFC 7518 5.3: A128GCM uses a 96-bit IV and a 128-bit tag; nothing else is decrypted."""
    good = api.post(START, _encrypted_with_iv(start_payload(), b"\x01" * 12))
    assert good.status_code == 200, good.content
    OOBAuthentication.objects.all().delete()
    for size in (8, 16, 32):
        _refused(api.post(START, _encrypted_with_iv(start_payload(), b"\x01" * size)), "96 bits")
    _refused(
        api.post(START, _encrypted_with_iv(start_payload(), b"\x01" * 12, tag_bytes=12)),
        "128 bits",
    )


# --- rate limiting (issue 22, core/ratelimit.py) ------------------------------------------------


def test_the_issuer_api_counts_per_requestor_after_its_token(
    settings, monkeypatch, issuer_keys, make_requestor
):
    """Over API_RATE_LIMIT a requestor is answered 429 too_many_requests with Retry-After and the
    result code, before anything is decrypted; another requestor goes on."""
    from tests.core.test_rate_limit import own_counters

    settings.API_RATE_LIMIT = "2/m"
    own_counters(settings, monkeypatch)
    api = Api(make_requestor("oob-client", scopes="START_OOB CHECK_OOB OTP"))
    other = Api(make_requestor("other-client", scopes="START_OOB CHECK_OOB OTP"))
    for _ in range(2):
        assert api.raw(START, start_payload()).status_code == 200
    refused = api.raw(START, start_payload())
    assert refused.status_code == 429
    assert refused.json()["error"] == "too_many_requests"
    assert refused.json()["error_description"].startswith("800.120.100")
    assert int(refused["Retry-After"]) >= 1
    bad_token = api.post(START, "x", token="not.a.token")
    assert bad_token.status_code == 401  # refused before it is counted
    assert other.raw(START, start_payload()).status_code == 200
