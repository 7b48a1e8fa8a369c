"""Registering requestors: `manage.py register_requestor`, the admin, and keys from a jwks_uri
(served by a loopback http.server the test starts)."""

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.hashers import identify_hasher
from django.core.management import call_command
from django.core.management.base import CommandError
from oauth2_provider.models import Application

from issuer.models import RequestorProfile, UsedAssertion
from issuer.protocol import requestors
from tests.issuer.conftest import SCOPES, new_ec_key, new_rsa_key, public_jwks


def register(*args: str) -> str:
    out = StringIO()
    call_command("register_requestor", *args, stdout=out)
    return out.getvalue()


def jwks_file(tmp_path: Path, jwks: Any, name: str = "requestor.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(jwks))
    return str(path)


@pytest.fixture(scope="module")
def rsa_key():
    return new_rsa_key(2048)


class JwksServer:
    """Serves `self.jwks` at http://127.0.0.1:<port>/jwks.json and counts the requests."""

    def __init__(self) -> None:
        self.jwks: Any = {}
        self.status = 200
        self.hits = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.hits += 1
                body = json.dumps(server.jwks).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"


@pytest.fixture
def jwks_server() -> Iterator[JwksServer]:
    server = JwksServer()
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(timeout=5)


# --- The command --------------------------------------------------------------------------------


def test_register_from_a_file(db, tmp_path, rsa_key):
    ec = new_ec_key()
    out = register(
        "--client-id",
        "oob-client",
        "--jwks-file",
        jwks_file(tmp_path, public_jwks(ec, rsa_key)),
        "--scopes",
        SCOPES,
    )
    assert "registered requestor oob-client" in out
    assert f"{ec['kid']} (EC P-256, sig)" in out
    assert f"{rsa_key['kid']} (RSA 2048, enc)" in out
    assert "scopes: START_OOB CHECK_OOB" in out

    application = Application.objects.get(client_id="oob-client")
    assert application.client_type == Application.CLIENT_CONFIDENTIAL
    assert application.authorization_grant_type == Application.GRANT_CLIENT_CREDENTIALS
    assert application.hash_client_secret
    identify_hasher(application.client_secret)  # stored hashed: nobody knows the secret
    profile = application.requestor
    assert profile.scope_set == {"START_OOB", "CHECK_OOB"}
    assert set(requestors.requestor_keys(profile)) == {ec["kid"], rsa_key["kid"]}
    assert requestors.requestor_encryption_key(profile)["kid"] == rsa_key["kid"]
    assert set(requestors.requestor_signing_keys(profile)) == {ec["kid"]}


def test_keys_without_use_are_accepted(db, tmp_path, rsa_key):
    path = jwks_file(tmp_path, public_jwks(new_ec_key(), rsa_key, use=False))
    assert "registered" in register("--client-id", "c1", "--jwks-file", path, "--scopes", "OTP")


def test_registering_again_updates_keys_and_scopes(db, tmp_path, rsa_key):
    first, second = new_ec_key(), new_ec_key()
    register(
        "--client-id", "oob-client",
        "--jwks-file", jwks_file(tmp_path, public_jwks(first, rsa_key), "a.json"),
        "--scopes", "START_OOB",
    )  # fmt: skip
    register(
        "--client-id", "oob-client",
        "--jwks-file", jwks_file(tmp_path, public_jwks(second, rsa_key), "b.json"),
        "--scopes", "START_OOB+CHECK_OOB",
    )  # fmt: skip
    assert Application.objects.filter(client_id="oob-client").count() == 1
    profile = RequestorProfile.objects.get()
    assert profile.scopes == "START_OOB CHECK_OOB"
    assert set(requestors.requestor_signing_keys(profile)) == {second["kid"]}


def refuse(tmp_path: Path, jwks: Any, *, scopes: str = SCOPES) -> str:
    with pytest.raises(CommandError) as refused:
        register(
            "--client-id", "oob-client",
            "--jwks-file", jwks_file(tmp_path, jwks),
            "--scopes", scopes,
        )  # fmt: skip
    assert not Application.objects.exists()
    assert not RequestorProfile.objects.exists()
    return str(refused.value)


def test_rsa_1024_is_refused(db, tmp_path):
    message = refuse(tmp_path, public_jwks(new_ec_key(), new_rsa_key(1024)))
    assert "RSA key of 1024 bits; at least 2048 are required" in message


def test_private_key_material_is_refused(db, tmp_path, rsa_key):
    ec = new_ec_key()
    with_private_ec = {"keys": [ec.export_private(as_dict=True), *public_jwks(rsa_key)["keys"]]}
    assert "private key material (d)" in refuse(tmp_path, with_private_ec)
    with_private_rsa = {"keys": [*public_jwks(ec)["keys"], rsa_key.export_private(as_dict=True)]}
    assert "private key material (d, dp, dq, p, q, qi)" in refuse(tmp_path, with_private_rsa)
    symmetric = {
        "keys": [*public_jwks(ec, rsa_key)["keys"], {"kty": "oct", "kid": "s", "k": "c2Vj"}]
    }
    assert "private key material (k)" in refuse(tmp_path, symmetric)


def test_unknown_scope_is_refused(db, tmp_path, rsa_key):
    message = refuse(tmp_path, public_jwks(new_ec_key(), rsa_key), scopes="START_OOB ADMIN")
    assert "unknown scope(s): ADMIN" in message


def test_empty_scopes_are_refused(db, tmp_path, rsa_key):
    assert "at least one scope" in refuse(tmp_path, public_jwks(new_ec_key(), rsa_key), scopes=" ")


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda ec, rsa: {"keys": [rsa]}, "needs an EC P-256 key"),
        (lambda ec, rsa: {"keys": [ec]}, "needs an RSA key"),
        (lambda ec, rsa: {"keys": [{**ec, "kid": None}, rsa]}, "has no kid"),
        (lambda ec, rsa: {"keys": [{**ec, "kid": rsa["kid"]}, rsa]}, "appears twice"),
        (lambda ec, rsa: {"keys": [{**ec, "use": "enc"}, rsa]}, "needs an EC P-256 key"),
        (lambda ec, rsa: {"keys": [ec, {**rsa, "use": "sig"}]}, "needs an RSA key"),
        (lambda ec, rsa: {"keys": [{**ec, "alg": "ES384"}, rsa]}, "alg must be ES256"),
        (lambda ec, rsa: {"keys": [ec, {**rsa, "alg": "RSA1_5"}]}, "alg must be RSA-OAEP-256"),
        (lambda ec, rsa: {"keys": [{**ec, "x": "AAAA"}, rsa]}, "not a valid JWK"),
        (lambda ec, rsa: {"keys": []}, "a JWK set is"),
        (lambda ec, rsa: [ec, rsa], "a JWK set is"),
    ],
)
def test_unusable_jwk_sets_are_refused(db, tmp_path, rsa_key, mangle, reason):
    ec, rsa = public_jwks(new_ec_key(), rsa_key)["keys"]
    assert reason in refuse(tmp_path, mangle(ec, rsa))


