"""POST /oauth2/token: client credentials with a private_key_jwt client assertion (RFC 7523).

The happy path, then the attack list of issue 5 one by one, each asserting the status, the
RFC 6749 error code and that no token (and no audit row) was issued.
"""

import hashlib
import hmac
import json
import logging
import os
import subprocess
import sys
import time
import uuid
from urllib.parse import quote, urlencode

import pytest
import requests
from django.conf import settings
from django.db import connection
from jwcrypto import jwe, jwk, jws
from jwcrypto.common import base64url_encode, json_encode
from oauth2_provider.models import AccessToken

from issuer.models import UsedAssertion
from issuer.protocol import access_tokens as tokens
from issuer.protocol import keys
from issuer.protocol.assertions import token_endpoint_url, used_assertions_purge
from tests.issuer.conftest import FORM, TOKEN_PATH, new_ec_key, sign, unsigned

pytestmark = pytest.mark.usefixtures("issuer_keys")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def refused(response, status: int, error: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"] == error, body
    assert body["error_description"]
    assert response["Cache-Control"] == "no-store"
    assert not AccessToken.objects.exists()
    return body


# --- The happy path -----------------------------------------------------------------------------


def test_token_is_an_es256_jwt_signed_by_the_issuer(client, requestor):
    response = requestor.post_token(client)

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == settings.ISSUER_ACCESS_TOKEN_SECONDS == 3600
    assert body["scope"] == "START_OOB CHECK_OOB"

    # Verified with nothing but the published JWK set, as a requestor would.
    jwks = jwk.JWKSet.from_json(json.dumps(client.get("/.well-known/jwks.json").json()))
    token = jws.JWS()
    token.deserialize(body["access_token"])
    header = token.jose_header
    assert header["alg"] == "ES256"
    assert header["typ"] == "at+jwt"
    assert header["kid"] == keys.active_key(keys.SIG).kid
    token.verify(jwks.get_key(header["kid"]), alg="ES256")
    claims = json.loads(token.payload)
    assert claims["iss"] == settings.ISSUER_BASE_URL
    assert claims["sub"] == "oob-client"
    assert claims["aud"] == settings.ISSUER_API_AUDIENCE
    assert claims["scope"] == "START_OOB CHECK_OOB"
    assert claims["exp"] - claims["iat"] == 3600
    assert abs(claims["iat"] - time.time()) < 10
    assert claims["jti"]

    assert tokens.validate_access_token(body["access_token"])["sub"] == "oob-client"

    audit = AccessToken.objects.get()
    assert audit.token == claims["jti"]  # a reference, not a usable token
    assert audit.application.client_id == "oob-client"
    assert audit.scope == "START_OOB CHECK_OOB"
    assert int(audit.expires.timestamp()) == claims["exp"]
    assert UsedAssertion.objects.filter(client_id="oob-client").count() == 1


@pytest.mark.parametrize(
    ("scope", "granted"),
    [
        ("START_OOB", "START_OOB"),
        ("CHECK_OOB START_OOB", "CHECK_OOB START_OOB"),
        ("START_OOB+CHECK_OOB", "START_OOB CHECK_OOB"),  # plus-encoded once more by the client
        ("START_OOB  START_OOB", "START_OOB"),
    ],
)
def test_scope_is_space_separated_or_plus_encoded(client, requestor, scope, granted):
    response = requestor.post_token(client, scope=scope)
    assert response.status_code == 200, response.content
    assert response.json()["scope"] == granted


def test_plus_encoded_form_body(client, requestor):
    # What a browser-style form encoder sends: spaces as "+".
    body = urlencode(requestor.token_form())
    assert "scope=START_OOB+CHECK_OOB" in body
    response = client.post(TOKEN_PATH, body, content_type=FORM)
    assert response.json()["scope"] == "START_OOB CHECK_OOB"


def test_clock_skew_is_tolerated_up_to_five_minutes(client, requestor):
    now = int(time.time())
    late = requestor.assertion(iat=now - 400, exp=now - 200)  # expired 200 s ago, within skew
    assert requestor.post_token(client, client_assertion=late).status_code == 200
    early = requestor.assertion(iat=now + 200, exp=now + 300)  # clock 200 s ahead
    assert requestor.post_token(client, client_assertion=early).status_code == 200


def test_typ_may_be_absent(client, requestor):
    assertion = requestor.assertion(header={"typ": None})
    assert requestor.post_token(client, client_assertion=assertion).status_code == 200


# --- Signature and header attacks: 401 invalid_client --------------------------------------------


def test_alg_none_is_refused(client, requestor):
    assertion = unsigned({"alg": "none", "typ": "JWT", "kid": requestor.kid}, requestor.claims())
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_alg_none_with_an_empty_signature_part_is_refused(client, requestor):
    assertion = unsigned({"alg": "none", "kid": requestor.kid}, requestor.claims())
    assert assertion.endswith(".")
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_hs256_keyed_with_the_public_key_is_refused(client, requestor):
    header = {"alg": "HS256", "typ": "JWT", "kid": requestor.kid}
    claims = requestor.claims()
    for secret in (
        requestor.ec_key.export_to_pem(),  # the public key's PEM, the classic confusion
        json.dumps(requestor.ec_key.export_public(as_dict=True)).encode(),
    ):
        signing_input = (
            f"{base64url_encode(json_encode(header))}.{base64url_encode(json_encode(claims))}"
        )
        mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        assertion = f"{signing_input}.{base64url_encode(mac)}"
        response = requestor.post_token(client, client_assertion=assertion)
        assert refused(response, 401, "invalid_client")["error_description"].endswith("ES256")


def test_rs256_is_refused(client, requestor):
    header = {"alg": "RS256", "typ": "JWT", "kid": requestor.kid}
    assertion = sign(header, requestor.claims(), requestor.rsa_key)
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_rs256_with_the_rsa_keys_own_kid_is_refused(client, requestor):
    header = {"alg": "RS256", "typ": "JWT", "kid": requestor.rsa_key["kid"]}
    assertion = sign(header, requestor.claims(), requestor.rsa_key)
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_es256_naming_the_rsa_encryption_key_is_refused(client, requestor):
    assertion = requestor.assertion(header={"kid": requestor.rsa_key["kid"]})
    body = refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")
    assert "kid" in body["error_description"]


def test_unknown_kid_is_refused(client, requestor):
    assertion = requestor.assertion(header={"kid": "no-such-key"})
    response = requestor.post_token(client, client_assertion=assertion)
    body = refused(response, 401, "invalid_client")
    assert "kid" in body["error_description"]
    assert response["WWW-Authenticate"].startswith('Bearer error="invalid_client"')


def test_missing_kid_is_refused(client, requestor):
    assertion = requestor.assertion(header={"kid": None})
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_another_clients_key_is_refused(client, requestor, make_requestor):
    other = make_requestor("other-client")
    # Signed with the other client's key under its own kid: not a key of oob-client.
    with_other_kid = requestor.assertion(header={"kid": other.kid}, key=other.ec_key)
    refused(requestor.post_token(client, client_assertion=with_other_kid), 401, "invalid_client")
    # Signed with the other client's key under oob-client's kid: the signature fails.
    with_own_kid = requestor.assertion(key=other.ec_key)
    refused(requestor.post_token(client, client_assertion=with_own_kid), 401, "invalid_client")
    # The other client's own, valid assertion presented as oob-client: iss is not client_id
    # (its kid is unknown to oob-client first).
    theirs = other.assertion()
    refused(requestor.post_token(client, client_assertion=theirs), 401, "invalid_client")


def test_a_tampered_payload_is_refused(client, requestor):
    header, _, signature = requestor.assertion().split(".")
    forged = base64url_encode(json.dumps(requestor.claims(sub="someone-else")))
    assertion = f"{header}.{forged}.{signature}"
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_unknown_client_is_refused(client, requestor):
    response = requestor.post_token(
        client, client_id="nobody", client_assertion=requestor.assertion(iss="nobody", sub="nobody")
    )
    refused(response, 401, "invalid_client")
    assert "WWW-Authenticate" in response


def test_application_without_requestor_profile_is_refused(client, requestor):
    requestor.profile.delete()
    refused(requestor.post_token(client), 401, "invalid_client")


def test_unknown_crit_is_refused(client, requestor):
    assertion = requestor.assertion(header={"crit": ["exp-ext"], "exp-ext": 1})
    body = refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")
    assert "crit" in body["error_description"]


def test_unencoded_payload_option_is_refused(client, requestor):
    assertion = requestor.assertion(header={"crit": ["b64"], "b64": True})
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_typ_other_than_jwt_is_refused(client, requestor):
    assertion = requestor.assertion(header={"typ": "at+jwt"})
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_jwk_header_key_is_not_used(client, requestor):
    """An assertion signed by a key given in its own jwk header is refused."""
    attacker = new_ec_key()
    embedded = attacker.export_public(as_dict=True)
    for kid in (requestor.kid, attacker["kid"]):
        assertion = requestor.assertion(header={"kid": kid, "jwk": embedded}, key=attacker)
        refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


def test_jku_x5u_x5c_headers_are_ignored(client, requestor, monkeypatch):
    """A valid assertion naming key URLs still verifies with the registered key, and nothing
    is fetched."""

    def no_network(*args, **kwargs):
        raise AssertionError(f"fetched {args} {kwargs}")

    monkeypatch.setattr(requests, "get", no_network)
    monkeypatch.setattr(requests.Session, "request", no_network)
    assertion = requestor.assertion(
        header={
            "jku": "http://127.0.0.1:9/attacker-jwks.json",
            "x5u": "http://127.0.0.1:9/attacker.pem",
            "x5c": ["MIIB"],
        }
    )
    assert requestor.post_token(client, client_assertion=assertion).status_code == 200


def test_jku_pointing_at_the_attackers_keys_does_not_help(client, requestor):
    attacker = new_ec_key()
    assertion = requestor.assertion(
        header={"kid": attacker["kid"], "jku": "http://127.0.0.1:9/attacker-jwks.json"},
        key=attacker,
    )
    refused(requestor.post_token(client, client_assertion=assertion), 401, "invalid_client")


# --- Claim violations: 400 invalid_grant ---------------------------------------------------------


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"sub": "someone-else"}, "iss and sub differ"),
        ({"iss": "other-client", "sub": "other-client"}, "iss is not the client_id"),
        ({"aud": "https://elsewhere.example/oauth2/token"}, "aud"),
        ({"aud": "http://127.0.0.1:8000/oauth2/token/"}, "aud"),
        ({"aud": [f"{settings.ISSUER_BASE_URL}/oauth2/token"]}, "aud"),  # arrays refused
        ({"jti": None}, "jti"),
        ({"exp": None}, "exp"),
        ({"iat": None}, "iat"),
        ({"iss": None}, "iss"),
        ({"sub": None}, "sub"),
        ({"aud": None}, "aud"),
        ({"jti": ""}, "jti"),
        ({"jti": "x" * 256}, "jti"),
        ({"exp": "soon"}, "NumericDate"),
    ],
)
def test_claim_violations_are_invalid_grant(client, requestor, claims, reason):
    response = requestor.post_token(client, client_assertion=requestor.assertion(**claims))
    body = refused(response, 400, "invalid_grant")
    assert reason in body["error_description"]


