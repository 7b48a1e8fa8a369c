"""A requestor client of the issuer authorization protocol: what an integrator runs against the
issuer, and what `python manage.py issuer_client` and the docs' examples use.

    client = RequestorClient.from_key_file(
        "requestor-private.json", base_url="https://issuer.example", client_id="oob-client",
        scopes=["START_OOB", "CHECK_OOB"],
    )
    answer = client.call("authentication", "StartOOBAuthen", {"cardReference": "...", ...})

1. `fetch_token(scopes)`: a client assertion (JWS ES256 with the requestor's EC private key;
   iss = sub = client_id, aud = the token URL, iat, exp 60 s later, a fresh jti) posted with
   grant_type=client_credentials to the token endpoint; the access token is kept until shortly
   before it expires.
2. `call(group, operation, payload)`: the issuer's JWK set (cached), the request encrypted to its
   first RSA encryption key (RSA-OAEP-256 / A128GCM, its kid in the header), posted with the
   bearer token as `application/jose`; the answer decrypted with the requestor's RSA private key
   and returned as a dict.

Only jwcrypto and requests; nothing of Django, so the module can be copied out of the project.
The key file is a JWK set holding both private keys (`keygen` writes it); only the public set
(`public_jwks()`) ever leaves the requestor.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import requests
from jwcrypto import jwk, jwt

from . import jwe

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_SECONDS = 60
TOKEN_MARGIN_SECONDS = 30  # fetch a new token this long before the current one expires
JWKS_CACHE_SECONDS = 300
DEFAULT_RSA_BITS = 3072
TIMEOUT_SECONDS = 10.0


class IssuerClientError(Exception):
    """The issuer refused a request (HTTP status and its JSON error, when it sent one)."""

    def __init__(self, message: str, *, status: int = 0, body: Any = None):
        super().__init__(message)
        self.status = status
        self.body = body


# --- keys ----------------------------------------------------------------------------------------


def generate_keys(*, rsa_bits: int = DEFAULT_RSA_BITS) -> dict[str, Any]:
    """A new requestor key pair as a private JWK set: EC P-256 (sig, ES256) and RSA (enc,
    RSA-OAEP-256), kid = RFC 7638 thumbprint."""
    if rsa_bits < 2048:
        raise ValueError("RSA keys must have at least 2048 bits")
    ec = jwk.JWK.generate(kty="EC", crv="P-256")
    rsa = jwk.JWK.generate(kty="RSA", size=rsa_bits)
    keys = []
    for key, use, alg in ((ec, "sig", "ES256"), (rsa, "enc", "RSA-OAEP-256")):
        data = key.export_private(as_dict=True)
        data.update(kid=key.thumbprint(), use=use, alg=alg)
        keys.append(data)
    return {"keys": keys}


def public_jwks(private_jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The public half of a key set: what the issuer registers (`register_requestor`)."""
    public = []
    for data in private_jwks["keys"]:
        key = jwk.JWK(**data)
        item = key.export_public(as_dict=True)
        item.update({k: data[k] for k in ("kid", "use", "alg") if k in data})
        public.append(item)
    return {"keys": public}


def split_keys(private_jwks: Mapping[str, Any]) -> tuple[jwk.JWK, jwk.JWK]:
    """(EC signing key, RSA decryption key), both private, from a key file's JWK set."""
    ec = rsa = None
    for data in private_jwks.get("keys", []):
        key = jwk.JWK(**data)
        if not key.has_private:
            continue
        if key.get("kty") == "EC" and ec is None:
            ec = key
        elif key.get("kty") == "RSA" and rsa is None:
            rsa = key
    if ec is None or rsa is None:
        raise ValueError("the key file needs a private EC P-256 key and a private RSA key")
    return ec, rsa


def _kid(key: jwk.JWK) -> str:
    return str(key.get("kid") or key.thumbprint())


# --- the client ----------------------------------------------------------------------------------


