"""The hosted checkout in a real browser (Debian's headless Chromium, Playwright): the shopper
opens the checkout's redirect.url on the platform, pays with a card (or a stored card, or through
a 3-D Secure challenge), and the platform posts the checkout's id and resourcePath back to the
shop's shopperResultUrl. The same flows with Django's test client are in
tests/payments/test_checkouts.py."""

import uuid
from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from payments.models import Checkout, Payment
from tests.browser.conftest import HttpPayer, Shop, Tab, screenshot
from tests.payments.test_checkouts import BILLING, CUSTOMER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHALLENGE = "4000000000001091"


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def create(payer: HttpPayer, amount: str = "49.90", **fields: str) -> dict[str, Any]:
    data = payer._call(
        "POST",
        "/pay/v3/checkouts",
        {
            "merchant.id": payer.merchant.merchant_id,
            "merchantTransactionId": uuid.uuid4().hex,
            "paymentType": "DB",
            "amount": amount,
            "currency": "EUR",
            "shopperResultUrl": payer.shop.result_url,
            **fields,
        },
    )
    assert data["result"]["code"] == "000.200.101", data
    return data


def fill_card(tab: Tab, number: str = "4200 0000 0000 0000") -> None:
    page = tab.page
    page.fill("#cc-name", "Jane Doe")
    page.fill("#cc-number", number)
    page.select_option("#cc-exp-month", "12")
    page.select_option("#cc-exp-year", "2034")
    page.fill("#cc-csc", "123")


def back_at_shop(tab: Tab, shop: Shop, data: dict[str, Any]) -> None:
    tab.page.wait_for_url(shop.result_url)
    expect(tab.page.locator("h1")).to_have_text("Shop result")
    assert shop.results == [
        {"id": data["id"], "resourcePath": f"/pay/v3/checkouts/{data['id']}/payment"}
    ]
    assert tab.page_errors == []


def payment_of(payer: HttpPayer, data: dict[str, Any]) -> dict[str, Any]:
    return payer._call("GET", f"/pay/v3/checkouts/{data['id']}/payment", {})


@pytest.fixture
def card_payer(payer: HttpPayer) -> HttpPayer:
    """The merchant without mandatory 3-D Secure (enrolled, mode OPTIONAL)."""
    return payer


def test_a_card_payment(tab, shop, card_payer):
    data = create(card_payer, **CUSTOMER)
    tab.page.goto(data["redirect"]["url"])
    expect(tab.page.locator("#amount")).to_have_text("49.90 EUR")
    fill_card(tab)
    expect(tab.page.locator("#brand")).to_have_text("VISA")
    expect(tab.page.locator("#number-error")).to_be_hidden()
    tab.page.click("#pay")
    back_at_shop(tab, shop, data)
    answer = payment_of(card_payer, data)
    assert answer["result"]["code"] == "000.000.000" and answer["id"] != data["id"]
    assert answer["card"]["last4Digits"] == "0000"
    assert tab.posts_to("/checkout/") and not tab.posts_to("/threeds/")


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Tokyo", "America/New_York"])
def test_the_expiry_is_shown_in_the_shoppers_time_zone(browser, shop, card_payer, zone):
    """Issue 25: the shopper reads the page's expiry in the browser's own time zone (a context
    with timezone_id); the server's text says UTC, for a browser without JavaScript."""
    tab = Tab(browser, timezone_id=zone)
    try:
        data = create(card_payer, **CUSTOMER)
        url = data["redirect"]["url"]
        expires = Checkout.objects.get(pk=data["id"]).expires_at
        served = tab.page.request.get(url).text()  # the HTML as sent, before any script
        assert f'datetime="{expires.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"' in served
        assert f"{expires.astimezone(UTC):%H:%M} UTC</time>" in served
        assert "/static/checkout/local-time.js" in served

        tab.page.goto(url)
        shown = tab.page.locator("#expires")
        expect(shown).to_have_attribute("data-localised", "true")
        local = expires.astimezone(ZoneInfo(zone))
        expect(shown).to_contain_text(f"{local:%I:%M %p}")  # en-US, as the context's locale
        expect(shown).not_to_contain_text("UTC")
        expect(shown).to_have_attribute("title", f"{expires.astimezone(UTC):%H:%M} UTC")
        assert tab.page_errors == [] and not [m for m in tab.console if m.startswith("error")]
        if zone == "Europe/Berlin":
            fill_card(tab)
            expect(tab.page.locator("#brand")).to_have_text("VISA")
            screenshot(tab, "checkout-page.png")
    finally:
        tab.close()


