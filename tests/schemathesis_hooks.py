"""Schemathesis hooks of tests/test_schemathesis.py (SCHEMATHESIS_HOOKS=tests.schemathesis_hooks).

The run acts as the entities the test seeded (a JSON file named by SCHEMATHESIS_CREDENTIALS), as
a real client would, and otherwise sends what Schemathesis generated:

- spec operations: the request's `entityType`, as generated, picks who calls (PARTICIPATOR the
  bank, MERCHANT its merchant, POS that merchant through its terminal); `entityId`, the bearer
  token, and for a merchant or a terminal its own `merchant.id` and `pos.terminalId` become that
  entity's. A valid `merchantTransactionId` gets a fresh one (a client never reuses one for
  another request: a reused one answers 800.110.100, and links would have nothing to follow).
- the token endpoint: every other well-formed client-credentials request is sent as the seeded
  requestor with a fresh signed assertion, so tokens are issued too;
- the issuer API: the access token; every other JWE-shaped body becomes a real JWE of the
  operation's request (`{}` where it has no fields), so answers are encrypted too;
- the reports (`/merch-web/download/...`): every other well-formed `merchantId` becomes the
  seeded merchant's, so the reports are read, not only refused with 404;
- merchant/create and terminal/create: a valid merchant.id or pos.terminalId gets a fresh one,
  so the links from what they create have something to follow;
- the browser pages: every other well-formed id names a seeded 3-D Secure or out-of-band
  authentication (with the challenge form's nonce), so the pages run, not only their 404;
- the stateful phase: every payment, registration or token request that starts a chain is one
  that makes its object (a preauthorization, a stored card, a CT token of a test card),
  so the links have something to follow; `after_call` records that phase's calls for the test.

Which cases are changed depends only on the generated data (a CRC of it), so a run is the same
run every time. Nothing here checks anything: the checks are Schemathesis's (schemathesis.toml).
"""

import itertools
import json
import os
import re
import time
import uuid
import zlib
from pathlib import Path
from typing import Any

import schemathesis
from jwcrypto import jwe, jwk, jwt

# application/jose bodies are text (a compact JWE), sent as generated.
schemathesis.serializer.alias("application/jose", "text/plain")

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MTID = re.compile(r"[A-Za-z0-9]{1,32}")
MERCHANT_ID = re.compile(r"[0-9]{1,15}")
TERMINAL_ID = re.compile(r"[A-Za-z0-9_]{1,8}")
HEX_ID = re.compile(r"[0-9a-f]{32}")
JWE_SHAPE = re.compile(r"[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){4}")
_counter = itertools.count(1)
_credentials: dict[str, Any] | None = None


def credentials() -> dict[str, Any]:
    global _credentials
    if _credentials is None:
        _credentials = json.loads(Path(os.environ["SCHEMATHESIS_CREDENTIALS"]).read_text())
    return _credentials


def _every_other(value: Any) -> bool:
    """Half of the generated values, the same half on every run."""
    return zlib.crc32(repr(value).encode()) % 2 == 0


def _fresh_mtid() -> str:
    return f"st{next(_counter):030d}"


def _assertion() -> str:
    issuer = credentials()["issuer"]
    key = jwk.JWK(**issuer["signingKey"])
    now = int(time.time())
    claims = {
        "iss": issuer["clientId"],
        "sub": issuer["clientId"],
        "aud": issuer["tokenUrl"],
        "iat": now,
        "exp": now + 120,
        "jti": uuid.uuid4().hex,
    }
    token = jwt.JWT(header={"alg": "ES256", "typ": "JWT", "kid": key["kid"]}, claims=claims)
    token.make_signed_token(key)
    return str(token.serialize())


def _jwe_of(payload: dict[str, Any]) -> str:
    issuer = credentials()["issuer"]
    key = jwk.JWK(**issuer["encryptionKey"])
    header = {"alg": "RSA-OAEP-256", "enc": "A128GCM", "kid": key["kid"]}
    token = jwe.JWE(json.dumps(payload).encode(), protected=header)
    token.add_recipient(key)
    return str(token.serialize(compact=True))


