"""A merchant's settlement account and notification URL on its admin page (issue 35): shown,
changed by staff with the permission, validated as the API validates them, every change kept in
the merchant's history with who made it (the account number masked); the portal shows it
masked."""

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from merchants.models import MerchantDataChange
from tests.merchants.test_admin import change_form_data

pytestmark = pytest.mark.django_db
IBAN = "DE89370400440532013000"


def change_url(merchant: Any) -> str:
    return reverse("admin:merchants_merchant_change", args=[merchant.pk])


def staff(client: Any, *codenames: str) -> Any:
    user = User.objects.create_user("teller", password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    return client


def save(client: Any, merchant: Any, **changes: str) -> Any:
    data = change_form_data(client.get(change_url(merchant)))
    data.update(changes)
    return client.post(change_url(merchant), data)


ACCOUNT = {
    "bank_account_holder": "Demo Shop GmbH",
    "bank_account_number": IBAN,
    "bank_account_bic": "COBADEFFXXX",
    "bank_account_country": "DE",
    "settlement_currency": "EUR",
}


def test_staff_with_the_permission_change_the_account_and_it_is_kept(client, merchant):
    staff(
        client,
        "view_merchant",
        "change_merchant",
        "change_settlement_account",
        "view_merchantdatachange",
    )
    shown = client.get(change_url(merchant)).content.decode()
    assert "Settlement account and notifications" in shown and 'name="bank_account_number"' in shown
    response = save(client, merchant, **ACCOUNT)
    assert response.status_code == 302, response.context["adminform"].form.errors
    merchant.refresh_from_db()
    assert merchant.bank_account_number == IBAN
    kept = {c.field: c for c in MerchantDataChange.objects.filter(merchant=merchant)}
    assert kept["IBAN or account number"].new_value == "DE…3000"  # never the whole number
    assert kept["IBAN or account number"].changed_by == "staff:teller"
    assert kept["account holder"].new_value == "Demo Shop GmbH"
    shown = client.get(change_url(merchant)).content.decode()
    assert "change history (registered data, settlement account)" in shown.lower()
    assert "DE…3000" in shown


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("bank_account_number", "DE89370400440532013001", "is not a valid IBAN"),
        ("bank_account_bic", "COBAFRPPXXX", "is a BIC of FR, not of DE"),
        ("bank_account_country", "FR", "is an IBAN of DE, not of FR"),
    ],
)
def test_a_bad_account_is_refused_and_nothing_is_written(client, merchant, field, value, said):
    staff(client, "view_merchant", "change_merchant", "change_settlement_account")
    response = save(client, merchant, **{**ACCOUNT, field: value})
    assert response.status_code == 200
    assert said in response.content.decode()
    merchant.refresh_from_db()
    assert merchant.bank_account_number == "" and not MerchantDataChange.objects.exists()


def test_without_the_permission_the_account_is_shown_not_changed(client, merchant):
    merchant.bank_account_number = IBAN
    merchant.save()
    staff(client, "view_merchant", "change_merchant")
    shown = client.get(change_url(merchant)).content.decode()
    assert "Settlement account and notifications" in shown and IBAN in shown
    assert 'name="bank_account_number"' not in shown
    save(client, merchant, bank_account_number="GB82WEST12345698765432", city="Hamburg")
    merchant.refresh_from_db()
    assert merchant.bank_account_number == IBAN and merchant.city == "Hamburg"
    assert list(MerchantDataChange.objects.values_list("field", "changed_by")) == [
        ("city", "staff:teller")
    ]


def test_an_api_update_is_kept_with_its_entity(api, merchant):
    from tests.merchants.test_merchant_api import UPDATE

    body = {"merchant.id": merchant.merchant_id, "merchant.city": "Hamburg"}
    assert api.post(UPDATE, body).status_code == 200
    change = MerchantDataChange.objects.get()
    assert (change.field, change.new_value) == ("city", "Hamburg")
    assert change.changed_by == f"entity:{api.entity_id}"


def test_the_portal_shows_the_account_masked(client, merchant):
    from merchants.models import PortalUser

    merchant.bank_account_holder, merchant.bank_account_number = "Demo Shop GmbH", IBAN
    merchant.save()
    user = User.objects.create_user("shop", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    client.force_login(user)
    shown = client.get("/portal/settlements/").content.decode()
    assert "DE…3000" in shown and "Demo Shop GmbH" in shown and IBAN not in shown
