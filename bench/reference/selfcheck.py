"""Check the reference views in-process (Django's test Client) and count their SQL statements.

    .venv/bin/python -m bench.reference.selfcheck --database-url URL --keys FILE --client-keys FILE
    .venv/bin/python -m bench.reference.selfcheck --sqlite   # throwaway keys, in-memory SQLite

Migrates the reference's database first. Prints one JSON object: each check's outcome, the
statements each view runs (CaptureQueriesContext) and the database settings the views ran with;
exit status 1 when a check failed. bench/compare.py runs it before its load rounds (and reports
the counts); the test suite runs it with --sqlite (tests/benchmarks/test_compare.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

CLIENT_ID = "reference-check"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def client_keys(rsa_bits: int) -> dict[str, Any]:
    """A client's private JWK set: EC P-256 (assertions) and RSA (answers)."""
    from jwcrypto import jwk

    out = []
    for key in (
        jwk.JWK.generate(kty="EC", crv="P-256"),
        jwk.JWK.generate(kty="RSA", size=rsa_bits),
    ):
        out.append({**key.export_private(as_dict=True), "kid": key.thumbprint()})
    return {"keys": out}


def public_of(private_jwks: dict[str, Any]) -> dict[str, Any]:
    from jwcrypto import jwk

    return {
        "keys": [
            {**jwk.JWK(**k).export_public(as_dict=True), "kid": k["kid"]}
            for k in private_jwks["keys"]
        ]
    }


def assertion(ec_private: dict[str, Any], *, client_id: str, audience: str) -> str:
    import jwt

    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 60,
        "jti": uuid.uuid4().hex,
    }
    key = jwt.PyJWK(ec_private, algorithm="ES256").key
    return jwt.encode(claims, key, algorithm="ES256", headers={"kid": ec_private["kid"]})