def test_expired_assertion(client, requestor):
    now = int(time.time())
    assertion = requestor.assertion(iat=now - 700, exp=now - 400)  # 400 s ago > 300 s skew
    body = refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_grant")
    assert "expired" in body["error_description"]


def test_lifetime_over_five_minutes(client, requestor):
    now = int(time.time())
    assertion = requestor.assertion(iat=now, exp=now + 301)
    body = refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_grant")
    assert "300" in body["error_description"]
    ok = requestor.assertion(iat=now, exp=now + 300)
    assert requestor.post_token(client, client_assertion=ok).status_code == 200


def test_iat_in_the_future_beyond_skew(client, requestor):
    now = int(time.time())
    assertion = requestor.assertion(iat=now + 400, exp=now + 500)
    body = refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_grant")
    assert "future" in body["error_description"]


def test_exp_before_iat(client, requestor):
    now = int(time.time())
    assertion = requestor.assertion(iat=now, exp=now - 1)
    refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_grant")


def test_nbf_in_the_future_beyond_skew(client, requestor):
    assertion = requestor.assertion(nbf=int(time.time()) + 400)
    refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_grant")


def test_replayed_jti_is_refused(client, requestor):
    form = requestor.token_form()
    assert client.post(TOKEN_PATH, urlencode(form), content_type=FORM).status_code == 200
    again = client.post(TOKEN_PATH, urlencode(form), content_type=FORM)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
    assert "replay" in again.json()["error_description"]
    assert AccessToken.objects.count() == 1


