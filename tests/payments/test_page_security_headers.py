"""Every page answers a Content-Security-Policy (issue 32): its own scripts and styles only, the
inline ones by the request's nonce, no 'unsafe-inline' (Redoc's styles the one exception), never
framed, except the 3-D Secure pages, which the platform itself and the merchant's origin (its
shopperResultUrl's) may frame and nobody else. The simulators' one-time codes are on the page
only with SIMULATOR_SHOW_CODES (by default DEBUG). In Chromium, every browser test fails on a
CSP violation the page reports (tests/browser/conftest.py, `Tab.close`)."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from merchants.models import PortalUser
from payments.models import ThreeDSAuthentication
from tests.issuer.test_oob_page import start as oob_start
from tests.payments.test_checkouts import opened, page_path
from tests.payments.test_threeds_flow import CHALLENGE, METHOD, open_redirect, start

pytestmark = pytest.mark.django_db
PASSWORD = "a long portal passphrase 7"


def policy(response) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    header = response["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (part.split() for part in header.split(";") if part.strip())
    }


def assert_strict(response, *, framed_by: list[str] | None = None) -> None:  # type: ignore[no-untyped-def]
    """The page's policy allows no inline script or style but its own, by nonce, and every
    inline <script> and <style> of the page carries that nonce; no style attribute."""
    csp = policy(response)
    assert csp["default-src"] == ["'self'"] and csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"]
    for directive in ("script-src", "style-src"):
        assert "'unsafe-inline'" not in csp[directive] and "'unsafe-eval'" not in csp[directive]
    assert csp["frame-ancestors"] == (framed_by or ["'none'"])
    page = response.content.decode()
    nonces = set(re.findall(r"<(?:script|style)\b(?![^>]*\bsrc=)[^>]*\bnonce=\"([^\"]+)\"", page))
    inline = re.findall(r"<(?:script|style)\b(?![^>]*\bsrc=)[^>]*>", page)
    assert len(nonces) <= 1
    for tag in inline:
        assert "nonce=" in tag, tag
    for nonce in nonces:
        assert f"'nonce-{nonce}'" in csp["script-src"] and f"'nonce-{nonce}'" in csp["style-src"]
    assert not re.search(r"<[a-z][^>]*\sstyle=[\"']", page), "an inline style attribute"


def test_the_home_page_and_the_api_docs(client):
    assert_strict(client.get("/"))
    docs = client.get("/api/docs/")
    assert_strict(docs)
    assert "?script=" in docs.content.decode()  # Swagger UI's start-up script is a file
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    redoc = client.get("/api/redoc/")
    assert "fonts.googleapis.com" not in redoc.content.decode()  # nothing from a CDN
    assert "'unsafe-inline'" in policy(redoc)["style-src"]  # Redoc writes styles at run time
    assert "'unsafe-inline'" not in policy(redoc)["script-src"]


def test_the_admin(client, admin_client):
    assert_strict(client.get("/admin/login/"))
    assert_strict(admin_client.get("/admin/"))
    assert_strict(admin_client.get("/admin/merchants/merchant/"))
    assert_strict(admin_client.get("/admin/merchants/merchant/add/"))


def test_the_portal(client, merchant, payer):
    payer.pay("DB", "10.00")  # the overview draws its charts from the first payment on
    assert_strict(client.get("/portal/login/"))
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    client.post("/portal/login/", {"username": "shop-admin", "password": PASSWORD})
    overview = client.get("/portal/")
    assert_strict(overview)
    assert overview.content.decode().count("<svg") == 4  # the charts, their styles by nonce
    assert_strict(client.get("/portal/developers/"))


def test_the_hosted_checkout(payer):
    data = opened(payer)
    assert_strict(Client().get(page_path(data)))


def test_the_cardholder_page():
    _, page = oob_start()
    assert_strict(Client().get(page))


@pytest.mark.parametrize("number", [CHALLENGE, METHOD])
def test_the_3ds_pages_may_be_framed_by_the_merchant_only(client, payer, enrolled, number):
    data = start(payer, number=number, shopperResultUrl="https://shop.example.com:8443/r?x=1")
    framed_by = ["'self'", "https://shop.example.com:8443"]
    page = open_redirect(client, data)
    assert_strict(page, framed_by=framed_by)
    assert "X-Frame-Options" not in page  # it cannot name an origin: the CSP says who
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    if number == METHOD:
        method = client.post(f"/threeds/acs/{auth.pk}/method", {"threeDSMethodData": auth.pk})
        assert_strict(method, framed_by=framed_by)
        assert_strict(client.post(f"/threeds/{auth.pk}/continue"), framed_by=framed_by)
    unknown = client.get("/threeds/0123456789abcdef0123456789abcdef/start")
    assert unknown.status_code == 404 and policy(unknown)["frame-ancestors"] == ["'none'"]


def test_every_other_page_is_never_framed(client):
    response = client.get("/portal/login/")
    assert policy(response)["frame-ancestors"] == ["'none'"]
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("shown", [True, False])
def test_the_acs_code_is_on_the_page_only_when_the_simulators_show_codes(
    client, payer, enrolled, settings, shown
):
    settings.SIMULATOR_SHOW_CODES = shown
    page = open_redirect(client, start(payer, number=CHALLENGE)).content.decode()
    assert 'name="otp"' in page
    assert ('id="simulator-code"' in page) is shown
    assert ("1234" in page) is shown
