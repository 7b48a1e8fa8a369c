"""The out-of-band cardholder page (`cardholderUrl` of StartOOBAuthen) in a real browser: Debian's
headless Chromium on a phone-sized page, which is what the issuer's app would open.

The page is sent with `Referrer-Policy: no-referrer`, so Chromium posts its form with
`Origin: null` and no Referer; the answer must still be recorded (docs/decisions.md, "Hardening
(issue 9)"). The same flows with Django's test client are in tests/issuer/test_oob.py and
tests/issuer/test_oob_page.py.
"""

import uuid
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from issuer import services as oob
from issuer.cards.models import Card
from issuer.models import OOBAuthentication, OOBStatus
from tests.browser.conftest import PHONE, Tab, screenshot
from tests.issuer.conftest import issue_cards

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIENT = "oob-browser"
TAP_TARGET_PX = 44  # the smallest comfortable touch target (Apple HIG; Material asks for 48)


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


REFERENCE = "crd_demo_prepaid"  # the requestor's internal reference, as seed_demo's


def masked_card() -> str:
    return Card.objects.get(client_id=CLIENT, reference=REFERENCE).masked


def start(live_server: Any) -> tuple[str, str]:
    """(authenticationId, the cardholder's link), the link built as `cardholder_url` does but on
    the live server. The requestor names one of its cards by its own cardReference, as
    StartOOBAuthen does."""
    issue_cards(CLIENT, (REFERENCE,))
    auth, link_token = oob.oob_start(
        client_id=CLIENT,
        card_reference=REFERENCE,
        transaction_id=f"order-{uuid.uuid4().hex[:12]}",
        amount=Decimal("42.50"),
        currency="EUR",
        merchant_name="Corner Café",
    )
    return auth.pk, live_server.url + reverse("issuer-oob-cardholder", args=[auth.pk, link_token])