def test_ec_keys_must_be_p256(db, tmp_path, rsa_key):
    from jwcrypto import jwk

    p384 = jwk.JWK.generate(kty="EC", crv="P-384", kid="p384")
    jwks = {"keys": [p384.export_public(as_dict=True), *public_jwks(rsa_key)["keys"]]}
    assert "EC keys must be on P-256" in refuse(tmp_path, jwks)


def test_file_and_uri_are_exclusive_and_one_is_required(db, tmp_path):
    with pytest.raises(CommandError):
        register("--client-id", "x", "--scopes", SCOPES)
    with pytest.raises(CommandError):
        register(
            "--client-id", "x", "--jwks-file", "a.json", "--jwks-uri", "https://e.example/j",
            "--scopes", SCOPES,
        )  # fmt: skip


def test_unreadable_file(db, tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        register("--client-id", "x", "--jwks-file", str(tmp_path / "no.json"), "--scopes", SCOPES)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CommandError, match="not JSON"):
        register("--client-id", "x", "--jwks-file", str(tmp_path / "bad.json"), "--scopes", SCOPES)


# --- jwks_uri -----------------------------------------------------------------------------------


def test_jwks_uri_works(db, jwks_server, rsa_key):
    ec = new_ec_key()
    jwks_server.jwks = public_jwks(ec, rsa_key)
    out = register("--client-id", "uri-client", "--jwks-uri", jwks_server.url, "--scopes", SCOPES)
    assert f"keys from {jwks_server.url}" in out
    assert f"{ec['kid']} (EC P-256, sig)" in out
    profile = RequestorProfile.objects.get(application__client_id="uri-client")
    assert profile.jwks_uri == jwks_server.url
    assert profile.jwks == {}


def test_jwks_uri_must_answer_a_valid_set(db, jwks_server, rsa_key):
    jwks_server.jwks = public_jwks(new_ec_key(), new_rsa_key(1024))
    with pytest.raises(CommandError, match="1024 bits"):
        register("--client-id", "c", "--jwks-uri", jwks_server.url, "--scopes", SCOPES)
    jwks_server.status = 404
    with pytest.raises(CommandError, match="HTTP 404"):
        register("--client-id", "c", "--jwks-uri", jwks_server.url, "--scopes", SCOPES)
    assert not Application.objects.exists()


def test_jwks_uri_must_be_https_off_loopback(db):
    with pytest.raises(CommandError, match="must be an https URL"):
        register(
            "--client-id", "c", "--jwks-uri", "http://requestor.example/jwks.json",
            "--scopes", SCOPES,
        )  # fmt: skip


