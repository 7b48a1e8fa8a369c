"""Acting on a payment in a real browser (issue 35): a staff member refunds above the approval
amount from the payment's page, a second one approves it; a merchant's operator refunds from the
portal, and a double click makes one refund."""

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User

from merchants.models import PortalUser
from payments.backoffice.models import PaymentAction
from payments.models import Payment
from tests.browser.conftest import Tab, expect, portal_sign_in, screenshot
from tests.conftest import SpecClient
from tests.payments.conftest import Payer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase 9"
SCREEN = {"width": 1280, "height": 800}
STAFF_PERMISSIONS = (
    "view_payment",
    "refund_payment",
    "reverse_payment",
    "capture_payment",
    "view_paymentaction",
)


@pytest.fixture(autouse=True)
def _threshold(settings: Any) -> None:
    settings.BACKOFFICE_APPROVAL_AMOUNT = {"EUR": Decimal("100"), "*": Decimal("0")}


@pytest.fixture
def screen(browser: Any) -> Iterator[Tab]:
    opened = Tab(browser, viewport=SCREEN)
    try:
        yield opened
    finally:
        opened.close()


def staff_member(name: str, *codenames: str) -> None:
    user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))


def admin_sign_in(tab: Tab, base: str, name: str) -> None:
    page = tab.page
    tab.context.clear_cookies()  # signed out
    page.goto(base + "/admin/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_be_visible()


def a_sale(merchant: Any, amount: str = "150.00") -> str:
    payer = Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )
    answer = payer.pay("DB", amount=amount).json()
    assert answer["result"]["code"] == "000.000.000"
    return str(answer["id"])


def test_a_refund_above_the_approval_amount_takes_two_staff_members(
    live_server: Any, screen: Tab, enrolled_merchant: Any
) -> None:
    sale = a_sale(enrolled_merchant)
    staff_member("alice", *STAFF_PERMISSIONS)
    staff_member("bob", "view_payment", "view_paymentaction", "approve_paymentaction")
    page = screen.page
    admin_sign_in(screen, live_server.url, "alice")
    page.goto(f"{live_server.url}/admin/payments/payment/{sale}/change/")
    expect(page.locator(".object-tools a.backoffice-action")).to_have_text(
        ["Reverse (void)", "Refund"]
    )
    page.click(".object-tools >> text=Refund")
    expect(page.locator(".four-eyes")).to_contain_text("Above 100 EUR")
    page.fill("#id_amount", "120.00")
    page.fill("#id_reason", "goods returned, ticket 4411")
    screenshot(screen, "admin-payment-refund.png")
    page.click("input[type=submit]")
    expect(page.locator(".messagelist .warning")).to_contain_text("second staff member")
    expect(page.locator(".awaiting-approval")).to_contain_text("goods returned, ticket 4411")
    screenshot(screen, "admin-payment-awaiting-approval.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]

    admin_sign_in(screen, live_server.url, "bob")
    page.goto(f"{live_server.url}/admin/payments/payment/{sale}/change/")
    expect(page.locator(".object-tools a.backoffice-action")).to_have_count(0)  # no permission
    page.click(".awaiting-approval >> text=Approve or reject")
    expect(page.locator("input[name=approve]")).to_be_visible()
    screenshot(screen, "admin-payment-decide.png")
    page.click("input[name=approve]")
    expect(page.locator(".messagelist .success")).to_contain_text("approved and sent: 000.000.000")
    expect(page.locator(".awaiting-approval")).to_have_count(0)
    refund = Payment.objects.get(payment_type="RF")
    assert refund.result_code == "000.000.000"
    expect(page.locator("table.payment-chain")).to_contain_text(refund.pk)
    action = PaymentAction.objects.get()
    assert (action.requested_by, action.decided_by) == ("staff:alice", "staff:bob")
    assert not screen.page_errors


def test_an_operator_refunds_from_the_portal_once_however_often_clicked(
    live_server: Any, screen: Tab, enrolled_merchant: Any
) -> None:
    sale = a_sale(enrolled_merchant, "80.00")
    user = User.objects.create_user("shop-operator", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=enrolled_merchant, role=PortalUser.Role.OPERATOR)
    page = screen.page
    portal_sign_in(screen, live_server.url, "shop-operator", PASSWORD)
    expect(page.locator(".bar nav >> text=Developers")).to_have_count(0)  # administrators'
    page.goto(f"{live_server.url}/portal/transactions/{sale}/")
    form = page.locator("#act-RF")
    form.locator("input[name='RF-amount']").fill("25.00")
    form.locator("input[name='RF-reason']").fill("one item returned")
    screenshot(screen, "portal-transaction-act.png", full_page=True)
    form.locator("button").dblclick()
    page.wait_for_load_state("load")
    expect(page.locator("ul.messages li").first).to_contain_text("000.000.000")
    assert Payment.objects.filter(payment_type="RF").count() == 1
    expect(page.locator("table.chain tbody tr")).to_have_count(2)
    expect(page.locator("table.actions")).to_contain_text("one item returned")
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    assert not screen.page_errors


def test_staff_change_a_settlement_account_and_the_history_keeps_it(
    live_server: Any, screen: Tab, enrolled_merchant: Any
) -> None:
    staff_member(
        "carol",
        "view_merchant",
        "change_merchant",
        "change_settlement_account",
        "view_merchantdatachange",
    )
    page = screen.page
    admin_sign_in(screen, live_server.url, "carol")
    page.goto(f"{live_server.url}/admin/merchants/merchant/{enrolled_merchant.pk}/change/")
    page.fill("#id_bank_account_holder", "Demo Shop GmbH")
    page.fill("#id_bank_account_number", "DE89370400440532013001")  # a check digit wrong
    page.fill("#id_bank_account_bic", "COBADEFFXXX")
    page.fill("#id_bank_account_country", "DE")
    page.fill("#id_settlement_currency", "EUR")
    page.click("input[name=_continue]")
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator(".field-bank_account_number .errorlist")).to_contain_text(
        "not a valid IBAN"
    )
    page.fill("#id_bank_account_number", "DE89370400440532013000")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist .success")).to_be_visible()
    history = page.locator("text=DE…3000")
    expect(history.first).to_be_visible()
    page.locator("#id_bank_account_bic").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 330)")  # the account and, below, its history
    screenshot(screen, "admin-merchant-settlement-account.png")
    assert not screen.page_errors


