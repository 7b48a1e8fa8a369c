"""Issuer staff in the admin: products with their applicability table, customers, accounts with
balances and journal, cards masked with status actions through the services, limits."""

import pytest
from django.urls import reverse

from issuer import demo
from issuer.cards import services
from issuer.cards.models import Card, CardLimit, CardProduct, ProductOperation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quick_pin_hash")]
CARDS = reverse("admin:issuer_card_changelist")


@pytest.fixture
def cards(demo_requestor_cards):  # type: ignore[no-untyped-def]
    return demo_requestor_cards


def test_every_issuer_page_opens_and_shows_no_card_number(admin_client, cards):
    number = services.card_number(card=cards.prepaid)
    pages = [
        reverse(f"admin:issuer_{name}_changelist")
        for name in (
            "cardproduct", "customer", "cardaccount", "card", "ledgeraccount", "journal",
            "cardtransaction", "tokenevent",
        )
    ] + [
        reverse("admin:issuer_card_change", args=[cards.prepaid.pk]),
        reverse("admin:issuer_cardproduct_change", args=[cards.prepaid.product_id]),
        reverse("admin:issuer_customer_change", args=[cards.prepaid.customer_id]),
        reverse("admin:issuer_cardaccount_change", args=[cards.prepaid.account_id]),
    ]  # fmt: skip
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
        html = response.content.decode()
        assert number not in html and cards.prepaid.pan_fingerprint not in html, page
    card_page = admin_client.get(pages[8]).content.decode()
    assert cards.prepaid.masked in card_page and "pin_pbkdf2" not in card_page
    account_page = admin_client.get(pages[11]).content.decode()
    assert "500.00 EUR" in account_page and "<td>Load</td>" in account_page


def test_staff_suspend_and_resume_a_card_through_the_services(admin_client, admin_user, cards):
    form = {"action": "suspend", "_selected_action": [cards.prepaid.pk]}
    assert "Suspend cards" in admin_client.post(CARDS, form).content.decode()
    admin_client.post(CARDS, {**form, "apply": "1", "reason": "SUSPECTED_FRAUD"})
    card = Card.objects.get(pk=cards.prepaid.pk)
    last = card.history.last()
    assert (card.status, last.reason, last.changed_by) == (
        "SUSPENDED",
        "SUSPECTED_FRAUD",
        f"staff:{admin_user.username}",
    )
    admin_client.post(
        CARDS, {"action": "resume", "_selected_action": [card.pk], "apply": "1", "reason": "FOUND"}
    )
    assert Card.objects.get(pk=card.pk).status == "ACTIVE"


def test_the_admin_names_a_refused_change(admin_client, cards):
    services.card_cancel(card=cards.debit, reason="CARDHOLDER_REQUEST", actor="test")
    response = admin_client.post(
        CARDS,
        {
            "action": "suspend",
            "_selected_action": [cards.debit.pk],
            "apply": "1",
            "reason": "SUSPECTED_FRAUD",
        },
        follow=True,
    )
    assert "700.500.110" in response.content.decode()
    assert Card.objects.get(pk=cards.debit.pk).status == "CANCELLED"


def test_the_applicability_table_refuses_switching_m_or_na(admin_client, cards):
    product = cards.prepaid.product
    url = reverse("admin:issuer_cardproduct_change", args=[product.pk])
    rows = list(ProductOperation.objects.filter(product=product).order_by("operation"))
    data = {
        "code": product.code, "name": product.name, "brand": product.brand,
        "currency": product.currency, "card_years": product.card_years,
        "max_balance": product.max_balance, "active": "on",
        "bin_ranges-TOTAL_FORMS": "1", "bin_ranges-INITIAL_FORMS": "1",
        "bin_ranges-0-id": product.bin_ranges.get().pk, "bin_ranges-0-product": product.pk,
        "bin_ranges-0-bin": demo.PREPAID_BIN, "bin_ranges-0-pan_length": "16",
        "bin_ranges-0-active": "on",
        "operations-TOTAL_FORMS": str(len(rows)), "operations-INITIAL_FORMS": str(len(rows)),
    }  # fmt: skip
    for i, row in enumerate(rows):
        data[f"operations-{i}-id"] = row.pk
        data[f"operations-{i}-product"] = product.pk
        switch_on = row.enabled or row.letter == "NA"
        if row.operation == "transaction/Withdraw":
            switch_on = False  # a C operation switched off: allowed
        if switch_on:
            data[f"operations-{i}-enabled"] = "on"

    refused = admin_client.post(url, data)
    assert refused.status_code == 200 and "an NA operation never runs" in refused.content.decode()

    for i, row in enumerate(rows):
        if row.letter == "NA":
            data.pop(f"operations-{i}-enabled", None)
    assert admin_client.post(url, data).status_code == 302
    assert not ProductOperation.objects.get(
        product=product, operation="transaction/Withdraw"
    ).enabled


def test_a_new_product_gets_the_catalogues_letters(admin_client):
    response = admin_client.post(
        reverse("admin:issuer_cardproduct_add"),
        {
            "code": "GIFT",
            "name": "Gift card",
            "kind": "prepaid",
            "brand": "VISA",
            "currency": "EUR",
            "card_years": "2",
            "active": "on",
            "bin_ranges-TOTAL_FORMS": "1",
            "bin_ranges-INITIAL_FORMS": "0",
            "bin_ranges-0-bin": "45960000",
            "bin_ranges-0-pan_length": "16",
            "bin_ranges-0-active": "on",
            "operations-TOTAL_FORMS": "0",
            "operations-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    product = CardProduct.objects.get(code="GIFT")
    letters = dict(product.operations.values_list("operation", "letter"))
    assert letters["transaction/Reversal"] == "M" and letters["card/BlacklistUpdate"] == "NA"
    assert not product.operations.get(operation="transaction/Purchase").enabled  # C: off


def test_staff_set_limits_on_the_card_page(admin_client, cards):
    url = reverse("admin:issuer_card_change", args=[cards.prepaid.pk])
    response = admin_client.post(url, {
        "limits-TOTAL_FORMS": "1", "limits-INITIAL_FORMS": "0",
        "limits-0-region": "DOMESTIC", "limits-0-channel": "POS",
        "limits-0-per_transaction": "25.00", "limits-0-daily_count": "3",
        "history-TOTAL_FORMS": "0", "history-INITIAL_FORMS": "0",
    })  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:3000]
    limit = CardLimit.objects.get(card=cards.prepaid)
    assert (str(limit.per_transaction), limit.daily_count) == ("25.000", 3)
