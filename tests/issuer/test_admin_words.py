"""Issuer staff read words, not codes: a card's status and its history by their labels, a
status reason with its code beside it, journal kinds and transaction types by their names,
IBAN spelt as such, the account journal's headers capitalised like the admin's own."""

import re

import pytest
from django.urls import reverse

from issuer.cards.models import CardTransaction, Journal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quick_pin_hash")]
CARDS = reverse("admin:issuer_card_changelist")


@pytest.fixture
def cards(demo_requestor_cards):  # type: ignore[no-untyped-def]
    return demo_requestor_cards


def cells(html: str, field: str) -> list[str]:
    """The texts of a read-only inline column (`<td class="field-<field>"><p>...</p>`)."""
    return re.findall(rf'<td class="field-{field}">\s*<p>(.*?)</p>', html, flags=re.S)


def test_the_card_page_reads_statuses_and_reasons_in_words(admin_client, cards):
    admin_client.post(
        CARDS,
        {
            "action": "suspend",
            "_selected_action": [cards.prepaid.pk],
            "apply": "1",
            "reason": "SUSPECTED_FRAUD",
        },
    )
    html = admin_client.get(reverse("admin:issuer_card_change", args=[cards.prepaid.pk]))
    html = html.content.decode()
    masked = cards.prepaid.masked

    assert f"<title>card {masked}, Suspended (temporarily) |" in html
    assert "(SUSPENDED)" not in html and "(ACTIVE)" not in html
    assert re.search(
        r"Status reason:</label>\s*<div class=\"readonly\">Fraud is suspected \(SUSPECTED_FRAUD\)",
        html,
    )
    assert cells(html, "from_status") == ["-", "Inactive: issued, not yet activated", "Active"]
    assert cells(html, "to_status") == [
        "Inactive: issued, not yet activated",
        "Active",
        "Suspended (temporarily)",
    ]
    assert cells(html, "reason_shown") == [
        "The card was issued (ISSUED)",
        "First activation (ACTIVATED)",
        "Fraud is suspected (SUSPECTED_FRAUD)",
    ]
    titles = ["New → Inactive: issued, not yet activated", "Active → Suspended (temporarily)"]
    assert all(title in html for title in titles)
    assert "-&gt;" not in html


def test_the_admin_writes_times_as_iso_8601_with_their_zone(admin_client, cards):
    """Not Django's English "Nov. 27, 2026, 3:21 a.m." (config/formats/en)."""
    card = cards.prepaid
    html = admin_client.get(reverse("admin:issuer_card_change", args=[card.pk])).content.decode()
    assert f"{card.created_at:%Y-%m-%d %H:%M:%S} UTC" in html
    assert "a.m." not in html and "p.m." not in html


def test_the_status_actions_and_their_message_speak_words(admin_client, cards):
    page = admin_client.get(CARDS).content.decode()
    assert "Activate (inactive cards)" in page and "Resume (suspended cards)" in page
    assert "INACTIVE cards" not in page and "SUSPENDED cards" not in page

    form = {"action": "suspend", "_selected_action": [cards.prepaid.pk]}
    asked = admin_client.post(CARDS, form).content.decode()
    assert '<option value="SUSPECTED_FRAUD">Fraud is suspected (SUSPECTED_FRAUD)</option>' in asked
    done = admin_client.post(
        CARDS, {**form, "apply": "1", "reason": "SUSPECTED_FRAUD"}, follow=True
    ).content.decode()
    assert f"Suspended (temporarily): 1 card(s): {cards.prepaid.masked}." in done


def test_the_account_page_spells_iban_and_names_journal_kinds(admin_client, cards):
    html = admin_client.get(
        reverse("admin:issuer_cardaccount_change", args=[cards.debit.account_id])
    ).content.decode()
    assert "<label>IBAN:</label>" in html and "Iban" not in html
    assert re.search(
        r"<thead><tr><th>When \(UTC\)</th><th>Journal</th><th>Kind</th><th[^>]*>Amount</th>", html
    )
    assert "<td>Credit adjustment</td>" in html and "CREDIT_ADJUSTMENT" not in html


def test_journals_and_transactions_read_kinds_types_and_amounts_in_words(admin_client, cards):
    journals = admin_client.get(reverse("admin:issuer_journal_changelist")).content.decode()
    assert '<td class="field-kind_shown">Load</td>' in journals
    assert "?kind=LOAD" in journals and ">Load</a>" in journals  # the filter, by its name

    load = CardTransaction.objects.get(requestor_reference="demo-load")
    html = admin_client.get(
        reverse("admin:issuer_cardtransaction_change", args=[load.pk])
    ).content.decode()
    assert "<title>Load 500.00 EUR (Approved) |" in html
    assert "500.00 EUR" in html and "500.000" not in html
    assert "Transaction succeeded" in html  # the result in words beside its code

    entries = admin_client.get(
        reverse("admin:issuer_journal_change", args=[Journal.objects.get(kind="LOAD").pk])
    ).content.decode()
    assert "500.00 EUR on account" in entries and "500.000" not in entries