def test_replayed_jti_in_a_new_assertion_is_refused(client, requestor):
    jti = uuid.uuid4().hex
    first = requestor.post_token(client, client_assertion=requestor.assertion(jti=jti))
    assert first.status_code == 200
    fresh = requestor.assertion(jti=jti, iat=int(time.time()) + 1)  # other bytes, same jti
    second = requestor.post_token(client, client_assertion=fresh)
    assert second.status_code == 400
    assert second.json()["error"] == "invalid_grant"


def test_the_same_jti_is_independent_per_client(client, requestor, make_requestor):
    other = make_requestor("other-client")
    mine = requestor.post_token(client, client_assertion=requestor.assertion(jti="j1"))
    theirs = other.post_token(client, client_assertion=other.assertion(jti="j1"))
    assert (mine.status_code, theirs.status_code) == (200, 200)


def test_a_refused_scope_leaves_the_jti_unused(client, requestor, make_requestor):
    narrow = make_requestor("narrow-client", scopes="CHECK_OOB")
    form = narrow.token_form(scope="START_OOB")
    assert client.post(TOKEN_PATH, urlencode(form), content_type=FORM).status_code == 400
    assert not UsedAssertion.objects.exists()


def test_used_assertions_are_kept_until_exp_plus_skew_then_purged(client, requestor):
    now = int(time.time())
    response = requestor.post_token(client, client_assertion=requestor.assertion(exp=now + 60))
    assert response.status_code == 200
    row = UsedAssertion.objects.get()
    assert int(row.expires_at.timestamp()) == now + 60 + settings.ISSUER_CLOCK_SKEW_SECONDS
    assert used_assertions_purge(now=row.expires_at.replace(microsecond=0)) == 1
    assert not UsedAssertion.objects.exists()


