"""Read-only endpoints outside DRF answer another method with 405 and `Allow` (found by the
Schemathesis run: a POST to /healthz, / or /.well-known/jwks.json answered Django's CSRF 403
page, so the JWK set's own 405 was never reached)."""

import pytest
from django.test import Client


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/", "/.well-known/jwks.json"])
@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_another_method_answers_405_with_allow(path, method, settings, tmp_path):
    settings.ISSUER_KEYS_DIR = tmp_path  # an empty key directory: an empty JWK set
    client = Client(enforce_csrf_checks=True)  # as a browser or a fuzzer meets the site
    response = getattr(client, method)(path)
    assert response.status_code == 405
    assert {m.strip() for m in response["Allow"].split(",")} == {"GET", "HEAD"}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/", "/.well-known/jwks.json"])
def test_get_and_head_still_answer(path, settings, tmp_path):
    settings.ISSUER_KEYS_DIR = tmp_path
    client = Client(enforce_csrf_checks=True)
    assert client.get(path).status_code == 200
    assert client.head(path).status_code == 200
