"""The merchant portal in a real browser (Debian's headless Chromium, Playwright): sign in, the
overview and its charts, filter the transactions and export them as CSV, open a payment's chain,
sign out. The same pages with Django's test client are in tests/portal/test_portal.py."""

from typing import Any

import pytest
from django.contrib.auth.models import User

from merchants.models import PortalUser
from payments.models import Payment
from tests.browser.conftest import DESKTOP, Tab, expect, screenshot
from tests.browser.conftest import portal_sign_in as signed_in
from tests.conftest import SpecClient, code
from tests.factories import MerchantFactory, TerminalFactory
from tests.payments.conftest import MASTER, NO_FUNDS, Payer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long portal passphrase 7"


@pytest.fixture
def shop() -> Any:
    merchant = MerchantFactory()
    payer = Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )
    sale = payer.pay("DB", "100.00").json()["id"]
    assert code(payer.ref("RF", sale, "20.00")) == "000.000.000"
    payer.pay("DB", "50.00", number=MASTER)
    payer.pay("DB", "10.00", number=NO_FUNDS)
    payer.pay("DB", "12.00", createRegistration="true")
    TerminalFactory(merchant=merchant)
    authorization = payer.pay("PA", "40.00").json()["id"]
    assert code(payer.ref("CP", authorization, "25.00")) == "000.000.000"
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    return merchant


def test_a_morning_in_the_portal(live_server: Any, desk: Tab, shop: Any) -> None:
    page = desk.page
    page.goto(live_server.url + "/portal/")
    expect(page.locator("h1")).to_have_text("Sign in")
    screenshot(desk, "portal-login.png")
    page.fill("#id_username", "shop-admin")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/portal/")
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator("figure svg")).to_have_count(4)
    expect(page.locator(".figures").first).to_contain_text("187.00 EUR")
    expect(page.locator("figure").nth(3)).to_contain_text("external bank declines")
    expect(page.locator("#figures-meaning")).to_contain_text("pending (3-D Secure) is not counted")
    screenshot(desk, "portal-overview.png", full_page=True)

    page.click("text=Transactions")
    expect(page.locator(".count")).to_have_text("7 payments")
    page.select_option("#id_payment_type", "DB")
    page.click("button:has-text('Filter')")
    expect(page.locator(".count")).to_have_text("4 payments")
    with page.expect_download() as download:
        page.click("text=Export CSV")
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()  # noqa: SIM115
    assert len(lines) == 5 and lines[0].startswith("created (UTC),id,")

    refund = Payment.objects.get(payment_type="RF")
    page.goto(live_server.url + "/portal/transactions/?payment_type=RF")
    page.click("tbody a")
    expect(page.locator("h1")).to_have_text(f"Payment {refund.pk}")
    expect(page.locator("table.chain tbody tr")).to_have_count(2)  # the debit, its refund

    from django.utils import timezone

    from reconciliation.recon.generate import produce
    from reconciliation.settlement import settlement_run

    today = timezone.now().date()
    settlement_run(merchant=shop, day=today)
    produce(shop.entity, today, production=True)
    page.click("text=Settlements")
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody")).to_contain_text("187.00 (4)")
    expect(page.locator("tbody")).to_contain_text("0.00 (0)")  # chargebacks, as the others
    expect(page.locator("tbody .provisional")).to_have_text("provisional")  # before the cut-off
    screenshot(desk, "portal-settlements.png")
    with page.expect_download() as report:
        page.click("tbody a:text-is('transactions')")
    assert len(open(report.value.path(), encoding="utf-8").read().splitlines()) == 8  # noqa: SIM115
    page.click("text=Chargebacks")
    screenshot(desk, "portal-chargebacks.png")
    page.click("text=Daily files")
    expect(page.locator("tbody .provisional")).to_have_text("preview")  # before the cut-off
    with page.expect_download() as daily:
        page.click("tbody a")
    assert open(daily.value.path(), "rb").read().startswith(b"HRECONDT_300001")  # noqa: SIM115
    screenshot(desk, "portal-files.png")

    for label, name in (
        ("Stored cards", "portal-registrations.png"),
        ("Scheme tokens", "portal-tokens.png"),
        ("Terminals", "portal-terminals.png"),
    ):
        page.click(f".bar nav >> text={label}")
        expect(page.locator("h1")).to_have_text(label)
        screenshot(desk, name)

    page.click("text=Developers")
    page.fill("input[name=notification_url]", "https://shop.example.com/notify")
    page.click("form:has(input[name=notification_url]) button")
    expect(page.locator(".messages")).to_contain_text("notification URL is saved")
    screenshot(desk, "portal-developers.png", full_page=True)
    old = shop.entity.plain_token
    page.click("#rotate")
    page.fill("#rotate-password", PASSWORD)  # typed again, as a password change asks
    # The confirmation proposes a day's overlap (issue 35; before, the old one stopped at once).
    expect(page.locator("input[name=overlap][value='86400']")).to_be_checked()
    page.click("#rotate-confirm")
    new = page.locator("#new-token").inner_text()
    expect(page.locator("#api-token button.copy")).to_have_attribute("data-copy", new)
    client = SpecClient(old, shop.entity.entity_id, "MERCHANT")
    inquiry = {"merchant.id": shop.merchant_id}
    assert client.get("/pay/v3/merchant/Inquiry", inquiry).status_code == 200  # for a day
    assert client.get("/pay/v3/merchant/Inquiry", inquiry, token=new).status_code == 200
    page.click("#end-previous")  # stopping it is a deliberate choice
    expect(page.locator(".messages")).to_contain_text("previous token no longer works")
    assert client.get("/pay/v3/merchant/Inquiry", inquiry).status_code == 401

    page.click("text=Password")
    expect(page.locator("h1")).to_have_text("Change password")
    screenshot(desk, "portal-password.png")

    page.click("text=Sign out")
    page.wait_for_url(live_server.url + "/portal/login/")
    page.goto(live_server.url + "/portal/transactions/")
    expect(page.locator("h1")).to_have_text("Sign in")
    assert not desk.page_errors
    outside = [r.url for r in desk.requests if not r.url.startswith(live_server.url)]
    assert outside == []  # nothing loaded from anywhere else