def run_checks(private: dict[str, Any], client_id: str) -> dict[str, Any]:
    """The views through the test Client; returns {"checks": {name: ok}, "statements": ...}."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from jwcrypto import jwe, jwk

    from bench.reference import keys
    from bench.reference.models import Payment, UsedJti

    server = keys.loaded()
    ec = next(k for k in private["keys"] if k["kty"] == "EC")
    rsa = jwk.JWK(**next(k for k in private["keys"] if k["kty"] == "RSA"))
    client = Client()
    checks: dict[str, bool] = {}
    statements: dict[str, int] = {}
    form = "application/x-www-form-urlencoded"

    # payment
    mtid = uuid.uuid4().hex
    fields = {
        "merchantTransactionId": mtid,
        "paymentType": "DB",
        "amount": "10.00",
        "currency": "EUR",
        "card.number": "4200000000000000",
    }
    with CaptureQueriesContext(connection) as captured:
        answer = client.post("/pay", urlencode(fields), content_type=form)
    statements["payment"] = len(captured.captured_queries)
    checks["payment answers 000.000.000 and stores the row"] = (
        answer.status_code == 200
        and answer.json()["result"]["code"] == "000.000.000"
        and Payment.objects.filter(merchant_transaction_id=mtid, amount="10.00").exists()
    )
    before = Payment.objects.count()
    bad = client.post(
        "/pay",
        urlencode({**fields, "merchantTransactionId": "x", "amount": "ten"}),
        content_type=form,
    )
    checks["a bad amount is a 400 naming amount, nothing written"] = (
        bad.status_code == 400
        and [e["name"] for e in bad.json()["parameterErrors"]] == ["amount"]
        and Payment.objects.count() == before
    )
    again = client.post("/pay", urlencode(fields), content_type=form)
    checks["a used merchantTransactionId is a 400"] = (
        again.status_code == 400 and Payment.objects.count() == before
    )

    # token
    audience = f"{keys.base_url()}/oauth2/token"
    body = {
        "grant_type": "client_credentials",
        "client_id": client_id,
        "scope": "TRANSACTION",
        "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion(ec, client_id=client_id, audience=audience),
    }
    with CaptureQueriesContext(connection) as captured:
        answer = client.post("/oauth2/token", urlencode(body), content_type=form)
    statements["token"] = len(captured.captured_queries)
    access = answer.json().get("access_token", "")
    import jwt

    jti = jwt.decode(body["client_assertion"], options={"verify_signature": False})["jti"]
    claims = jwt.decode(access, server.signing_public, algorithms=["ES256"], audience=keys.AUDIENCE)
    checks["token answers a signed access token and stores the jti"] = (
        answer.status_code == 200
        and claims["sub"] == client_id
        and UsedJti.objects.filter(jti=jti).exists()
    )
    replay = client.post("/oauth2/token", urlencode(body), content_type=form)
    checks["a used jti is refused"] = (
        replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    )
    stranger = jwk.JWK.generate(kty="EC", crv="P-256")
    other = {**stranger.export_private(as_dict=True), "kid": ec["kid"]}  # the client's kid
    forged = {**body, "client_assertion": assertion(other, client_id=client_id, audience=audience)}
    refused = client.post("/oauth2/token", urlencode(forged), content_type=form)
    checks["an assertion signed by another key is refused"] = refused.status_code == 401

    # JWE
    server_public = jwk.JWK(**server.encryption.export_public(as_dict=True))
    header = {"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": server.encryption.thumbprint()}
    request = jwe.JWE(
        json.dumps({"cardReference": "card_001"}).encode(), protected=json.dumps(header)
    )
    request.add_recipient(server_public)
    compact = request.serialize(compact=True)
    with CaptureQueriesContext(connection) as captured:
        answer = client.post(
            "/jwe", compact, content_type="application/jose", HTTP_AUTHORIZATION=f"Bearer {access}"
        )
    statements["jwe"] = len(captured.captured_queries)
    decrypted: dict[str, Any] = {}
    if answer.status_code == 200:
        message = jwe.JWE()
        message.deserialize(answer.content.decode(), key=rsa)
        decrypted = json.loads(message.plaintext)
    checks["jwe answers a JWE to the client's key with 000.000.100"] = (
        answer["Content-Type"] == "application/jose"
        and decrypted.get("result", {}).get("code") == "000.000.100"
        and decrypted.get("fields") == ["cardReference"]
    )
    checks["jwe without a bearer token is a 401"] = (
        client.post("/jwe", compact, content_type="application/jose").status_code == 401
    )
    checks["jwe with a body that is no JWE is a 400"] = (
        client.post(
            "/jwe", "abc", content_type="application/jose", HTTP_AUTHORIZATION=f"Bearer {access}"
        ).status_code
        == 400
    )
    db = settings.DATABASES["default"]
    return {
        "ok": all(checks.values()),
        "checks": checks,
        "statements": statements,
        "database": {
            "engine": db["ENGINE"],
            "conn_max_age": db.get("CONN_MAX_AGE"),
            "conn_health_checks": db.get("CONN_HEALTH_CHECKS"),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sqlite", action="store_true", help="throwaway keys, in-memory SQLite")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--keys", type=Path, help="the server's key file (keys.write)")
    parser.add_argument("--client-keys", type=Path, help="the client's private JWK set")
    parser.add_argument("--client-id", default=CLIENT_ID)
    args = parser.parse_args(argv)
    if not args.sqlite and not (args.database_url and args.keys and args.client_keys):
        parser.error("give --sqlite, or --database-url, --keys and --client-keys")

    from bench.reference import keys

    with tempfile.TemporaryDirectory() as tmp:
        if args.sqlite:
            private = client_keys(2048)
            key_file = Path(tmp) / "keys.json"
            keys.write(
                key_file, {**keys.make(public_of(private), client_id=args.client_id, rsa_bits=2048)}
            )
            database_url = "sqlite://:memory:"
        else:
            private = json.loads(args.client_keys.read_text())
            key_file, database_url = args.keys, args.database_url
        os.environ["DJANGO_SETTINGS_MODULE"] = "bench.reference.settings"
        os.environ["DATABASE_URL"] = database_url
        os.environ["REFERENCE_KEYS_FILE"] = str(key_file)
        os.environ["REFERENCE_BASE_URL"] = "http://testserver"
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", interactive=False, verbosity=0)
        outcome = run_checks(private, args.client_id)
    print(json.dumps(outcome, indent=2))
    return 0 if outcome["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
