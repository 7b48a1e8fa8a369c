"""The requestor client (issuer.client) and `manage.py issuer_client` against a live server: the
documented path keygen -> register_requestor -> issuer_client, the cardholder's answer over
HTTP, token reuse, refusals, and the issuer rotating its encryption key."""

import json
import os
import stat
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.core.management import CommandError, call_command

from issuer.models import OOBAuthentication, UsedAssertion
from issuer.protocol import keys
from issuer.protocol.client import IssuerClientError, RequestorClient, generate_keys, public_jwks
from issuer.protocol.jwe import JWEError
from tests.issuer.conftest import issue_cards
from tests.issuer.test_api import start_payload

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def issuer(live_server, issuer_keys, settings) -> str:
    """The live server's URL, which the issuer also uses for assertion aud and its links."""
    settings.ISSUER_BASE_URL = live_server.url
    return live_server.url


@pytest.fixture
def key_files(tmp_path) -> tuple[Path, Path]:
    private, public = tmp_path / "requestor-private.json", tmp_path / "requestor.json"
    out = StringIO()
    call_command(
        "issuer_client", "keygen", "--out", private, "--public-out", public, "--rsa-bits", "2048",
        stdout=out,
    )  # fmt: skip
    assert "register it: python manage.py register_requestor" in out.getvalue()
    return private, public


def register(public: Path, scopes: str = "START_OOB CHECK_OOB OTP") -> None:
    call_command(
        "register_requestor", "--client-id", "oob-client", "--jwks-file", str(public),
        "--scopes", scopes, stdout=StringIO(),
    )  # fmt: skip
    issue_cards("oob-client")


def run_client(issuer: str, private: Path, scopes: str, *words: str) -> dict:  # type: ignore[type-arg]
    out = StringIO()
    call_command(
        "issuer_client", "--base-url", issuer, "--client-id", "oob-client",
        "--key-file", str(private), "--scopes", scopes, *words, stdout=out,
    )  # fmt: skip
    return json.loads(out.getvalue())


def test_keygen_writes_a_private_and_a_public_key_set(key_files):
    private, public = key_files
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    private_set, public_set = json.loads(private.read_text()), json.loads(public.read_text())
    assert [k["kty"] for k in private_set["keys"]] == ["EC", "RSA"]
    assert [(k["use"], k["alg"]) for k in public_set["keys"]] == [
        ("sig", "ES256"),
        ("enc", "RSA-OAEP-256"),
    ]
    for key in public_set["keys"]:
        assert not {"d", "p", "q", "dp", "dq", "qi"} & key.keys()
    with pytest.raises(CommandError, match="exists"):
        call_command("issuer_client", "keygen", "--out", private, "--public-out", public)


def test_the_documented_path_keygen_register_call(issuer, key_files):
    private, public = key_files
    register(public)
    scopes = "START_OOB CHECK_OOB"
    started = run_client(
        issuer, private, scopes, "authentication", "StartOOBAuthen",
        json.dumps(start_payload(transactionId="cli-1", merchantName="CLI Shop")),
    )  # fmt: skip
    assert started["result"]["code"] == "000.000.100"
    assert started["status"] == "PENDING"
    # The cardholder answers on the page, over HTTP like a phone would.
    with requests.Session() as phone:
        page = phone.get(started["cardholderUrl"], timeout=10)
        assert page.status_code == 200 and "CLI Shop" in page.text
        answered = phone.post(started["cardholderUrl"], data={"decision": "approve"}, timeout=10)
        assert answered.status_code == 200 and "approved" in answered.text
    inquiry = run_client(
        issuer, private, scopes, "authentication", "OOBResultInquiry",
        json.dumps({"authenticationId": started["authenticationId"]}),
    )  # fmt: skip
    assert inquiry["status"] == "SUCCESS"