def test_purge_task_keeps_live_rows(client, requestor):
    from issuer.tasks import purge_used_assertions

    assert requestor.post_token(client).status_code == 200
    assert purge_used_assertions() == 0
    assert UsedAssertion.objects.count() == 1


# --- Malformed assertions and requests: 400 invalid_request --------------------------------------


def test_jwe_instead_of_jws_is_refused(client, requestor):
    token = jwe.JWE(
        json.dumps(requestor.claims()).encode(),
        protected={"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": keys.active_key("enc").kid},
    )
    token.add_recipient(keys.active_key("enc").key)
    assertion = token.serialize(compact=True)
    assert assertion.count(".") == 4
    body = refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_request")
    assert "JWE" in body["error_description"]


def test_json_serialization_instead_of_compact_is_refused(client, requestor):
    token = jws.JWS(json.dumps(requestor.claims()).encode())
    token.add_signature(
        requestor.ec_key, alg=None, protected={"alg": "ES256", "kid": requestor.kid}
    )
    for assertion in (token.serialize(), token.serialize(compact=False)):
        assert assertion.startswith("{")
        body = refused(
            requestor.post_token(client, client_assertion=assertion), 400, "invalid_request"
        )
        assert "JSON serialization" in body["error_description"]


@pytest.mark.parametrize(
    "assertion",
    ["not-a-jwt", "a.b", "a.b.c.d", "e30.e30.!!!", "bm90LWpzb24.e30.c2ln", "WzFd.e30.c2ln"],
)
def test_malformed_assertion(client, requestor, assertion):
    refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_request")


def test_duplicate_header_member_is_refused(client, requestor):
    header = f'{{"alg":"ES256","kid":"{requestor.kid}","alg":"none"}}'
    assertion = (
        f"{base64url_encode(header)}.{base64url_encode(json.dumps(requestor.claims()))}.c2ln"
    )
    refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_request")


def test_over_size_assertion_is_refused(client, requestor):
    padding = "x" * settings.ISSUER_MAX_ASSERTION_BYTES
    assertion = requestor.assertion(pad=padding)
    assert len(assertion) > settings.ISSUER_MAX_ASSERTION_BYTES
    body = refused(requestor.post_token(client, client_assertion=assertion), 400, "invalid_request")
    assert "size" in body["error_description"] or "exceeds" in body["error_description"]


