"""The bank staff's admin at 1280 x 800 in a real browser (Debian's headless Chromium,
Playwright): the payments list, the settlement runs and the index as staff read them. What is
asserted is what a person sees: no cell of the columns named breaks across lines or is cut, no
list scrolls sideways, amounts have their currency's decimals, the filters are a bar of closed
dropdowns, the technical apps come after the bank's under "Technical"."""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from payments.models import Payment
from tests.browser.conftest import Tab, expect, screenshot
from tests.portal.day_of_payments import Day, a_day_of_payments, settle_today

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase 9"
SCREEN = {"width": 1280, "height": 800}

# How many lines each cell's text takes (rectangles of its text at distinct heights).
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
# Whether each element's content is wider than the element (cut, or scrolled sideways).
OVERFLOWS = "(elements) => elements.map((e) => e.scrollWidth > e.clientWidth)"


@pytest.fixture
def staff(browser: Any) -> Iterator[Tab]:
    """A 1280 x 800 tab, and a superuser to sign in with."""
    User.objects.create_superuser("staff", password=PASSWORD)
    opened = Tab(browser, viewport=SCREEN)
    try:
        yield opened
    finally:
        opened.close()


def sign_in(tab: Tab, base: str) -> None:
    page = tab.page
    page.goto(base + "/admin/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_be_visible()


@pytest.fixture
def day(enrolled_merchant: Any) -> Day:
    made = a_day_of_payments(enrolled_merchant, settle=False)
    settle_today(enrolled_merchant, fees=True)
    return made


def test_the_payments_list_fits_1280_pixels(live_server: Any, staff: Tab, day: Day) -> None:
    sign_in(staff, live_server.url)
    page = staff.page
    page.goto(live_server.url + "/admin/payments/payment/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(Payment.objects.count())
    screenshot(staff, "admin-payments.png", full_page=True)

    for column in (
        "short_id",
        "created_display",
        "amount_display",
        "card_display",
        "merchant_display",
        "merchant_transaction_id",
    ):
        cells = page.locator(f"#result_list tbody .field-{column}")
        assert cells.evaluate_all(LINES) == [1] * rows.count(), column  # none wraps
        assert not any(cells.evaluate_all(OVERFLOWS)), column  # none is cut
    types = page.locator("#result_list td.field-type_code .coded")
    assert types.evaluate_all(LINES) == [1] * rows.count()  # "DB debit" on one line
    shown = page.locator("#result_list td.field-merchant_transaction_id").all_inner_texts()
    assert sorted(shown) == sorted(p.merchant_transaction_id for p in Payment.objects.all())
    assert page.locator("#changelist .results").evaluate_all(OVERFLOWS) == [False]
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]

    declined = page.locator(f"#result_list tr:has(a[href*='{day.ids['declined']}'])")
    expect(declined.locator(".result")).to_contain_text(
        "800.100.203 transaction declined (insufficient funds)"
    )
    pending = page.locator(f"#result_list tr:has(a[href*='{day.ids['pending']}'])")
    colour = pending.locator(".result .code").evaluate("(e) => getComputedStyle(e).color")
    red = declined.locator(".result .code").evaluate("(e) => getComputedStyle(e).color")
    assert colour != red  # pending is not coloured as a decline
    refunded = page.locator(f"#result_list tr:has(a[href*='{day.ids['refunded']}'])")
    expect(refunded.locator(".mark")).to_have_text("refunded")
    yen = page.locator(f"#result_list tr:has(a[href*='{day.ids['yen']}'])")
    expect(yen.locator("td.field-amount_display")).to_have_text("1500 JPY")
    assert not staff.page_errors


def test_the_filters_are_dropdowns_above_the_list(live_server: Any, staff: Tab, day: Day) -> None:
    sign_in(staff, live_server.url)
    page = staff.page
    page.goto(live_server.url + "/admin/payments/payment/")
    bar = page.locator("#changelist-filter").bounding_box()
    table = page.locator("#result_list").bounding_box()
    assert bar is not None and table is not None and bar["y"] + bar["height"] <= table["y"]
    assert table["width"] >= 1150  # the list has the page's width, no sidebar beside it
    expect(page.locator("#changelist-filter details[open]")).to_have_count(0)
    page.click("summary:has-text('By payment type')")
    expect(page.locator("#changelist-filter details[open]")).to_have_count(1)
    page.click("#changelist-filter details[open] a:text-is('DB debit (authorization and capture)')")
    expect(page.locator("#result_list tbody tr")).to_have_count(
        Payment.objects.filter(payment_type="DB").count()
    )
    expect(page.locator("#changelist-filter details[open]")).to_have_count(0)
    expect(page.locator("summary:has-text('By payment type')")).to_contain_text(
        "DB debit (authorization and capture)"
    )
    assert not staff.page_errors


def test_settlement_runs_show_every_column_with_two_decimals(
    live_server: Any, staff: Tab, day: Day
) -> None:
    sign_in(staff, live_server.url)
    page = staff.page
    page.goto(live_server.url + "/admin/reconciliation/settlementrun/")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    screenshot(staff, "admin-settlements.png")
    headers = page.locator("#result_list thead th")
    assert not any(headers.evaluate_all(OVERFLOWS))  # no "FEES AMOUN"
    assert page.locator("#changelist .results").evaluate_all(OVERFLOWS) == [False]
    figures = page.locator("#result_list tbody td:has(> .num)").all_inner_texts()
    assert len(figures) == 7  # sales, refunds, credits, chargebacks, fees, reserve, net
    for figure in figures:  # EUR: two decimals, never the run's three
        assert re.fullmatch(r"−?\d+\.\d{2}( [+/] \d+\.\d{2}| \+\d+\.\d{2})?( \(\d+\))?", figure), (
            figures
        )
    cells = page.locator("#result_list tbody td")
    assert cells.evaluate_all(LINES) == [1] * cells.count()
    assert not staff.page_errors


def test_the_index_puts_technical_apps_last(live_server: Any, staff: Tab, day: Day) -> None:
    sign_in(staff, live_server.url)
    page = staff.page
    page.goto(live_server.url + "/admin/")
    expect(page.locator(".staff-dashboard")).to_be_visible()
    technical = page.locator("h2.technical")
    expect(technical).to_have_text("Technical")
    below = technical.bounding_box()
    assert below is not None
    for app in ("payments", "merchants", "reconciliation", "issuer"):
        box = page.locator(f"#content-main .app-{app}").bounding_box()
        assert box is not None and box["y"] < below["y"], app
    for app in ("axes", "oauth2_provider", "django_celery_beat", "auth"):
        box = page.locator(f"#content-main .app-{app}").bounding_box()
        assert box is not None and box["y"] > below["y"], app
    expect(page.locator(".staff-dashboard")).to_contain_text("1500 JPY")
    screenshot(staff, "admin-dashboard.png", full_page=True)
    assert not staff.page_errors


def test_the_reversal_advices_owed_to_the_network(
    live_server: Any, staff: Tab, network: Any, settings: Any, merchant_api: Any, merchant: Any
) -> None:
    """Admin › Payments › Reversal advices: one the network acknowledged, one it has not (the
    host silent), each with its reversal, its original, its attempts and its last error."""
    from datetime import timedelta

    from config.celery import app
    from payments.connectors import simulator
    from payments.models import ReversalAdvice
    from payments.services import payment_resolve_in_flight
    from tests.payments.conftest import Payer

    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    payer = Payer(merchant_api, merchant)
    previous, app.conf.task_always_eager = app.conf.task_always_eager, True  # sent on commit
    try:
        originals = [payer.pay("DB", number=simulator.LOST_CARD).json()["id"]]
        payment_resolve_in_flight(older_than=timedelta(0))  # reversed, its advice acknowledged
        network.host.silent = True
        originals.append(payer.pay("DB", number=simulator.LOST_CARD).json()["id"])
        payment_resolve_in_flight(older_than=timedelta(0))  # reversed, its advice owed
    finally:
        app.conf.task_always_eager = previous
    states = dict(ReversalAdvice.objects.values_list("reversal__referenced_id", "state"))
    assert states == {originals[0]: "ACKNOWLEDGED", originals[1]: "OWED"}

    sign_in(staff, live_server.url)
    page = staff.page
    page.goto(live_server.url + "/admin/payments/reversaladvice/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    screenshot(staff, "admin-reversal-advices.png")
    owed = page.locator(f"#result_list tr:has(a[href*='{originals[1]}'])")
    expect(owed.locator("td.field-state")).to_have_text("Owed")
    expect(owed.locator("td.field-last_error")).to_contain_text("no answer from the network")
    acknowledged = page.locator(f"#result_list tr:has(a[href*='{originals[0]}'])")
    expect(acknowledged.locator("td.field-response_code")).to_have_text("00")
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    assert page.locator("#changelist .results").evaluate_all(OVERFLOWS) == [False]  # none cut
    owed.locator(f"a[href*='{originals[1]}']").click()  # the original payment's page
    expect(page.locator("body")).to_contain_text("900.100.301")
    assert not staff.page_errors
