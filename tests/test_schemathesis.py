"""Schemathesis against the live API: every operation of /api/schema/, stateful links included.

gunicorn serves the platform as in production (DEBUG off, config/gunicorn.conf.py) on the test
database; the test seeds a participator, its merchant and terminal, and an issuer requestor with
an access token, and runs the Schemathesis CLI against the schema the server itself serves,
with tests/schemathesis.toml: a fixed seed, a fixed number of examples per operation,
deterministic generation, every phase (the document's examples, coverage, fuzzing, and the
stateful phase that follows the document's links), no time bound. tests/schemathesis_hooks.py
makes each request act as one of the seeded entities.

It passes when Schemathesis finds no server error and no answer the document does not describe
(status code, media type, body, headers), and every operation of the document was tested: an
endpoint added later is in the document (tests/core/test_schema.py) and so in this run.

Run it alone (docs/api.md, "The Schemathesis run"):
    DATABASE_URL=postgres://... .venv/bin/python -m pytest -q tests/test_schemathesis.py
Skipped on SQLite: the server is another process, and SQLite serialises its writers.
"""

import json
import os
import re
import subprocess
import sys
import time
import tomllib
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from jwcrypto import jwk

from bench._server import ROOT, gunicorn
from issuer.operations import IMPLEMENTED, scopes
from issuer.protocol import access_tokens, keys, requestors
from issuer.protocol.assertions import token_endpoint_url
from issuer.services import oob_start
from merchants.services import merchant_3ds_enrol
from payments.threeds.models import ThreeDSAuthentication
from tests.conftest import SpecClient, url_of_test_database
from tests.factories import MerchantFactory, ParticipatorFactory, TerminalFactory
from tests.payments.conftest import card
from tests.payments.threeds_helpers import threeds_fields

pytestmark = [pytest.mark.postgres, pytest.mark.long, pytest.mark.django_db(transaction=True)]

# Another configuration (a longer exploration, another seed) by SCHEMATHESIS_CONFIG.
CONFIG = Path(os.environ.get("SCHEMATHESIS_CONFIG", ROOT / "tests" / "schemathesis.toml"))
WORKERS = 2
CLIENT_ID = "schemathesis"


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the live server is another process")


def seed_run(directory: Path) -> Path:
    """The entities the run acts as and an issuer requestor (its signing key, an access token,
    the issuer's encryption key and a request per operation); their credentials in a file."""
    participator = ParticipatorFactory()
    merchant = MerchantFactory(participator=participator)
    terminal = TerminalFactory(merchant=merchant)
    keys.generate(keys.SIG)
    keys.generate(keys.ENC)
    signing = jwk.JWK.generate(kty="EC", crv="P-256", kid="sig-1")
    encryption = jwk.JWK.generate(kty="RSA", size=2048, kid="enc-1")
    public = []
    for key, use in ((signing, "sig"), (encryption, "enc")):
        data = key.export_public(as_dict=True)
        public.append({**data, "use": use})
    every_scope = " ".join(sorted(scopes()))
    requestors.requestor_register(client_id=CLIENT_ID, jwks={"keys": public}, scopes=every_scope)
    token, _ = access_tokens.issue_access_token(client_id=CLIENT_ID, scope=every_scope)
    issuer_key = keys.active_key(keys.ENC)
    pages = browser_pages(merchant)
    payloads = {
        f"{group}/{name}": {spec.name: spec.type.valid() for spec in op.table if spec.mandatory}
        for (group, name), op in IMPLEMENTED.items()
    }
    credentials = {
        "participator": {"entityId": participator.entity_id, "token": participator.plain_token},
        "merchant": {
            "entityId": merchant.entity.entity_id,
            "token": merchant.entity.plain_token,
            "merchantId": merchant.merchant_id,
            "terminalId": terminal.terminal_id,
        },
        "issuer": {
            "clientId": CLIENT_ID,
            "scope": every_scope,
            "accessToken": token,
            "tokenUrl": token_endpoint_url(),
            "signingKey": signing.export_private(as_dict=True),
            "encryptionKey": {**issuer_key.key.export_public(as_dict=True), "kid": issuer_key.kid},
            "payloads": payloads,
        },
        "pages": pages,
    }
    path = directory / "credentials.json"
    path.write_text(json.dumps(credentials))
    return path


def browser_pages(merchant: Any) -> dict[str, Any]:
    """Pending 3-D Secure authentications (a challenge, a method step, a frictionless one) and
    pending out-of-band authentications, for the pages' paths: their ids and secrets."""
    merchant_3ds_enrol(merchant=merchant, changed_by="test")
    client = SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT")
    threeds = []
    for number in ("4000000000001091", "4000000000001125", "4000000000001000"):
        answer = client.post(
            "/pay/v3/payments",
            {
                "paymentType": "DB",
                "merchant.id": merchant.merchant_id,
                "merchantTransactionId": uuid.uuid4().hex,
                "amount": "10.00",
                "currency": "EUR",
                **card(number),
                **threeds_fields(),
            },
            mtid=False,
        )
        assert answer.json()["result"]["code"] == "000.200.000", answer.content
        auth_id = answer.json()["redirect"]["parameters"][0]["value"]
        nonce = ThreeDSAuthentication.objects.get(pk=auth_id).nonce
        threeds.append({"id": auth_id, "nonce": nonce})
    oob = []
    for n in range(2):
        auth, secret = oob_start(
            client_id=CLIENT_ID,
            card_reference="411111******1111",
            transaction_id=f"schemathesis-{n}",
            amount=Decimal("10.00"),
            currency="EUR",
            merchant_name="Schemathesis Shop",
        )
        oob.append({"id": auth.pk, "secret": secret})
    return {"threeds": threeds, "oob": oob}