def test_staff_open_the_admin_on_the_dashboard(live_server: Any, desk: Tab, shop: Any) -> None:
    User.objects.create_superuser("staff", password=PASSWORD)
    page = desk.page
    page.goto(live_server.url + "/admin/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator(".staff-dashboard")).to_contain_text("187.00 EUR (4)")
    expect(page.locator(".staff-dashboard")).to_contain_text("800.100.203")
    page.goto(live_server.url + "/admin/payments/payment/")
    expect(page.locator("#result_list tbody tr")).to_have_count(7)
    # the admin's screenshots are taken at 1280 x 800 by tests/browser/test_admin_browser.py
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]  # fits
    assert not desk.page_errors


def test_another_merchants_user_sees_none_of_it(live_server: Any, desk: Tab, shop: Any) -> None:
    other = MerchantFactory()
    user = User.objects.create_user("other-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=other)
    page = desk.page
    page.goto(live_server.url + "/portal/login/")
    page.fill("#id_username", "other-admin")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/portal/")
    page.goto(live_server.url + "/portal/transactions/")
    expect(page.locator(".count")).to_have_text("0 payments")
    for payment in Payment.objects.filter(merchant=shop):
        response = page.goto(f"{live_server.url}/portal/transactions/{payment.pk}/")
        assert response is not None and response.status == 404
    stored = shop.registrations.get()
    answer = page.request.post(f"{live_server.url}/portal/registrations/{stored.pk}/deregister/")
    assert answer.status in (403, 404)  # no CSRF token from a page of its own: refused either way
    assert shop.registrations.get().status == "ACTIVE"


# --- Words, and screens that fit (issue 25) ---------------------------------------------------

# How many lines each element's text takes, and whether its content is wider than it.
LINES = """(cells) => cells.map((cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const tops = [];
  for (const rect of range.getClientRects()) {
    if (rect.width > 0 && !tops.some((top) => Math.abs(top - rect.top) < rect.height / 2)) {
      tops.push(rect.top);
    }
  }
  return tops.length;
})"""
CUT = "(elements) => elements.map((e) => e.scrollWidth > e.clientWidth)"
SCREEN = {"width": 1280, "height": 800}


@pytest.fixture
def day(enrolled_merchant: Any) -> Any:
    from tests.portal.day_of_payments import a_day_of_payments

    made = a_day_of_payments(enrolled_merchant)
    user = User.objects.create_user("day-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=enrolled_merchant)
    return made


@pytest.fixture
def screen(browser: Any) -> Any:
    """A 1280 x 800 tab that may use the clipboard."""
    opened = Tab(browser, viewport=SCREEN)
    opened.context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        yield opened
    finally:
        opened.close()


def portal_sign_in(tab: Tab, base: str, username: str = "day-admin") -> None:
    signed_in(tab, base, username, PASSWORD)


def test_the_overviews_columns_start_level(live_server: Any, screen: Tab, day: Any) -> None:
    portal_sign_in(screen, live_server.url)
    page = screen.page
    expect(page.locator("figure svg")).to_have_count(4)
    for row in (".figures > .card", ".charts > .card"):
        tops = [
            box["y"]
            for box in page.locator(row).evaluate_all(
                "(cards) => cards.map((c) => c.getBoundingClientRect().toJSON())"
            )
        ]
        assert len(tops) in (2, 4), row
        for left, right in zip(tops[::2], tops[1::2], strict=True):
            assert abs(left - right) <= 1, (row, tops)  # the right-hand card is not lower
    screenshot(screen, "portal-overview-1280.png")
    assert not screen.page_errors


def test_the_token_reference_is_whole_and_copied(live_server: Any, screen: Tab, day: Any) -> None:
    portal_sign_in(screen, live_server.url)
    page = screen.page
    page.click(".bar nav >> text=Scheme tokens")
    page.wait_for_load_state("load")  # the click waits for the new page to start, not its CSS
    reference = page.locator("code.ref")
    expect(reference).to_have_text(day.tur)  # all 64 characters
    assert reference.evaluate_all(CUT) == [False]
    assert page.locator("table.list td").first.evaluate_all(CUT) == [False]
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    screenshot(screen, "portal-tokens.png")
    page.click("button.copy")
    expect(page.locator("button.copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == day.tur
    assert not screen.page_errors


def test_transactions_in_words_at_1280_pixels(live_server: Any, screen: Tab, day: Any) -> None:
    portal_sign_in(screen, live_server.url)
    page = screen.page
    page.click(".bar nav >> text=Transactions")
    page.wait_for_load_state("load")  # the click waits for the new page to start, not its CSS
    expect(page.locator("#id_payment_type option:checked")).to_have_text("All")
    expect(page.locator("#id_family option:checked")).to_have_text("All")
    pending = page.locator(f"tr:has(a[href$='/{day.ids['pending']}/'])")
    declined = page.locator(f"tr:has(a[href$='/{day.ids['declined']}/'])")
    expect(pending).to_have_class("pending")
    expect(declined.locator(".result")).to_contain_text("transaction declined (insufficient")
    amber = "rgb(138, 90, 0)"  # portal.css: tr.pending td
    expect(pending.locator("td").first).to_have_css("color", amber)
    expect(declined.locator("td").first).not_to_have_css("color", amber)
    refunded = page.locator(f"tr:has(a[href$='/{day.ids['refunded']}/'])")
    expect(refunded.locator(".mark")).to_have_text("refunded")
    expect(refunded.locator(".coded")).to_have_text("DB debit")
    reversed_pa = page.locator(f"tr:has(a[href$='/{day.ids['reversed']}/'])")
    expect(reversed_pa.locator(".mark")).to_have_text("reversed")
    for column in (1, 3, 4, 6):  # created, amount, card, merchantTransactionId
        cells = page.locator(f"table.payments tbody td:nth-child({column})")
        assert set(cells.evaluate_all(LINES)) == {1}, column
        assert not any(cells.evaluate_all(CUT)), column
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    screenshot(screen, "portal-transactions.png", full_page=True)

    # A refund of a capture is in the chain of the preauthorization it captured.
    capture = Payment.objects.get(referenced_id=day.ids["captured"], payment_type="CP")
    merchant = day.merchant
    payer = Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )
    assert code(payer.ref("RF", capture.pk, "15.00")) == "000.000.000"
    page.goto(f"{live_server.url}/portal/transactions/{day.ids['captured']}/")
    chain = page.locator("table.chain tbody tr")
    expect(chain).to_have_count(3)  # the preauthorization, its capture, the capture's refund
    expect(chain.nth(2)).to_contain_text("refund")
    screenshot(screen, "portal-transaction.png")
    page.click(".bar nav >> text=Daily files")
    page.click("text=The file's layout")
    expect(page.locator("h1")).to_have_text("The daily file's layout")
    expect(page.locator("table.layout")).to_have_count(3)
    assert not screen.page_errors


def test_a_new_merchants_overview_says_so_once(
    live_server: Any, screen: Tab, enrolled_merchant: Any
) -> None:
    """Issue 35: one empty state, not four empty charts and three ways of saying nothing."""
    user = User.objects.create_user("new-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=enrolled_merchant)
    portal_sign_in(screen, live_server.url, "new-admin")
    page = screen.page
    expect(page.locator("#no-payments")).to_contain_text("No payments in the last 30 days")
    expect(page.locator("p.empty")).to_have_text(
        ["No payments today yet.", "No payments this month yet."]
    )
    expect(page.locator("figure svg")).to_have_count(0)
    screenshot(screen, "portal-overview-empty.png")
    assert not screen.page_errors
