"""Fixtures for the issuer side.

- `issuer_keys`: settings.ISSUER_KEYS_DIR points at a fresh directory holding one signing and one
  encryption key (generated once per session and copied: RSA generation is slow).
- `requestor`: client "oob-client" (scopes START_OOB CHECK_OOB) registered with the public half
  of an EC P-256 key and an RSA 2048 key; `requestor.assertion(**claims)` signs a client
  assertion with sane defaults, `requestor.token_form(...)` is a whole token request,
  `requestor.access_token(client)` gets a token through the endpoint.
- `make_requestor(client_id, scopes=...)`: more requestors (another client's key, other scopes).
- `sign(header, claims, key)` and `unsigned(header, claims)`: raw assertions for attack tests.
"""

import json
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import Client
from jwcrypto import jwk, jws
from jwcrypto.common import base64url_encode

from issuer.models import RequestorProfile
from issuer.protocol import keys, requestors
from issuer.protocol.assertions import ASSERTION_TYPE, token_endpoint_url

TOKEN_PATH = "/oauth2/token"
FORM = "application/x-www-form-urlencoded"
SCOPES = "START_OOB CHECK_OOB"


# --- Raw JOSE helpers ---------------------------------------------------------------------------


def _b64json(value: dict[str, Any]) -> str:
    return base64url_encode(json.dumps(value, separators=(",", ":")))


def sign(header: dict[str, Any], claims: dict[str, Any], key: jwk.JWK) -> str:
    """A compact JWS of `claims` with exactly `header` as its protected header, signed with
    `key` by whatever alg the header names (ES256, RS256, HS256, ...)."""
    # JWSCore signs whatever header it is given (JWS.add_signature would vet crit and friends).
    core = jws.JWSCore(
        header["alg"], key, json.dumps(header), json.dumps(claims).encode(), [header["alg"]]
    )
    signed = core.sign()
    return f"{signed['protected']}.{signed['payload'].decode()}.{signed['signature']}"