def operations_in_report(junit: Path) -> dict[str, int]:
    """{operation label: failures} of the JUnit report (one test case per operation)."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        found[case.get("name", "")] = len(case.findall("failure")) + len(case.findall("error"))
    return found


def documented_operations(schema: dict[str, Any]) -> set[str]:
    methods = {"get", "post", "put", "patch", "delete"}
    return {
        f"{method.upper()} {path}"
        for path, item in schema["paths"].items()
        for method in item
        if method in methods
    }


# What the stateful phase must reach through the document's links, with a real object (issue 22):
# for each of the payment, registration and token links, one of their targets.
LINKED_OPERATIONS = {
    "payment": {
        "GET /pay/v3/payments/{payment_id}",
        "POST /pay/v3/payments/{payment_id}",
        "POST /pay/v21/payments",
    },
    "registration": {
        "GET /pay/v3/registrations/{registration_id}",
        "POST /pay/v3/registrations/{registration_id}/payments",
        "DELETE /pay/v3/registrations/{registration_id}",
    },
    "token": {"POST /pay/v3/tokenize (tokenUniqueReferences)", "GET /pay/v3/asset/{asset_id}"},
}


def stateful_calls_to_real_objects(calls: Path) -> set[str]:
    """The stateful phase's calls (tests/schemathesis_hooks.py's after_call) that found what they
    named: 2xx and no result code of the not-found family (700.100.1xx); a tokenize call counts
    when it named a token by tokenUniqueReferences."""
    found = set()
    if not calls.exists():
        return found
    for line in calls.read_text().splitlines():
        call = json.loads(line)
        if not 200 <= call["status"] < 300 or call["code"].startswith("700.100.1"):
            continue
        operation = call["operation"]
        if operation == "POST /pay/v3/tokenize":
            if "tokenUniqueReferences" not in call["fields"]:
                continue
            operation += " (tokenUniqueReferences)"
        found.add(operation)
    return found


def test_schemathesis_finds_no_server_error_and_no_answer_the_schema_does_not_describe(
    tmp_path, settings, server_keys
):
    settings.ISSUER_KEYS_DIR = tmp_path / "issuer-keys"
    credentials = seed_run(tmp_path)
    report = tmp_path / "report"
    calls = tmp_path / "stateful-calls.jsonl"
    server_env = {
        **server_keys,
        "ISSUER_KEYS_DIR": str(settings.ISSUER_KEYS_DIR),
        "ISSUER_BASE_URL": django_settings.ISSUER_BASE_URL,
    }
    with gunicorn(
        database_url=url_of_test_database(),
        workers=WORKERS,
        log_path=tmp_path / "gunicorn.log",
        env=server_env,
    ) as server:
        url = f"http://127.0.0.1:{server.port}/api/schema/"
        command = [
            sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run", url,
            "--report", "junit", "--report-junit-path", str(report / "junit.xml"), "--no-color",
        ]  # fmt: skip
        env = {
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks",
            "SCHEMATHESIS_CREDENTIALS": str(credentials),
            "SCHEMATHESIS_CALLS": str(calls),
            "PYTHONPATH": str(ROOT),
        }
        started = time.monotonic()
        # The run is bounded by its examples, not by time; the timeout only stops a hang.
        run = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
        )
        elapsed = time.monotonic() - started
        request = urllib.request.Request(
            url, headers={"Accept": "application/vnd.oai.openapi+json"}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback
            schema = json.loads(answer.read())
    output = run.stdout + run.stderr
    (tmp_path / "schemathesis.txt").write_text(output)
    print(f"Schemathesis: {elapsed:.0f} s\n{output[-6000:]}")
    assert run.returncode == 0, output[-20000:]
    tested = operations_in_report(report / "junit.xml")
    assert documented_operations(schema) <= set(tested), output[-5000:]
    assert not {label for label, failures in tested.items() if failures}
    # The stateful phase ran and followed the document's links; the run used the fixed seed.
    links = re.search(r"API Links:\s+(\d+) covered", output)
    assert links is not None and int(links.group(1)) > 0, output[-5000:]
    # ... over the payment, registration and token links to real objects (issue 22): an id the
    # stateful phase took from an answer, answered with the object, not 404 or not-found.
    followed = stateful_calls_to_real_objects(calls)
    for links, targets in LINKED_OPERATIONS.items():
        assert targets & followed, (links, sorted(followed))
    fixed = tomllib.loads(CONFIG.read_text())["seed"]
    assert re.search(rf"^Seed: {fixed}$", output, re.M), output[-2000:]