def test_the_command_as_a_separate_process(issuer, key_files, tmp_path):
    private, public = key_files
    register(public)
    payload = tmp_path / "otp.json"
    payload.write_text(
        json.dumps({"cardReference": "tok_1", "transactionId": "t", "channel": "SMS"})
    )
    done = subprocess.run(
        [
            sys.executable, "manage.py", "issuer_client", "--base-url", issuer,
            "--client-id", "oob-client", "--key-file", str(private), "--scopes", "OTP",
            "authentication", "SendOTP", f"@{payload}",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "LOG_LEVEL": "WARNING"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["result"]["code"] == "000.000.100" and len(answer["simulatorCode"]) == 6


def test_the_command_reports_refusals(issuer, key_files):
    private, public = key_files
    register(public, scopes="START_OOB")
    with pytest.raises(CommandError, match="invalid_scope"):
        run_client(issuer, private, "CHECK_OOB", "authentication", "OOBResultInquiry", "{}")
    with pytest.raises(CommandError, match="not JSON"):
        run_client(issuer, private, "START_OOB", "authentication", "StartOOBAuthen", "{nope")
    with pytest.raises(CommandError, match="insufficient_scope|invalid_scope"):
        run_client(issuer, private, "START_OOB", "authentication", "SendOTP", "{}")


def test_token_command(issuer, key_files):
    private, public = key_files
    register(public)
    answer = run_client(issuer, private, "START_OOB", "token")
    assert answer["token_type"] == "Bearer" and answer["scope"] == "START_OOB"


# --- the client class ----------------------------------------------------------------------------


@pytest.fixture
def rclient(issuer, make_requestor) -> RequestorClient:
    requestor = make_requestor("oob-client", scopes="START_OOB CHECK_OOB OTP")
    return RequestorClient.for_issuer(
        issuer,
        client_id="oob-client",
        ec_key=requestor.ec_key,
        rsa_key=requestor.rsa_key,
        scopes=["START_OOB", "CHECK_OOB"],
    )


def test_fetch_token(rclient):
    answer = rclient.fetch_token(["START_OOB"])
    assert answer["token_type"] == "Bearer" and answer["expires_in"] == 3600
    assert answer["scope"] == "START_OOB"


def test_call_reuses_its_token_until_it_needs_another_scope(rclient):
    first = rclient.call("authentication", "StartOOBAuthen", start_payload())
    second = rclient.call(
        "authentication", "OOBResultInquiry", {"authenticationId": first["authenticationId"]}
    )
    assert second["status"] == "PENDING"
    assert UsedAssertion.objects.count() == 1
    sent = rclient.call(
        "authentication",
        "SendOTP",
        {"cardReference": "tok_1234", "transactionId": "t1", "channel": "EMAIL"},
        scopes=["OTP"],
    )
    assert sent["result"]["code"] == "000.000.100"
    assert UsedAssertion.objects.count() == 2
    verified = rclient.call(
        "authentication", "VerifyOTP", {"otpId": sent["otpId"], "code": sent["simulatorCode"]},
        scopes=["OTP"],
    )  # fmt: skip
    assert verified["verified"] is True
    assert UsedAssertion.objects.count() == 2


def test_the_client_raises_on_refusals(rclient):
    with pytest.raises(IssuerClientError) as refused:
        rclient.call("authentication", "NoSuchOperation", {})
    assert refused.value.status == 404
    rclient.rsa_key = generate_keys_rsa()
    with pytest.raises(JWEError, match="does not name"):  # the answer is not for this key
        rclient.call("authentication", "StartOOBAuthen", start_payload())
    assert OOBAuthentication.objects.count() == 1  # the issuer did answer, to the registered key


def generate_keys_rsa():  # type: ignore[no-untyped-def]
    from jwcrypto import jwk

    return jwk.JWK(**generate_keys(rsa_bits=2048)["keys"][1])


def test_the_client_follows_an_encryption_key_rotation(rclient, issuer_keys):
    rclient.call("authentication", "StartOOBAuthen", start_payload())
    old_kid = rclient.issuer_encryption_key()[0]
    for path in issuer_keys.glob("enc-*.pem"):
        path.unlink()  # rotated and pruned: the cached JWKS names a key the issuer no longer has
    new = keys.generate(keys.ENC)
    answer = rclient.call("authentication", "StartOOBAuthen", start_payload())
    assert answer["result"]["code"] == "000.000.100"
    assert rclient.issuer_encryption_key()[0] == new.kid != old_kid


def test_public_jwks_drops_private_members():
    private = generate_keys(rsa_bits=2048)
    public = public_jwks(private)
    assert [k["kid"] for k in public["keys"]] == [k["kid"] for k in private["keys"]]
    assert all("d" not in k for k in public["keys"])
    assert settings.ISSUER_ACCESS_TOKEN_SECONDS == 3600
