"""POST /oauth2/token with a NUL byte (or another control character) in client_id or in the
assertion's jti (issue 9, item 8): refused before any look-up or insert with the protocol's 400
`invalid_request` / `invalid_grant`, never a 500 (PostgreSQL cannot hold NUL in text)."""

import pytest
from oauth2_provider.models import AccessToken

from issuer.models import UsedAssertion

pytestmark = pytest.mark.usefixtures("issuer_keys")


@pytest.mark.parametrize("client_id", ["oob\x00client", "\x00", "oob-client\n", "oob\x7fclient"])
def test_a_control_character_in_client_id_is_invalid_request(client, requestor, client_id):
    client.raise_request_exception = False
    response = requestor.post_token(client, client_id=client_id)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_request" and "client_id" in body["error_description"]
    assert not AccessToken.objects.exists()


@pytest.mark.parametrize("jti", ["abc\x00def", "\x00", "line\nbreak", "tab\there"])
def test_a_control_character_in_the_jti_is_invalid_grant(client, requestor, jti):
    client.raise_request_exception = False
    assertion = requestor.assertion(jti=jti)
    response = requestor.post_token(client, client_assertion=assertion)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_grant" and "jti" in body["error_description"]
    assert not UsedAssertion.objects.exists() and not AccessToken.objects.exists()
