"""issuer_demo: what `make run` leaves for docs/issuer.md's issuer_client lines.

Issuer keys when there are none, the demo requestor oob-client registered with private keys kept
in var/demo-requestor/oob-client.json (a tmp copy here, see tests/conftest.py) beside the
issuer's base URL, so `issuer_client --key-file <that file>` works with no other option, on
whatever port the demo serves.
"""

import json
import stat
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from issuer.protocol import keys, requestors
from issuer.protocol.client import public_jwks
from tests.issuer.test_api import start_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_issuer_keys(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.ISSUER_KEYS_DIR = tmp_path / "issuer-keys"
    return settings.ISSUER_KEYS_DIR


def demo(*args: str) -> str:
    out = StringIO()
    call_command("issuer_demo", *args, stdout=out, stderr=out)
    return out.getvalue()


def client(*args: str) -> dict:  # type: ignore[type-arg]
    out = StringIO()
    call_command("issuer_client", *args, stdout=out)
    return json.loads(out.getvalue())


def test_first_run_makes_the_issuer_keys_and_registers_the_demo_requestor(no_issuer_keys):
    out = demo("--base-url", "http://127.0.0.1:8301")

    assert keys.all_keys(keys.SIG) and keys.all_keys(keys.ENC)
    path = settings.DEMO_REQUESTOR_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    document = json.loads(path.read_text())
    assert document["client_id"] == "oob-client"
    assert document["base_url"] == "http://127.0.0.1:8301"
    profile = requestors.requestor_get("oob-client")
    assert profile.jwks == public_jwks(document)
    assert set(profile.scopes.split()) == {"START_OOB", "CHECK_OOB", "OTP"} | {
        "APPLICATION",
        "CUSTOMER",
        "ACCOUNT",
        "CARD",
        "TRANSACTION",
        "TOKEN",
        "PARAMETER",
    }
    assert "Demo requestor oob-client registered" in out
    assert "demo prepaid card crd_demo_prepaid: 459500******" in out
    assert "http://127.0.0.1:8301/oauth2/token" in out
    assert f"issuer_client --key-file {path}" in out


def test_a_second_run_keeps_the_keys_and_the_registration(no_issuer_keys):
    demo("--base-url", "http://127.0.0.1:8301")
    issuer_key_files = sorted(p.name for p in no_issuer_keys.iterdir())
    private = json.loads(settings.DEMO_REQUESTOR_KEY_FILE.read_text())["keys"]

    out = demo("--base-url", "http://127.0.0.1:8302")

    assert sorted(p.name for p in no_issuer_keys.iterdir()) == issuer_key_files
    document = json.loads(settings.DEMO_REQUESTOR_KEY_FILE.read_text())
    assert document["keys"] == private
    assert document["base_url"] == "http://127.0.0.1:8302"  # the port of this run
    assert "registered" not in out


def test_a_registration_with_other_keys_is_replaced_by_the_demo_key(no_issuer_keys):
    demo()
    other = json.loads(settings.DEMO_REQUESTOR_KEY_FILE.read_text())
    settings.DEMO_REQUESTOR_KEY_FILE.unlink()  # keys lost: new ones are made and registered

    out = demo()

    document = json.loads(settings.DEMO_REQUESTOR_KEY_FILE.read_text())
    assert document["keys"] != other["keys"]
    assert requestors.requestor_get("oob-client").jwks == public_jwks(document)
    assert "registered again" in out


@pytest.mark.django_db(transaction=True)
def test_the_documented_issuer_client_lines_work_on_any_port(live_server, issuer_keys, settings):
    # make run PORT=...: runserver gets ISSUER_BASE_URL, issuer_demo the same --base-url.
    settings.ISSUER_BASE_URL = live_server.url
    demo("--base-url", live_server.url)
    key_file = str(settings.DEMO_REQUESTOR_KEY_FILE)

    token = client("--key-file", key_file, "--scopes", "START_OOB", "token")
    started = client(
        "--key-file", key_file, "--scopes", "START_OOB CHECK_OOB",
        "authentication", "StartOOBAuthen",
        json.dumps(start_payload(transactionId="doc-1", cardReference="crd_demo_prepaid")),
    )  # fmt: skip
    inquiry = client(
        "--key-file", key_file, "--scopes", "CHECK_OOB", "authentication", "OOBResultInquiry",
        json.dumps({"authenticationId": started["authenticationId"]}),
    )  # fmt: skip

    assert token["token_type"] == "Bearer" and token["scope"] == "START_OOB"
    assert started["result"]["code"] == "000.000.100"
    assert started["cardholderUrl"].startswith(f"{live_server.url}/issuer/oob/")
    assert inquiry["status"] == "PENDING"
