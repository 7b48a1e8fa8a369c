"""The cardholder page's posts as a real browser sends them (docs/decisions.md, "Hardening
(issue 9)"): under `Referrer-Policy: no-referrer` Chromium posts the form with `Origin: null`, no
Referer and, since the page sets none, no cookie. Django's CSRF check refused exactly that (403);
the secret in the link is the page's credential. In the browser itself:
tests/browser/test_oob_browser.py.
"""

import uuid
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from issuer import services as oob
from issuer.models import OOBAuthentication, OOBStatus
from tests.issuer.test_oob import expire_now

pytestmark = pytest.mark.django_db

# What Chromium sends with the form's POST, besides the body (no Referer, no Cookie).
CHROMIUM_POST = {
    "Origin": "null",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Dest": "document",
    "Sec-Fetch-User": "?1",
}


def start() -> tuple[str, str]:
    auth, link_token = oob.oob_start(
        client_id="oob-client",
        card_reference="411111******1111",
        transaction_id=uuid.uuid4().hex,
        amount=Decimal("10.00"),
        currency="EUR",
        merchant_name="Demo Shop",
    )
    return auth.pk, reverse("issuer-oob-cardholder", args=[auth.pk, link_token])


@pytest.mark.parametrize("secure", [False, True], ids=["http", "https"])
@pytest.mark.parametrize(
    "headers",
    [CHROMIUM_POST, {}],
    ids=["origin-null", "neither-origin-nor-referer"],
)
@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_browser_post_without_referer_is_answered(secure, headers, decision):
    """Over HTTPS Django's check would also demand a Referer when there is no Origin."""
    auth_id, page = start()
    cardholder = Client(enforce_csrf_checks=True)
    assert cardholder.get(page, secure=secure).status_code == 200
    response = cardholder.post(page, {"decision": decision}, headers=headers, secure=secure)
    assert response.status_code == 200
    status = OOBStatus.SUCCESS if decision == "approve" else OOBStatus.REJECTED
    assert OOBAuthentication.objects.get(pk=auth_id).status == status


def test_every_answer_of_the_page_is_private_and_sets_no_cookie():
    """The secret is in the path: no page may send it onwards (Referer) or be kept by a cache,
    and none sets a cookie (the link, not a browser session, is the credential)."""
    auth_id, page = start()
    expired_id, expired_page = start()
    expire_now(expired_id)
    cardholder = Client(enforce_csrf_checks=True)
    answers = [
        cardholder.get(page),  # 200, the request
        cardholder.post(page, {"decision": "maybe"}, headers=CHROMIUM_POST),  # 400
        cardholder.post(page, {"decision": "approve"}, headers=CHROMIUM_POST),  # 200
        cardholder.post(page, {"decision": "reject"}, headers=CHROMIUM_POST),  # 409
        cardholder.get(expired_page),  # 410
        cardholder.get(f"{page[:-1]}x"),  # 404
    ]
    assert [r.status_code for r in answers] == [200, 400, 200, 409, 410, 404]
    for response in answers:
        assert response["Referrer-Policy"] == "no-referrer"
        assert response["Cache-Control"] == "no-store"
        assert response["X-Frame-Options"] == "DENY"
        assert not response.cookies
    assert "csrfmiddlewaretoken" not in answers[0].content.decode()
    assert OOBAuthentication.objects.get(pk=auth_id).status == OOBStatus.SUCCESS


def test_a_post_with_a_wrong_secret_changes_nothing():
    """Without the CSRF check the secret is all that guards an answer: a browser-like post with
    another link's secret is the 404 page, and both authentications stay pending."""
    auth_id, page = start()
    other_id, other_page = start()
    forged = f"{page.rsplit('/', 1)[0]}/{other_page.rsplit('/', 1)[1]}"
    response = Client().post(forged, {"decision": "approve"}, headers=CHROMIUM_POST)
    assert response.status_code == 404
    assert set(OOBAuthentication.objects.values_list("status", flat=True)) == {OOBStatus.PENDING}
