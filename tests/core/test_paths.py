"""Paths (issue 9, item 5): every path under the API's prefixes answers the JSON envelope, in
DEBUG and outside it; a wrong method is 405 before authentication; `/` is a small home page."""

import pytest
from django.test import Client, override_settings

from tests.conftest import code

PREFIXES = ["/pay/", "/v3/", "/merch-web/", "/issuer/"]
UNKNOWN = [
    "/pay/nothing",
    "/pay/v3/nothing-here",
    "/pay/v3/merchant/create/extra",
    "/pay/v3/a%0Ab",
    "/v3/exchangerate/nothing",
    "/v3/",
    "/merch-web/download/nothing",
    "/merch-web/",
    "/issuer/nothing",
    "/issuer/v2/card/Activation",
    "/issuer/",
]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["get", "post", "put", "delete"])
@pytest.mark.parametrize("path", UNKNOWN)
def test_unknown_path_under_an_api_prefix_is_the_json_404(path, method, debug):
    with override_settings(DEBUG=debug):
        response = getattr(Client(), method)(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert code(response) == "700.100.199"
    assert response["X-Request-Id"] == response.json()["ndc"]
    assert "urlpatterns" not in response.content.decode()


def test_every_prefix_is_covered():
    assert {"/" + path.split("/")[1] + "/" for path in UNKNOWN} == set(PREFIXES)


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/pay/v3/merchant/create"),
        ("get", "/pay/v3/merchant/status/"),
        ("put", "/pay/v3/merchant/Inquiry"),
        ("get", "/pay/v3/terminal/create"),
        ("get", "/pay/v3/payments"),
        ("get", "/pay/v21/payments"),
        ("delete", "/pay/v3/payments/" + "0" * 32),
        ("put", "/pay/v3/payments"),
    ],
)
def test_wrong_method_is_405_before_authentication(method, path, debug):
    """No token, no entityId: the method is checked first."""
    with override_settings(DEBUG=debug):
        response = getattr(Client(), method)(path)
    assert response.status_code == 405, response.content
    assert code(response) == "200.100.101"


@pytest.mark.django_db
def test_wrong_method_with_a_token_but_without_entity_id_is_405(api):
    response = api.client.get("/pay/v3/payments", HTTP_AUTHORIZATION=f"Bearer {api.token}")
    assert response.status_code == 405 and code(response) == "200.100.101"
    assert "POST" in response["Allow"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_wrong_method_on_the_cardholder_page_is_the_json_405(debug):
    with override_settings(DEBUG=debug):
        response = Client().put(f"/issuer/oob/{'0' * 32}/secret")
    assert response.status_code == 405
    assert code(response) == "200.100.101"
    assert response["Allow"] == "GET, POST"


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_home_page_links_docs_admin_portal_and_schema(debug):
    with override_settings(DEBUG=debug):
        response = Client().get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    for link in ('href="/api/docs/"', 'href="/admin/"', 'href="/portal/"', 'href="/api/schema/"'):
        assert link in page
    assert "http://" not in page and "https://" not in page  # nothing from a CDN