def test_assertion_just_under_the_limit_is_read(client, requestor, settings):
    settings.ISSUER_MAX_ASSERTION_BYTES = 2048
    small = requestor.assertion(pad="x" * 1000)
    assert len(small) < 2048
    assert requestor.post_token(client, client_assertion=small).status_code == 200
    big = requestor.assertion(pad="x" * 1600)
    assert len(big) > 2048
    response = requestor.post_token(client, client_assertion=big)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "2048" in response.json()["error_description"]


def test_client_secret_is_refused(client, requestor):
    body = refused(requestor.post_token(client, client_secret="s3cret"), 400, "invalid_request")
    assert "client_secret" in body["error_description"]


def test_basic_authorization_header_is_refused(client, requestor):
    response = client.post(
        TOKEN_PATH,
        urlencode(requestor.token_form()),
        content_type=FORM,
        HTTP_AUTHORIZATION="Basic b29iLWNsaWVudDpzZWNyZXQ=",
    )
    refused(response, 400, "invalid_request")


@pytest.mark.parametrize(
    "name", ["grant_type", "client_id", "scope", "client_assertion_type", "client_assertion"]
)
def test_missing_parameter(client, requestor, name):
    body = refused(requestor.post_token(client, **{name: None}), 400, "invalid_request")
    assert name in body["error_description"]


@pytest.mark.parametrize(
    "name", ["grant_type", "client_id", "scope", "client_assertion_type", "client_assertion"]
)
def test_empty_parameter(client, requestor, name):
    refused(requestor.post_token(client, **{name: ""}), 400, "invalid_request")


@pytest.mark.parametrize("name", ["client_id", "client_assertion", "scope", "grant_type"])
def test_repeated_parameter(client, requestor, name):
    form = requestor.token_form()
    body = urlencode(form) + f"&{name}={quote(form[name])}"
    response = client.post(TOKEN_PATH, body, content_type=FORM)
    assert refused(response, 400, "invalid_request")["error_description"].endswith(name)


def test_wrong_assertion_type(client, requestor):
    response = requestor.post_token(
        client, client_assertion_type="urn:ietf:params:oauth:client-assertion-type:saml2-bearer"
    )
    refused(response, 400, "invalid_request")


def test_parameters_in_the_query_string_are_refused(client, requestor):
    form = requestor.token_form()
    response = client.post(
        f"{TOKEN_PATH}?client_assertion={form['client_assertion']}",
        urlencode(form),
        content_type=FORM,
    )
    refused(response, 400, "invalid_request")


def test_wrong_content_type(client, requestor):
    response = client.post(TOKEN_PATH, requestor.token_form(), content_type="application/json")
    refused(response, 400, "invalid_request")
    multipart = client.post(TOKEN_PATH, requestor.token_form())  # the test client's default
    refused(multipart, 400, "invalid_request")


def test_get_is_not_allowed(client):
    response = client.get(TOKEN_PATH)
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json()["error"] == "invalid_request"


def test_unsupported_grant_type(client, requestor):
    for grant in ("password", "authorization_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"):
        response = requestor.post_token(client, grant_type=grant)
        refused(response, 400, "unsupported_grant_type")


# --- Scopes: 400 invalid_scope -------------------------------------------------------------------


def test_scope_not_allowed_for_the_client(client, make_requestor):
    narrow = make_requestor("narrow-client", scopes="CHECK_OOB")
    body = refused(narrow.post_token(client, scope="START_OOB CHECK_OOB"), 400, "invalid_scope")
    assert "START_OOB" in body["error_description"]
    assert narrow.post_token(client, scope="CHECK_OOB").status_code == 200


def test_unknown_scope(client, requestor):
    refused(requestor.post_token(client, scope="START_OOB ADMIN"), 400, "invalid_scope")


def test_scope_is_checked_after_authentication(client, requestor):
    # An unauthenticated caller learns nothing about which scopes a client holds.
    assertion = requestor.assertion(header={"kid": "no-such-key"})
    response = requestor.post_token(client, scope="ADMIN", client_assertion=assertion)
    refused(response, 401, "invalid_client")


# --- Logging ------------------------------------------------------------------------------------