def expire(authentication_id: str) -> None:
    OOBAuthentication.objects.filter(pk=authentication_id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def stored(authentication_id: str) -> OOBAuthentication:
    return OOBAuthentication.objects.get(pk=authentication_id)


def open_request(page: Any, url: str) -> None:
    """The cardholder opens the link: the request, Approve and Reject, on one phone screen."""
    response = page.goto(url)
    assert response.status == 200
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cache-control"] == "no-store"
    expect(page.locator("h1")).to_have_text("Approve this payment?")
    expect(page.locator("#merchant")).to_have_text("Corner Café")
    expect(page.locator("#amount")).to_have_text("42.50 EUR")
    # Issue 25: the card as the cardholder knows it (its masked number), not the requestor's
    # internal cardReference.
    expect(page.locator("#card")).to_have_text(masked_card())
    expect(page.locator("body")).not_to_contain_text(REFERENCE)
    for button in ("#approve", "#reject"):
        expect(page.locator(button)).to_be_in_viewport()
        assert page.locator(button).bounding_box()["height"] >= TAP_TARGET_PX
    # Nothing sideways to scroll on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def answer(page: Any, url: str, button: str) -> Any:
    """Tap Approve or Reject; the response to the form's POST (to the same link)."""
    with page.expect_response(lambda r: r.url == url and r.request.method == "POST") as posted:
        page.click(f"#{button}")
    page.wait_for_load_state()
    return posted.value


def sent_like_chromium(response: Any) -> None:
    """What the page's Referrer-Policy makes Chromium send: no Referer (the secret is in the
    link) and an opaque origin. The platform must accept exactly this."""
    sent = response.request.all_headers()
    assert "referer" not in sent
    assert sent.get("origin") == "null"


def shows(page: Any, title: str, text: str) -> None:
    expect(page.locator("h1")).to_have_text(title)
    expect(page.locator("#text")).to_have_text(text)
    expect(page.locator("button")).to_have_count(0)


def test_approve(phone: Tab, live_server):
    auth_id, url = start(live_server)
    open_request(phone.page, url)
    screenshot(phone, "oob-pending.png")
    response = answer(phone.page, url, "approve")
    assert response.status == 200, f"the answer was refused: HTTP {response.status}"
    sent_like_chromium(response)
    shows(phone.page, "Payment approved", "You approved this payment. You can close this page.")
    screenshot(phone, "oob-approved.png")
    auth = stored(auth_id)
    assert auth.status == OOBStatus.SUCCESS and auth.decided_at is not None
    assert phone.context.cookies() == []  # no cookie: the link is the only credential
    assert phone.page_errors == []


def test_reject(phone: Tab, live_server):
    auth_id, url = start(live_server)
    open_request(phone.page, url)
    response = answer(phone.page, url, "reject")
    assert response.status == 200, f"the answer was refused: HTTP {response.status}"
    sent_like_chromium(response)
    shows(phone.page, "Payment rejected", "You rejected this payment. You can close this page.")
    assert stored(auth_id).status == OOBStatus.REJECTED
    assert phone.page_errors == []


def test_expired_request(phone: Tab, live_server):
    auth_id, url = start(live_server)
    expire(auth_id)
    response = phone.page.goto(url)
    assert response.status == 410
    assert response.headers["referrer-policy"] == "no-referrer"
    shows(phone.page, "Request expired", "It expired before it was answered. Nothing was changed.")
    screenshot(phone, "oob-expired.png")
    # Showing it writes nothing; the requestor's inquiry reports (and records) the expiry.
    assert stored(auth_id).status == OOBStatus.PENDING
    inquiry = oob.oob_get_for_client(client_id=CLIENT, authentication_id=auth_id)
    assert inquiry.status == OOBStatus.EXPIRED
    assert stored(auth_id).status == OOBStatus.EXPIRED


def test_answer_after_the_expiry(phone: Tab, live_server):
    auth_id, url = start(live_server)
    open_request(phone.page, url)
    expire(auth_id)  # the cardholder waited too long before tapping
    response = answer(phone.page, url, "approve")
    assert response.status == 410
    shows(phone.page, "Request expired", "It expired before it was answered. Nothing was changed.")
    assert stored(auth_id).status == OOBStatus.EXPIRED


def test_already_decided(phone: Tab, live_server):
    auth_id, url = start(live_server)
    first, second = phone.page, phone.context.new_page()
    open_request(first, url)
    open_request(second, url)  # a second page load of the same link, before any answer
    assert answer(first, url, "approve").status == 200
    expect(first.locator("h1")).to_have_text("Payment approved")
    decided_at = stored(auth_id).decided_at
    response = answer(second, url, "reject")
    assert response.status == 409
    shows(second, "Already answered", "It was already approved. Nothing was changed.")
    auth = stored(auth_id)
    assert auth.status == OOBStatus.SUCCESS and auth.decided_at == decided_at
    # Opening the link again shows the same, without buttons.
    assert second.goto(url).status == 409
    shows(second, "Already answered", "It was already approved. Nothing was changed.")


def test_a_second_tap_does_not_change_the_answer(phone: Tab, live_server):
    """Approve, then Reject before the answer page arrives: the first tap is the answer (without
    the page's guard the browser would replace the first submission with the second)."""
    auth_id, url = start(live_server)
    open_request(phone.page, url)
    with phone.page.expect_navigation():
        phone.page.evaluate(
            """() => {
                const form = document.getElementById("answer");
                form.requestSubmit(document.getElementById("approve"));
                form.requestSubmit(document.getElementById("reject"));
            }"""
        )
    shows(phone.page, "Payment approved", "You approved this payment. You can close this page.")
    assert len(phone.posts_to(url)) == 1
    assert stored(auth_id).status == OOBStatus.SUCCESS


def test_the_deadline_is_shown_in_the_cardholders_time_zone(browser, live_server):
    """Issue 25: "Answer by" in the phone's own time zone (as the checkout's expiry); the server's
    text says UTC, for a browser without JavaScript, and stays on hover."""
    from datetime import UTC
    from zoneinfo import ZoneInfo

    tab = Tab(browser, viewport=PHONE, phone=True, timezone_id="Asia/Tokyo")
    try:
        auth_id, url = start(live_server)
        expires = stored(auth_id).expires_at.astimezone(UTC)
        open_request(tab.page, url)
        shown = tab.page.locator("#deadline time")
        expect(shown).to_have_attribute("data-localised", "true")
        expect(shown).to_contain_text(f"{expires.astimezone(ZoneInfo('Asia/Tokyo')):%I:%M %p}")
        expect(shown).not_to_contain_text("UTC")
        expect(shown).to_have_attribute("title", f"{expires:%Y-%m-%d %H:%M:%S} UTC")
        assert tab.page_errors == []
    finally:
        tab.close()
