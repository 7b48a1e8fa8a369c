"""Bank staff onboard a merchant's portal user on the merchant's admin page, and the user signs
in with the one-time password (issue 23); a merchant's administrator rotates the API token after
a confirmation, with an overlap (issue 25). Debian's headless Chromium, Playwright."""

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from merchants.models import Entity, PortalUser
from tests.browser.conftest import Tab, expect, portal_sign_in, screenshot
from tests.conftest import SpecClient
from tests.factories import MerchantFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long portal passphrase 7"


def admin_sign_in(page: Any, base: str) -> None:
    User.objects.create_superuser("staff", password=PASSWORD)
    page.goto(base + "/admin/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(base + "/admin/")


def test_staff_onboard_a_portal_user_on_the_merchant_page(
    live_server: Any, desk: Tab, browser: Any
) -> None:
    merchant = MerchantFactory()
    page = desk.page
    admin_sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/admin/merchants/merchant/{merchant.pk}/change/")
    group = page.locator("#portal_users-group")
    expect(group).to_contain_text("Portal users")
    group.locator("input[name='portal_users-0-email']").fill("ann@shop.example")
    page.click("input[name=_continue]")  # Save and continue editing

    message = page.locator(".messagelist li", has_text="one-time password")
    expect(message).to_contain_text(
        f"portal user ann@shop.example of merchant {merchant.merchant_id}"
    )
    password = re.search(r": (\S+) — copy it now", message.inner_text()).group(1)
    portal_user = PortalUser.objects.get()
    assert portal_user.merchant == merchant and portal_user.user.username == "ann@shop.example"
    expect(group.locator("input[value='ann@shop.example']")).to_be_disabled()  # no editing
    expect(group).to_contain_text("one-time (not yet changed)")
    page.evaluate("document.getElementById('portal_users-group').scrollIntoView()")
    screenshot(desk, "admin-portal-users.png")

    elsewhere = Tab(browser)  # the merchant's administrator, in a browser of its own
    try:
        portal = elsewhere.page
        portal.goto(live_server.url + "/portal/login/")
        portal.fill("#id_username", "ann@shop.example")
        portal.fill("#id_password", password)
        portal.click("button[type=submit]")
        portal.wait_for_url(live_server.url + "/portal/password/")  # one-time: this page first
        expect(portal.locator(".messages")).to_contain_text("one-time password")
        portal.fill("#id_old_password", password)
        portal.fill("#id_new_password1", PASSWORD)
        portal.fill("#id_new_password2", PASSWORD)
        portal.click("main button[type=submit]")
        portal.wait_for_url(live_server.url + "/portal/")
        expect(portal.locator("h1")).to_have_text("Overview")
        assert not elsewhere.page_errors
    finally:
        elsewhere.close()
    assert not desk.page_errors


@pytest.fixture
def portal_admin(live_server: Any, desk: Tab) -> Any:
    merchant = MerchantFactory()
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    portal_sign_in(desk, live_server.url, "shop-admin", PASSWORD)
    return merchant


def works(merchant: Any, token: str) -> bool:
    client = SpecClient(token, merchant.entity.entity_id, "MERCHANT")
    answer = client.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    return answer.status_code == 200


def test_rotating_the_token_asks_first_and_keeps_the_old_one_for_an_hour(
    live_server: Any, desk: Tab, portal_admin: Any
) -> None:
    merchant, page = portal_admin, desk.page
    old = merchant.entity.plain_token
    page.click(".bar nav >> text=Developers")
    page.click("#rotate")

    dialog = page.locator("#confirm-rotation")
    expect(dialog).to_contain_text("Rotate the API token?")
    expect(page.locator("#new-token")).to_have_count(0)
    assert works(merchant, old)  # nothing happened yet
    expect(page.locator("#set-token")).to_have_count(0)  # the question is the only way on
    dialog.locator("label", has_text="1 hour").click()
    page.fill("#rotate-password", PASSWORD)
    screenshot(desk, "portal-rotate-token.png", full_page=True)
    page.click("#rotate-cancel")
    expect(page.locator("#confirm-rotation")).to_have_count(0)
    expect(page.locator("#set-token")).to_have_count(1)
    assert Entity.objects.get(pk=merchant.entity.pk).token_hash == merchant.entity.token_hash

    page.click("#rotate")
    page.locator("#confirm-rotation label", has_text="1 hour").click()
    page.fill("#rotate-password", PASSWORD)
    page.click("#rotate-confirm")
    new = page.locator("#new-token").inner_text()
    entity = Entity.objects.get(pk=merchant.entity.pk)
    until = f"{entity.previous_token_ends_at:%Y-%m-%d %H:%M} UTC"
    expect(page.locator("#previous-token")).to_contain_text(f"…{old[-4:]}")
    expect(page.locator("#previous-token")).to_contain_text(until)
    expect(page.locator("#token-history")).to_contain_text("portal:shop-admin")
    screenshot(desk, "portal-rotated-token.png")
    assert works(merchant, old) and works(merchant, new)

    page.click("#end-previous")
    expect(page.locator(".messages")).to_contain_text("The previous token no longer works")
    assert not works(merchant, old) and works(merchant, new)
    assert not desk.page_errors