def test_refusals_are_logged_with_the_client_id_never_the_assertion(client, requestor, caplog):
    assertion = requestor.assertion(sub="someone-else")
    with caplog.at_level(logging.INFO, logger="issuer.oauth"):
        requestor.post_token(client, client_assertion=assertion)
    text = caplog.text
    assert "client_id='oob-client'" in text
    assert "invalid_grant" in text
    assert assertion not in text
    assert assertion.split(".")[2] not in text


# --- Replay across processes -------------------------------------------------------------------

POSTER = """
import sys, urllib.error, urllib.request
request = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST",
    headers={"Content-Type": "application/x-www-form-urlencoded"})
try:
    with urllib.request.urlopen(request, timeout=30) as answer:
        print(answer.status, answer.read().decode())
except urllib.error.HTTPError as refused:
    print(refused.code, refused.read().decode())
"""


@pytest.mark.django_db(transaction=True)
def test_replay_from_a_second_process_is_refused(live_server, requestor, settings):
    settings.ISSUER_BASE_URL = live_server.url
    url = live_server.url + TOKEN_PATH
    body = urlencode(requestor.token_form())

    first = requests.post(url, data=body, headers={"Content-Type": FORM}, timeout=30)
    assert first.status_code == 200, first.text

    run = subprocess.run(
        [sys.executable, "-c", POSTER, url, body], capture_output=True, text=True, timeout=60
    )
    status, _, answer = run.stdout.strip().partition(" ")
    assert status == "400", run.stdout + run.stderr
    assert json.loads(answer)["error"] == "invalid_grant"


RACER = """
import json, os, sys, time
import django
django.setup()
from django.test import Client
body, start = sys.argv[1], float(sys.argv[2])
client = Client()
client.get("/readyz")  # connect before the start line
while time.time() < start:
    time.sleep(0.0005)
answer = client.post("/oauth2/token", body, content_type="application/x-www-form-urlencoded")
print(json.dumps({"status": answer.status_code, "body": answer.json()}))
"""
RACERS = 4


def _test_database_url() -> str:
    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "", safe="")
    password = quote(db.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = quote(db.get("HOST") or "127.0.0.1", safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_assertion_raced_by_four_processes_issues_one_token(requestor, issuer_keys):
    """Four Django processes, each with its own PostgreSQL connection, present the same
    assertion at the same moment: the jti's unique index lets exactly one through."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": _test_database_url(),
        "ISSUER_KEYS_DIR": str(issuer_keys),
        "ISSUER_BASE_URL": settings.ISSUER_BASE_URL,
        "LOG_LEVEL": "WARNING",
    }
    body = urlencode(requestor.token_form())
    start = time.time() + 8
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, body, str(start)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(RACERS)
    ]
    answers = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            answers.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    statuses = sorted(a["status"] for a in answers)
    assert statuses == [200] + [400] * (RACERS - 1), answers
    assert {a["body"].get("error") for a in answers if a["status"] == 400} == {"invalid_grant"}
    assert AccessToken.objects.count() == 1
    assert UsedAssertion.objects.count() == 1


# --- Interoperability ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_authlib_private_key_jwt_client_gets_a_token(live_server, requestor, settings):
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7523 import PrivateKeyJWT
    from joserfc.jwk import ECKey

    settings.ISSUER_BASE_URL = live_server.url
    token_url = live_server.url + TOKEN_PATH
    assert token_url == token_endpoint_url()
    private_key = ECKey.import_key(requestor.ec_key.export_private(as_dict=True))
    auth = PrivateKeyJWT(
        token_url,
        alg="ES256",
        headers={"kid": requestor.kid},
        # Authlib's default lifetime is an hour; the spec allows five minutes.
        claims={"exp": int(time.time()) + 120},
    )
    with OAuth2Session(
        requestor.client_id,
        private_key,
        token_endpoint_auth_method=auth,
        scope="START_OOB CHECK_OOB",
    ) as session:
        # The spec makes client_id a required form field; Authlib puts it in the assertion only.
        token = session.fetch_token(
            token_url, grant_type="client_credentials", client_id=requestor.client_id
        )

    assert token["token_type"] == "Bearer"
    assert token["scope"] == "START_OOB CHECK_OOB"
    claims = tokens.validate_access_token(token["access_token"])
    assert claims["sub"] == "oob-client"
    assert claims["iss"] == live_server.url
