"""The admin speaks to bank staff in words (issue 35): labels people read, not field names;
the add-merchant form's country has no default."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_merchants_page_names_its_fields_in_words(admin_client, merchant):
    from tests.factories import TerminalFactory

    TerminalFactory(merchant=merchant)
    shown = admin_client.get(
        reverse("admin:merchants_merchant_change", args=[merchant.pk])
    ).content.decode()
    labels = {label.rstrip(":") for label in re.findall(r"<label[^>]*>([^<]+)</label>", shown)}
    headers = {h.strip() for h in re.findall(r"<th[^>]*>([^<]+)</th>", shown)}
    for words in (
        "Merchant ID",
        "3-D Secure enrolled at",
        "MCC 2",
        "Payment facilitator abbreviation",
        "Account holder",
        "IBAN or account number",
        "Notification URL",
    ):
        assert words in labels, words
    assert "Request ID" in headers  # the histories' ndc
    assert not [h for h in headers | labels if re.search(r"[a-z]\.[a-z]", h)]  # no API names


def test_the_add_merchant_forms_country_has_no_default(admin_client):
    page = admin_client.get(reverse("admin:merchants_merchant_add")).content.decode()
    country = page[page.index('name="country"') :].split("</select>")[0]
    assert '<option value="" selected>Choose the country…</option>' in country
    assert country.count(" selected") == 1
