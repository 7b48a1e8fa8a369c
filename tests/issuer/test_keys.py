"""The issuer's keys: GET /.well-known/jwks.json and `manage.py issuer_keys`, with rotation."""

import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from jwcrypto import jwk, jws

from issuer.protocol import access_tokens as tokens
from issuer.protocol import keys


def run(*args: str) -> str:
    out = StringIO()
    call_command("issuer_keys", *args, stdout=out)
    return out.getvalue()


def jwks_of(client) -> dict:
    response = client.get("/.well-known/jwks.json")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=300"
    assert response["Content-Type"].startswith("application/json")
    return response.json()


class Later(datetime):
    """datetime whose now() is `shift` ahead: the grace period passes without waiting."""

    shift = timedelta(0)

    @classmethod
    def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
        return datetime.now(tz) + cls.shift


# --- JWKS ----------------------------------------------------------------------------------------


def test_jwks_publishes_the_public_signing_and_encryption_keys(client, issuer_keys):
    published = jwks_of(client)["keys"]
    by_use = {k["use"]: k for k in published}
    assert len(published) == 2
    sig, enc = by_use["sig"], by_use["enc"]
    assert (sig["kty"], sig["crv"], sig["alg"]) == ("EC", "P-256", "ES256")
    assert (enc["kty"], enc["alg"]) == ("RSA", "RSA-OAEP-256")
    assert len(jwk.base64url_decode(enc["n"])) * 8 >= 2048
    for data in published:
        assert not {"d", "p", "q", "dp", "dq", "qi"} & data.keys()
        key = jwk.JWK(**data)
        assert not key.has_private
        assert data["kid"] == key.thumbprint()  # RFC 7638
    assert sig["kid"] == keys.active_key(keys.SIG).kid
    assert enc["kid"] == keys.active_key(keys.ENC).kid


def test_jwks_is_empty_without_keys(client, settings, tmp_path):
    settings.ISSUER_KEYS_DIR = tmp_path / "none"
    assert jwks_of(client) == {"keys": []}


def test_jwks_refuses_post(client, issuer_keys):
    assert client.post("/.well-known/jwks.json").status_code == 405


# --- issuer_keys generate / list ------------------------------------------------------------------


def test_generate_creates_both_kinds_once(settings, tmp_path):
    settings.ISSUER_KEYS_DIR = tmp_path / "keys"
    out = run("generate")
    assert "sig: generated" in out and "enc: generated" in out
    sig, enc = keys.active_key(keys.SIG), keys.active_key(keys.ENC)
    assert sig.key.get("crv") == "P-256"
    assert enc.key.get("kty") == "RSA"
    assert (sig.path.stat().st_mode & 0o777) == 0o600

    again = run("generate")
    assert "a key exists" in again and "generated" not in again
    assert len(list((tmp_path / "keys").glob("*.pem"))) == 2


def test_list_shows_every_key_and_its_status(issuer_keys):
    old_sig = keys.active_key(keys.SIG).kid
    run("rotate")
    table = run("list").splitlines()
    assert table[0].split() == ["use", "kid", "created", "status"]
    rows = {line.split()[1]: line for line in table[1:]}
    assert len(rows) == 4
    assert "active" in rows[keys.active_key(keys.SIG).kid]
    assert "published until" in rows[old_sig]


def test_list_without_keys(settings, tmp_path):
    settings.ISSUER_KEYS_DIR = tmp_path / "none"
    assert "no issuer keys" in run("list")


def test_unknown_action_is_refused():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        run("destroy")


# --- Rotation -----------------------------------------------------------------------------------


def signing_kid(token: str) -> str:
    parsed = jws.JWS()
    parsed.deserialize(token)
    return str(parsed.jose_header["kid"])


def test_rotation_signs_with_the_new_key_and_keeps_old_tokens_valid(
    client, requestor, issuer_keys, monkeypatch
):
    old_sig, old_enc = keys.active_key(keys.SIG), keys.active_key(keys.ENC)
    old_token = requestor.access_token(client)
    assert signing_kid(old_token) == old_sig.kid

    out = run("rotate")  # in the same second as the fixture's keys, possibly: still newer
    new_sig, new_enc = keys.active_key(keys.SIG), keys.active_key(keys.ENC)
    assert new_sig.kid != old_sig.kid and new_enc.kid != old_enc.kid
    assert f"new active key {new_sig.kid}" in out
    assert f"{old_sig.kid} stays published until" in out

    new_token = requestor.access_token(client)
    assert signing_kid(new_token) == new_sig.kid
    published = {k["kid"] for k in jwks_of(client)["keys"]}
    assert published == {old_sig.kid, old_enc.kid, new_sig.kid, new_enc.kid}
    assert tokens.validate_access_token(old_token)["sub"] == "oob-client"
    assert tokens.validate_access_token(new_token)["sub"] == "oob-client"

    assert "nothing to prune" in run("prune")
    assert len(list(issuer_keys.glob("*.pem"))) == 4

    # One token lifetime after the rotation: the old keys are no longer live...
    monkeypatch.setattr(Later, "shift", timedelta(seconds=3601))
    monkeypatch.setattr(keys, "datetime", Later)
    assert {k["kid"] for k in jwks_of(client)["keys"]} == {new_sig.kid, new_enc.kid}
    assert "expired since" in run("list")
    # ...and prune deletes their files.
    out = run("prune")
    assert f"removed {old_sig.path.name}" in out
    assert f"removed {old_enc.path.name}" in out
    assert sorted(p.name for p in issuer_keys.glob("*.pem")) == sorted(
        [new_sig.path.name, new_enc.path.name]
    )
    # A token signed with the pruned key no longer validates (it has expired by then anyway).
    with pytest.raises(tokens.InvalidToken):
        tokens.validate_access_token(old_token, now=int(Later.now(UTC).timestamp()))


def test_two_rotations_keep_every_key_inside_its_grace(issuer_keys):
    first = keys.active_key(keys.SIG).kid
    run("rotate")
    second = keys.active_key(keys.SIG).kid
    run("rotate")
    third = keys.active_key(keys.SIG).kid
    assert len({first, second, third}) == 3
    live = [k.kid for k in keys.live_keys(keys.SIG)]
    assert live == [third, second, first]


def test_jwks_is_json_the_requestor_side_can_load(client, issuer_keys):
    key_set = jwk.JWKSet.from_json(json.dumps(jwks_of(client)))
    assert key_set.get_key(keys.active_key(keys.SIG).kid) is not None