def test_jwks_uri_unreachable(db):
    with pytest.raises(CommandError, match="jwks_uri"):
        register("--client-id", "c", "--jwks-uri", "http://127.0.0.1:9/j", "--scopes", SCOPES)


def test_token_with_keys_from_a_jwks_uri_is_fetched_once_and_cached(
    client, db, issuer_keys, jwks_server, rsa_key, monkeypatch
):
    from tests.issuer.conftest import Requestor

    ec = new_ec_key()
    jwks_server.jwks = public_jwks(ec, rsa_key)
    profile = requestors.requestor_register(
        client_id="uri-client", jwks_uri=jwks_server.url, scopes=SCOPES
    )
    uri_requestor = Requestor("uri-client", ec, rsa_key, profile)
    hits = jwks_server.hits  # registration fetched it once

    assert uri_requestor.post_token(client).status_code == 200
    assert uri_requestor.post_token(client).status_code == 200
    assert jwks_server.hits == hits + 1  # then cached

    # The requestor rotates: a new kid is looked up again, once the cached copy is 30 s old.
    rotated = new_ec_key()
    jwks_server.jwks = public_jwks(rotated, rsa_key)
    fresh = Requestor("uri-client", rotated, rsa_key, profile)
    assert fresh.post_token(client).status_code == 401  # cached copy too young to refetch
    real_time = time.time
    monkeypatch.setattr(requestors.time, "time", lambda: real_time() + 31)
    assert fresh.post_token(client).status_code == 200
    assert jwks_server.hits == hits + 2


def test_token_refused_when_the_jwks_uri_fails(client, db, issuer_keys, jwks_server, rsa_key):
    from tests.issuer.conftest import Requestor

    ec = new_ec_key()
    jwks_server.jwks = public_jwks(ec, rsa_key)
    profile = requestors.requestor_register(
        client_id="uri-client", jwks_uri=jwks_server.url, scopes=SCOPES
    )
    jwks_server.status = 500
    response = Requestor("uri-client", ec, rsa_key, profile).post_token(client)
    assert response.status_code == 401
    assert response.json() == {
        "error": "invalid_client",
        "error_description": "the client's JWK set is unavailable",
    }


# --- The admin ----------------------------------------------------------------------------------


@pytest.fixture
def staff_client(client, admin_user):
    client.force_login(admin_user)
    return client


def test_admin_adds_a_requestor_with_the_same_validation(staff_client, rsa_key):
    application = Application.objects.create(
        client_id="admin-client",
        name="Admin client",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="https://e.example/cb",
    )
    url = "/admin/issuer/requestorprofile/add/"
    weak = public_jwks(new_ec_key(), new_rsa_key(1024))
    form = {"application": application.pk, "jwks": json.dumps(weak), "scopes": "START_OOB"}
    response = staff_client.post(url, form)
    assert response.status_code == 200
    assert "at least 2048 are required" in response.content.decode()
    assert not RequestorProfile.objects.exists()

    form = {**form, "scopes": "NOPE"}
    assert "unknown scope(s): NOPE" in staff_client.post(url, form).content.decode()

    ec = new_ec_key()
    form = {**form, "jwks": json.dumps(public_jwks(ec, rsa_key)), "scopes": "START_OOB"}
    response = staff_client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:3000]
    profile = RequestorProfile.objects.get()
    assert profile.scopes == "START_OOB"
    application.refresh_from_db()
    # Saved through requestor_register: a confidential client-credentials client now.
    assert application.authorization_grant_type == Application.GRANT_CLIENT_CREDENTIALS
    assert application.client_type == Application.CLIENT_CONFIDENTIAL

    page = staff_client.get(f"/admin/issuer/requestorprofile/{profile.pk}/change/")
    assert f"{ec['kid']} (EC P-256, sig)" in page.content.decode()


def test_admin_refuses_private_keys(staff_client, requestor):
    url = f"/admin/issuer/requestorprofile/{requestor.profile.pk}/change/"
    private = {"keys": [requestor.ec_key.export_private(as_dict=True)]}
    response = staff_client.post(url, {"jwks": json.dumps(private), "scopes": SCOPES})
    assert response.status_code == 200
    assert "private key material" in response.content.decode()
    requestor.profile.refresh_from_db()
    assert "d" not in requestor.profile.jwks["keys"][0]


def test_admin_used_assertions_are_read_only(staff_client, requestor, issuer_keys, client):
    assert requestor.post_token().status_code == 200
    used = UsedAssertion.objects.get()
    listing = staff_client.get("/admin/issuer/usedassertion/")
    assert listing.status_code == 200
    assert used.jti in listing.content.decode()
    assert staff_client.get("/admin/issuer/usedassertion/add/").status_code == 403
    assert staff_client.post(f"/admin/issuer/usedassertion/{used.pk}/delete/").status_code == 403
    # DOT's own admin keeps the audit rows.
    assert staff_client.get("/admin/oauth2_provider/accesstoken/").status_code == 200