def test_a_merchant_administrator_adds_a_webhook_and_copies_its_secret(
    live_server: Any, browser: Any, enrolled_merchant: Any, settings: Any
) -> None:
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=enrolled_merchant)
    tab = Tab(browser, viewport=SCREEN)
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page = tab.page
        portal_sign_in(tab, live_server.url, "shop-admin", PASSWORD)
        page.click(".bar nav >> text=Developers")
        page.wait_for_load_state("load")
        form = page.locator("#webhook-add")
        form.locator("input[name=url]").fill("http://127.0.0.1:9/webhooks")
        form.locator("input[value=CHARGEBACK]").uncheck()
        form.locator("button[type=submit]").click()
        page.wait_for_load_state("load")
        secret = page.locator("#new-secret")
        expect(secret).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
        page.locator("#webhooks button.copy").click()
        expect(page.locator("#webhooks button.copy")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == secret.text_content()
        page.locator("#webhooks button.webhook-test").click()
        page.wait_for_load_state("load")
        expect(page.locator("#webhook-deliveries tbody tr").first).to_contain_text("TEST created")
        page.locator("#webhooks").scroll_into_view_if_needed()
        screenshot(tab, "portal-webhooks.png")
        assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
        assert not tab.page_errors
    finally:
        tab.close()


def test_staff_find_a_payment_by_its_rrn_and_narrow_by_amount(
    live_server: Any, screen: Tab, enrolled_merchant: Any
) -> None:
    """Issue 35: the search box takes a dispute's identifier; "By amount" is a range typed in."""
    small = a_sale(enrolled_merchant, "12.00")
    large = a_sale(enrolled_merchant, "480.00")
    rrn = Payment.objects.get(pk=large).retrieval_ref_no
    staff_member("dora", "view_payment")
    page = screen.page
    admin_sign_in(screen, live_server.url, "dora")
    page.goto(live_server.url + "/admin/payments/payment/")
    page.fill("#searchbar", rrn)
    page.press("#searchbar", "Enter")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(large[:10])
    page.goto(live_server.url + "/admin/payments/payment/")
    page.click("details[data-filter-title='amount'] summary")
    page.fill("input[name=amount__gte]", "100")
    screenshot(screen, "admin-payments-search.png")
    page.click("details[data-filter-title='amount'] input[type=submit]")
    expect(rows).to_have_count(1)
    expect(rows.first).not_to_contain_text(small[:10])
    expect(page.locator("details[data-filter-title='amount'] summary")).to_contain_text("100 to …")
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    assert not screen.page_errors