class RequestorClient:
    def __init__(
        self,
        *,
        client_id: str,
        token_url: str,
        api_base: str,
        ec_key: jwk.JWK,
        rsa_key: jwk.JWK,
        jwks_url: str,
        scopes: Iterable[str] = (),
        session: requests.Session | None = None,
        timeout: float = TIMEOUT_SECONDS,
        issuer_jwks: dict[str, Any] | None = None,
    ):
        """`issuer_jwks`: the issuer's JWK set to start from (fetched again from `jwks_url`
        after JWKS_CACHE_SECONDS, or when the issuer refuses the kid)."""
        if not ec_key.has_private or not rsa_key.has_private:
            raise ValueError("the client needs the requestor's private EC and RSA keys")
        self.client_id = client_id
        self.token_url = token_url
        self.api_base = api_base.rstrip("/")
        self.ec_key = ec_key
        self.rsa_key = rsa_key
        self.jwks_url = jwks_url
        self.scopes = list(scopes)
        self.session = session or requests.Session()
        self.timeout = timeout
        self._lock = threading.Lock()
        self._token: tuple[str, float, frozenset[str]] | None = None
        self._jwks: tuple[dict[str, Any], float] | None = None
        if issuer_jwks is not None:
            self._jwks = (issuer_jwks, time.monotonic() + JWKS_CACHE_SECONDS)

    @classmethod
    def for_issuer(
        cls,
        base_url: str,
        *,
        client_id: str,
        ec_key: jwk.JWK,
        rsa_key: jwk.JWK,
        scopes: Iterable[str] = (),
        **kwargs: Any,
    ) -> RequestorClient:
        """The standard paths under one base URL: /oauth2/token, /issuer/v1,
        /.well-known/jwks.json."""
        base = base_url.rstrip("/")
        return cls(
            client_id=client_id,
            token_url=f"{base}/oauth2/token",
            api_base=f"{base}/issuer/v1",
            jwks_url=f"{base}/.well-known/jwks.json",
            ec_key=ec_key,
            rsa_key=rsa_key,
            scopes=scopes,
            **kwargs,
        )

    @classmethod
    def from_key_file(
        cls, path: str | Path, *, base_url: str, client_id: str, **kwargs: Any
    ) -> RequestorClient:
        ec, rsa = split_keys(json.loads(Path(path).read_text()))
        return cls.for_issuer(base_url, client_id=client_id, ec_key=ec, rsa_key=rsa, **kwargs)

    # --- token -----------------------------------------------------------------------------------

    def assertion(self, *, now: int | None = None, lifetime: int = ASSERTION_SECONDS) -> str:
        """A fresh client assertion (RFC 7523): ES256, kid of the EC key, single-use jti."""
        now = int(time.time()) if now is None else now
        token = jwt.JWT(
            header={"alg": "ES256", "typ": "JWT", "kid": _kid(self.ec_key)},
            claims={
                "iss": self.client_id,
                "sub": self.client_id,
                "aud": self.token_url,
                "iat": now,
                "exp": now + lifetime,
                "jti": uuid.uuid4().hex,
            },
        )
        token.make_signed_token(self.ec_key)
        return str(token.serialize())

    def fetch_token(self, scopes: Iterable[str] | str | None = None) -> dict[str, Any]:
        """Ask the token endpoint for an access token; returns its JSON answer (access_token,
        token_type, expires_in, scope) and keeps the token for `call`."""
        if isinstance(scopes, str):
            scopes = scopes.split()
        wanted = list(scopes if scopes is not None else self.scopes)
        response = self.session.post(
            self.token_url,
            data={
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "scope": " ".join(wanted),
                "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": self.assertion(),
            },
            timeout=self.timeout,
        )
        body = _json(response)
        if response.status_code != 200 or not isinstance(body, dict) or "access_token" not in body:
            raise IssuerClientError(
                f"token endpoint answered HTTP {response.status_code}: {_describe(body)}",
                status=response.status_code,
                body=body,
            )
        granted = frozenset(str(body.get("scope", " ".join(wanted))).split())
        expires = time.monotonic() + int(body.get("expires_in", 0))
        with self._lock:
            self._token = (str(body["access_token"]), expires, granted)
        return body

    def access_token(self, scopes: Iterable[str] | None = None) -> str:
        """A kept token that covers `scopes` and is not about to expire, else a new one."""
        wanted = frozenset(scopes if scopes is not None else self.scopes)
        with self._lock:
            current = self._token
        if (
            current is None
            or current[1] - TOKEN_MARGIN_SECONDS <= time.monotonic()
            or not wanted <= current[2]
        ):
            self.fetch_token(sorted(wanted | (current[2] if current else frozenset())))
            with self._lock:
                assert self._token is not None
                current = self._token
        return current[0]

    # --- the issuer's keys -----------------------------------------------------------------------

    def issuer_jwks(self, *, refresh: bool = False) -> dict[str, Any]:
        with self._lock:
            cached = self._jwks
        if cached is not None and not refresh and cached[1] > time.monotonic():
            return cached[0]
        response = self.session.get(self.jwks_url, timeout=self.timeout)
        body = _json(response)
        if response.status_code != 200 or not isinstance(body, dict):
            raise IssuerClientError(
                f"issuer JWKS answered HTTP {response.status_code}", status=response.status_code
            )
        with self._lock:
            self._jwks = (body, time.monotonic() + JWKS_CACHE_SECONDS)
        return body

    def issuer_encryption_key(self, *, refresh: bool = False) -> tuple[str, jwk.JWK]:
        """(kid, key) of the issuer's current RSA encryption key: the first RSA key with use
        enc in its JWKS (the issuer lists the newest first)."""
        for data in self.issuer_jwks(refresh=refresh).get("keys", []):
            if data.get("kty") == "RSA" and data.get("use", "enc") == "enc" and data.get("kid"):
                return str(data["kid"]), jwk.JWK(**data)
        raise IssuerClientError("the issuer's JWKS has no RSA encryption key")

    # --- the API ---------------------------------------------------------------------------------

    def encrypt_request(self, payload: Mapping[str, Any], *, refresh: bool = False) -> str:
        kid, key = self.issuer_encryption_key(refresh=refresh)
        return jwe.encrypt(dict(payload), key, kid)

    def decrypt_answer(self, token: str) -> dict[str, Any]:
        """Decrypt an answer: it must name this requestor's RSA key."""
        own = _kid(self.rsa_key)
        _header, payload = jwe.decrypt(token, lambda kid: self.rsa_key if kid == own else None)
        return payload

    def post_jwe(self, group: str, operation: str, body: str, token: str) -> requests.Response:
        return self.session.post(
            f"{self.api_base}/{group}/{operation}",
            data=body.encode("ascii"),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/jose"},
            timeout=self.timeout,
        )

    def call(
        self,
        group: str,
        operation: str,
        payload: Mapping[str, Any],
        *,
        scopes: Iterable[str] | None = None,
    ) -> dict[str, Any]:
        """One operation: encrypt, post with the bearer token, decrypt the answer. A request
        the issuer refuses before decrypting (token, scope, JWE) raises IssuerClientError; the
        outcome of an accepted one is `result.code` in the returned dict."""
        token = self.access_token(scopes)
        response = self.post_jwe(group, operation, self.encrypt_request(payload), token)
        if response.status_code == 400 and "kid" in response.text:
            # The issuer may have rotated its encryption key since the JWKS was cached.
            response = self.post_jwe(
                group, operation, self.encrypt_request(payload, refresh=True), token
            )
        if response.status_code != 200:
            body = _json(response)
            raise IssuerClientError(
                f"{group}/{operation}: HTTP {response.status_code}: {_describe(body)}",
                status=response.status_code,
                body=body,
            )
        media = response.headers.get("Content-Type", "").split(";")[0].strip()
        if media != "application/jose":
            raise IssuerClientError(f"{group}/{operation}: the answer is {media!r}, not a JWE")
        return self.decrypt_answer(response.text)


def _json(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text[:500]


def _describe(body: Any) -> str:
    if isinstance(body, dict) and "error" in body:
        return f"{body['error']}: {body.get('error_description', '')}"
    return str(body)[:300]


__all__ = [
    "IssuerClientError",
    "RequestorClient",
    "generate_keys",
    "public_jwks",
    "split_keys",
]