def test_the_page_refuses_a_number_that_fails_luhn(tab, shop, card_payer):
    data = create(card_payer)
    tab.page.goto(data["redirect"]["url"])
    fill_card(tab, "4200 0000 0000 0001")
    expect(tab.page.locator("#number-error")).to_be_visible()
    tab.page.click("#pay")
    expect(tab.page.locator("#cc-number")).to_be_focused()
    screenshot(tab, "checkout-invalid-number.png")
    assert not tab.posts_to("/checkout/") and not Payment.objects.exists()


def test_a_challenge(tab, shop, card_payer):
    merchant = card_payer.merchant
    merchant.threeds_mode = "MANDATORY"
    merchant.save()
    data = create(card_payer, **CUSTOMER, **BILLING)
    tab.page.goto(data["redirect"]["url"])
    fill_card(tab, CHALLENGE)
    tab.page.click("#pay")
    expect(tab.page.locator("#challenge")).to_be_visible()
    expect(tab.page.locator("dl")).to_contain_text("49.90 EUR")
    tab.page.fill("#otp", "1234")
    tab.page.click("#submit")
    back_at_shop(tab, shop, data)
    answer = payment_of(card_payer, data)
    assert answer["result"]["code"] == "000.000.000"
    assert answer["threeDSecure"]["authenticationStatus"] == "Y"


def test_an_expired_checkout(tab, shop, card_payer):
    data = create(card_payer)
    Checkout.objects.filter(pk=data["id"]).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = tab.page.goto(data["redirect"]["url"])
    assert response is not None and response.status == 410
    expect(tab.page.locator("#message-title")).to_have_text("Payment page expired")
    screenshot(tab, "checkout-expired.png")
    tab.page.click("#back button")
    back_at_shop(tab, shop, data)
    assert payment_of(card_payer, data)["result"]["code"] == "100.396.105"


def test_a_checkout_is_used_once(tab, shop, card_payer):
    data = create(card_payer)
    tab.page.goto(data["redirect"]["url"])
    fill_card(tab)
    tab.page.click("#pay")
    back_at_shop(tab, shop, data)
    response = tab.page.goto(data["redirect"]["url"])
    assert response is not None and response.status == 409
    expect(tab.page.locator("#message-title")).to_have_text("Already paid")
    assert Payment.objects.count() == 1


def test_a_stored_registration(tab, shop, card_payer):
    registered = card_payer._call(
        "POST",
        "/pay/v3/registrations",
        {
            "merchant.id": card_payer.merchant.merchant_id,
            "merchantTransactionId": uuid.uuid4().hex,
            "card.number": "5454545454545454",
            "card.holder": "Jane Doe",
            "card.expiryMonth": "06",
            "card.expiryYear": "2033",
            **{k: v for k, v in CUSTOMER.items() if k != "customer.email"},
        },
    )
    registration = registered["registrationId"]
    data = create(card_payer, **CUSTOMER)
    tab.page.goto(data["redirect"]["url"])
    saved = tab.page.locator(f"input[name=source][value='{registration}']")
    expect(saved).to_be_checked()
    expect(tab.page.locator("#stored-cards")).to_contain_text("MASTER •••• 5454")
    expect(tab.page.locator("#new-card")).to_be_hidden()
    tab.page.fill("#stored-csc", "321")
    screenshot(tab, "checkout-stored-card.png")
    tab.page.click("#pay")
    back_at_shop(tab, shop, data)
    answer = payment_of(card_payer, data)
    assert answer["result"]["code"] == "000.000.000"
    assert answer["registrationId"] == registration and answer["card"]["last4Digits"] == "5454"