def _token_request(case: schemathesis.Case) -> None:
    body = case.body
    if not isinstance(body, dict) or body.get("grant_type") != "client_credentials":
        return
    if not _every_other(body):
        return
    issuer = credentials()["issuer"]
    body.update(
        client_id=issuer["clientId"],
        scope=issuer["scope"],
        client_assertion_type=ASSERTION_TYPE,
        client_assertion=_assertion(),
    )
    body.pop("client_secret", None)


def _issuer_call(case: schemathesis.Case) -> None:
    issuer = credentials()["issuer"]
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {issuer['accessToken']}"}
    body = case.body
    if isinstance(body, str) and JWE_SHAPE.fullmatch(body) and _every_other(body):
        operation = f"{case.path_parameters.get('group')}/{case.path_parameters.get('operation')}"
        case.body = _jwe_of(issuer["payloads"].get(operation, {}))


def _pick(options: list[dict[str, str]], generated: Any) -> dict[str, str]:
    return options[zlib.crc32(repr(generated).encode()) % len(options)]


def _page(case: schemathesis.Case) -> None:
    """Half of the well-formed ids in a page's path name a seeded authentication (and a 3-D
    Secure challenge form its nonce): the pages' own logic runs, not only their 404."""
    parameters = case.path_parameters or {}
    pages = credentials()["pages"]
    auth_id = parameters.get("auth_id")
    if isinstance(auth_id, str) and HEX_ID.fullmatch(auth_id) and _every_other(auth_id):
        seeded = _pick(pages["threeds"], auth_id)
        parameters["auth_id"] = seeded["id"]
        if isinstance(case.body, dict) and "nonce" in case.body:
            case.body["nonce"] = seeded["nonce"]
    link_id = parameters.get("authentication_id")
    if isinstance(link_id, str) and HEX_ID.fullmatch(link_id) and _every_other(link_id):
        seeded = _pick(pages["oob"], link_id)
        parameters["authentication_id"], parameters["token"] = seeded["id"], seeded["secret"]


def _caller(entity_type: Any) -> dict[str, str]:
    who = credentials()
    if entity_type in ("MERCHANT", "POS"):
        return who["merchant"]
    return who["participator"]


# The operations the stateful phase's chains start from, and a body each makes something with
# (the seeded merchant's; a test card of the simulator that approves): generated bodies are
# mostly refused (400), and a refusal leaves the links nothing to follow.
CARD = {
    "card.number": "4200000000000000",
    "card.holder": "Jane Doe",
    "card.expiryMonth": "12",
    "card.expiryYear": "2034",
    "card.cvv": "123",
}
CHAIN_STARTS = {
    ("POST", "/pay/v3/payments"): {
        "paymentType": "PA",
        "amount": "10.00",
        "currency": "EUR",
        **CARD,
    },
    ("POST", "/pay/v3/registrations"): dict(CARD),
    ("POST", "/pay/v3/tokenize"): {
        "token.Type": "CT",
        **{name: value for name, value in CARD.items() if name != "card.cvv"},
    },
}
MTID_STARTS = {"/pay/v3/payments", "/pay/v3/tokenize"}


def _stateful(case: schemathesis.Case) -> bool:
    return case.meta is not None and case.meta.phase.name.value == "stateful"


