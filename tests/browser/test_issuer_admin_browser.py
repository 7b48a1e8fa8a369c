"""Issuer staff in the admin, in a real browser: a card (masked) with its limits and history,
suspended through the action and its reason form; the product's applicability table; an
account with its balances and journal. Screenshots for docs/issuer.md."""

from typing import Any

import pytest
from django.contrib.auth.models import User

from issuer import demo
from issuer.cards import services
from issuer.cards.models import Card
from tests.browser.conftest import Tab, expect, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase 9"


def test_issuer_staff_suspend_a_card_and_read_the_product_and_account(
    live_server: Any, desk: Tab, settings: Any
) -> None:
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000
    cards = demo.demo_cards("oob-client")
    services.limits_set(
        card=cards.prepaid,
        rows=[{"region": "DOMESTIC", "channel": "ECOMMERCE", "per_transaction": "250.00",
               "daily_count": 20}],
    )  # fmt: skip
    User.objects.create_superuser("staff", password=PASSWORD)
    page = desk.page
    page.goto(live_server.url + "/admin/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")

    page.goto(live_server.url + "/admin/issuer/card/")
    expect(page.locator("#result_list")).to_contain_text(cards.prepaid.masked)
    page.check(f"input[name=_selected_action][value='{cards.prepaid.pk}']")
    page.select_option("select[name=action]", "suspend")
    page.click("button[name=index]")
    page.select_option("select[name=reason]", "SUSPECTED_FRAUD")
    page.click("input[type=submit], button[type=submit] >> nth=-1")
    expect(page.locator(".messagelist")).to_contain_text("Suspended (temporarily): 1 card(s)")
    assert Card.objects.get(pk=cards.prepaid.pk).status == "SUSPENDED"
    page.goto(live_server.url + f"/admin/issuer/card/{cards.prepaid.pk}/change/")
    expect(page.locator("#content h2").first).to_have_text(
        f"card {cards.prepaid.masked}, Suspended (temporarily)"
    )
    expect(page.locator(".field-status_reason_shown")).to_contain_text(
        "Fraud is suspected (SUSPECTED_FRAUD)"
    )
    assert services.card_number(card=cards.prepaid) not in page.content()
    screenshot(desk, "admin-issuer-card.png")
    page.locator("#limits-group").scroll_into_view_if_needed()
    expect(page.locator("#history-group")).to_contain_text("Active → Suspended (temporarily)")
    expect(page.locator("#id_limits-0-per_transaction")).to_have_value("250.00")
    expect(page.locator("#limits-group")).to_contain_text("Per transaction (EUR)")
    # issuer/admin.css: the Region select has room for "Domestic" beside its arrow.
    region = page.locator("#id_limits-0-region")
    assert region.evaluate("e => getComputedStyle(e).minWidth") not in ("0px", "auto")
    screenshot(desk, "admin-issuer-card-limits.png")

    page.goto(live_server.url + f"/admin/issuer/cardproduct/{cards.prepaid.product_id}/change/")
    expect(page.locator("body")).to_contain_text("transaction/Purchase")
    page.locator("#operations-group").scroll_into_view_if_needed()
    screenshot(desk, "admin-issuer-product.png")

    page.goto(live_server.url + f"/admin/issuer/cardaccount/{cards.prepaid.account_id}/change/")
    expect(page.locator("body")).to_contain_text("500.00 EUR")
    expect(page.locator(".field-iban label")).to_have_text("IBAN:")
    screenshot(desk, "admin-issuer-account.png")
    assert not desk.page_errors
    outside = [r.url for r in desk.requests if not r.url.startswith(live_server.url)]
    assert outside == []