def unsigned(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    return f"{_b64json(header)}.{_b64json(claims)}.{base64url_encode(signature)}"


def _clean(base: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    merged = {**base, **(overrides or {})}
    return {k: v for k, v in merged.items() if v is not None}


# --- Requestors ---------------------------------------------------------------------------------


def new_ec_key(kid: str | None = None) -> jwk.JWK:
    key = jwk.JWK.generate(kty="EC", crv="P-256")
    return jwk.JWK(**{**key.export_private(as_dict=True), "kid": kid or key.thumbprint()})


def new_rsa_key(size: int = 2048, kid: str | None = None) -> jwk.JWK:
    key = jwk.JWK.generate(kty="RSA", size=size)
    return jwk.JWK(**{**key.export_private(as_dict=True), "kid": kid or key.thumbprint()})


def public_jwks(*private: jwk.JWK, use: bool = True) -> dict[str, Any]:
    """The JWK set a requestor registers: public parts, with kid (and use)."""
    found = []
    for key in private:
        data = key.export_public(as_dict=True)
        if use:
            data["use"] = "sig" if data["kty"] == "EC" else "enc"
        found.append(data)
    return {"keys": found}


@dataclass
class Requestor:
    client_id: str
    ec_key: jwk.JWK  # private: signs client assertions
    rsa_key: jwk.JWK  # private: decrypts the issuer's answers
    profile: RequestorProfile = field(repr=False)

    @property
    def kid(self) -> str:
        return str(self.ec_key["kid"])

    @property
    def public_jwks(self) -> dict[str, Any]:
        return public_jwks(self.ec_key, self.rsa_key)

    def claims(self, **overrides: Any) -> dict[str, Any]:
        """Default assertion claims; an override of None drops the claim."""
        now = int(time.time())
        base = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": token_endpoint_url(),
            "iat": now,
            "exp": now + 120,
            "jti": uuid.uuid4().hex,
        }
        return _clean(base, overrides)

    def assertion(
        self, *, header: dict[str, Any] | None = None, key: jwk.JWK | None = None, **claims: Any
    ) -> str:
        """A client assertion signed ES256 with the registered EC key (or `key`); `header`
        entries and claims override the defaults, None drops one."""
        base = {"alg": "ES256", "typ": "JWT", "kid": self.kid}
        return sign(_clean(base, header), self.claims(**claims), key or self.ec_key)

    def token_form(self, **overrides: Any) -> dict[str, str]:
        """A whole token request; an override of None drops the field."""
        base = {
            "grant_type": "client_credentials",
            "client_id": self.client_id,
            "scope": SCOPES,
            "client_assertion_type": ASSERTION_TYPE,
        }
        if "client_assertion" not in overrides:
            base["client_assertion"] = self.assertion()
        return _clean(base, overrides)

    def post_token(self, client: Client | None = None, **overrides: Any):  # type: ignore[no-untyped-def]
        return (client or Client()).post(
            TOKEN_PATH, urlencode(self.token_form(**overrides)), content_type=FORM
        )

    def access_token(self, client: Client | None = None, scope: str = SCOPES) -> str:
        response = self.post_token(client, scope=scope)
        assert response.status_code == 200, response.content
        return str(response.json()["access_token"])


@pytest.fixture(scope="session")
def _rsa_2048() -> jwk.JWK:
    return new_rsa_key(2048)


# The card references the Authentication group's tests name: each requestor a test makes has
# issuer cards with these references (cardReference names one of the requestor's cards).
CARD_REFERENCES = (
    "411111******1111",
    "tok_1",
    "tok_1234",
    "tok_4f9a2c",
    "tok_9f8e7d6c",
    "tok_abc123",
    "DNITHE000000000000000001",
)


def issue_cards(client_id: str, references=CARD_REFERENCES) -> None:  # type: ignore[no-untyped-def]
    from issuer import demo
    from issuer.cards import services
    from issuer.cards.models import Card

    demo.products()
    for reference in references:
        if not Card.objects.filter(client_id=client_id, reference=reference).exists():
            services.card_apply(
                client_id=client_id,
                product_code=demo.PREPAID_PRODUCT,
                customer_fields=demo.CUSTOMER,
                form="VIRTUAL",
                actor="test",
                reference=reference,
            )


@pytest.fixture
def make_requestor(db, _rsa_2048) -> Callable[..., Requestor]:
    def make(client_id: str, scopes: str = SCOPES, ec_key: jwk.JWK | None = None) -> Requestor:
        ec_key = ec_key or new_ec_key()
        profile = requestors.requestor_register(
            client_id=client_id, jwks=public_jwks(ec_key, _rsa_2048), scopes=scopes
        )
        issue_cards(client_id)
        return Requestor(client_id, ec_key, _rsa_2048, profile)

    return make


@pytest.fixture
def requestor(make_requestor) -> Requestor:
    return make_requestor("oob-client")


@pytest.fixture(scope="session")
def _issuer_key_files(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("issuer-key-files")
    with pytest.MonkeyPatch.context() as mp:
        from django.conf import settings

        mp.setattr(settings, "ISSUER_KEYS_DIR", directory)
        keys.generate(keys.SIG)
        keys.generate(keys.ENC)
    return directory


@pytest.fixture
def issuer_keys(settings, tmp_path, _issuer_key_files) -> Path:
    """ISSUER_KEYS_DIR with one active key of each kind; returns the directory."""
    directory = tmp_path / "issuer-keys"
    shutil.copytree(_issuer_key_files, directory)
    settings.ISSUER_KEYS_DIR = directory
    return directory


@pytest.fixture
def quick_pin_hash(settings: Any) -> None:
    """PINs hashed with 1,000 PBKDF2 iterations instead of the production count: the demo cards
    set theirs in every test that makes them."""
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000


@pytest.fixture
def demo_requestor_cards(quick_pin_hash: None) -> Any:
    """The demo requestor's cards (`issuer.demo.demo_cards("oob-client")`)."""
    from issuer import demo

    return demo.demo_cards("oob-client")