def _chain_start(case: schemathesis.Case) -> None:
    """In the stateful phase, a request that starts a chain (a payment, a registration, a token)
    is one that makes its object, as the merchant would send it, and a token request that a link
    gave a tokenUniqueReferences reads that token: the links then have a real payment,
    registration or token to follow. (The fuzzing phase sends the invalid ones.) Every one, not
    every other: the stateful phase's draws depend on the ids the server answers, so a half
    chosen by the generated data is not the same half in every run."""
    body = CHAIN_STARTS.get((case.method.upper(), case.operation.path))
    if body is None or not _stateful(case):
        return
    merchant = credentials()["merchant"]
    given = case.body if isinstance(case.body, dict) else {}
    if case.operation.path == "/pay/v3/tokenize" and "tokenUniqueReferences" in given:
        # A link's GT: read the token the chain made (the link fills tokenUniqueReferences).
        body = {"token.Type": "GT", "tokenUniqueReferences": given["tokenUniqueReferences"]}
    case.body = {
        "entityId": merchant["entityId"],
        "entityType": "MERCHANT",
        "merchant.id": merchant["merchantId"],
        **body,
    }
    if case.operation.path in MTID_STARTS and body.get("token.Type") != "GT":
        case.body["merchantTransactionId"] = _fresh_mtid()


@schemathesis.hook
def before_call(context: schemathesis.HookContext, case: schemathesis.Case, kwargs: Any) -> None:
    _chain_start(case)
    path = case.operation.path
    if path == "/oauth2/token":
        _token_request(case)
        return
    if path.startswith("/issuer/v1/"):
        _issuer_call(case)
        return
    if case.operation.definition.raw.get("security") == []:  # pages and health: no entity
        _page(case)
        return
    data = case.query if case.method.upper() == "GET" else case.body
    entity_type = data.get("entityType") if isinstance(data, dict) else None
    caller = _caller(entity_type)
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {caller['token']}"}
    if not isinstance(data, dict):
        return
    if "entityId" in data:
        data["entityId"] = caller["entityId"]
    if entity_type in ("MERCHANT", "POS") and "merchant.id" in data:
        data["merchant.id"] = caller["merchantId"]
    if entity_type == "POS":
        data["pos.terminalId"] = caller["terminalId"]
    mtid = data.get("merchantTransactionId")
    # A valid one only (a payment's is exactly 32 characters, a management operation's up to 32):
    # an invalid one stays, to be refused.
    payment = path.startswith(("/pay/v3/payments", "/pay/v21/payments"))
    if isinstance(mtid, str) and MTID.fullmatch(mtid) and (len(mtid) == 32 or not payment):
        data["merchantTransactionId"] = _fresh_mtid()
    if (
        path.startswith("/merch-web/download/")
        and _valid(data, "merchantId", MERCHANT_ID)
        and _every_other(data)
    ):
        data["merchantId"] = credentials()["merchant"]["merchantId"]
    # What a create makes is new: a valid id gets one no earlier request took.
    if path == "/pay/v3/merchant/create" and _valid(data, "merchant.id", MERCHANT_ID):
        data["merchant.id"] = f"7{next(_counter):08d}"
    if path == "/pay/v3/terminal/create" and _valid(data, "pos.terminalId", TERMINAL_ID):
        data["pos.terminalId"] = f"S{next(_counter):07d}"


def _valid(data: dict[str, Any], name: str, pattern: re.Pattern[str]) -> bool:
    value = data.get(name)
    return isinstance(value, str) and pattern.fullmatch(value) is not None


@schemathesis.hook
def after_call(context: schemathesis.HookContext, case: schemathesis.Case, response: Any) -> None:
    """Each call of the stateful phase, one JSON line in SCHEMATHESIS_CALLS (when set): its
    operation, status, result code and the fields it sent, for the test to see which links
    were followed to a real object (a made-up id answers 404 or a not-found code)."""
    calls = os.environ.get("SCHEMATHESIS_CALLS")
    if not calls or not _stateful(case):
        return
    try:
        code = response.json().get("result", {}).get("code", "")
    except Exception:  # noqa: BLE001 - not JSON (a page, a JWE): no result code
        code = ""
    sent = case.query if case.method.upper() == "GET" else case.body
    with open(calls, "a", encoding="utf-8") as out:
        out.write(
            json.dumps(
                {
                    "operation": case.operation.label,
                    "status": response.status_code,
                    "code": code,
                    "fields": sorted(sent) if isinstance(sent, dict) else [],
                    "path": case.path_parameters or {},
                }
            )
            + "\n"
        )
