"""A portal user belongs to one merchant (issue 23): the portal user bank staff onboard for a
second merchant sees nothing of the first merchant's, on any page: transactions (list, detail,
CSV), scheme tokens, stored cards, settlements and their reports, daily files."""

import csv
import io

import pytest
from django.utils import timezone

from merchants.services import portal_user_create
from payments.models import Payment
from tests.factories import MerchantFactory
from tests.tokenization.test_tokenize import card, tokenize

pytestmark = pytest.mark.django_db
OWN_PASSWORD = "a long portal passphrase 7"


@pytest.fixture
def first(merchant, payer, merchant_api):
    """The first merchant's data: payments, a stored card, a scheme token, a settled day, a
    daily file."""
    from reconciliation.recon.generate import produce
    from reconciliation.settlement import settlement_run

    payer.pay("DB", "100.00")
    payer.pay("DB", "12.00", createRegistration="true")
    tur = tokenize(merchant_api, merchant, "CT", **card()).json()["tokenUniqueReference"]
    today = timezone.now().date()
    run = settlement_run(merchant=merchant, day=today)
    recon = produce(merchant.entity, today, production=True).record
    return {
        "merchant": merchant,
        "payments": list(Payment.objects.filter(merchant=merchant)),
        "registration": merchant.registrations.get().pk,
        "token": tur,
        "settlement": run,
        "file": recon,
        "day": today,
    }


@pytest.fixture
def second_user(client, participator):
    """The second merchant's administrator, onboarded as bank staff do, signed in with its
    one-time password and past the password page."""
    second = MerchantFactory(participator=participator)
    _, password = portal_user_create(merchant=second, email="bob@second.example", changed_by="t")
    assert (
        client.post(
            "/portal/login/", {"username": "bob@second.example", "password": password}
        ).status_code
        == 302
    )
    changed = client.post(
        "/portal/password/",
        {"old_password": password, "new_password1": OWN_PASSWORD, "new_password2": OWN_PASSWORD},
    )
    assert changed.status_code == 302
    return client


def page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def test_a_second_merchants_portal_user_sees_nothing_of_the_first(first, second_user):
    client = second_user
    merchant = first["merchant"]
    ids = [p.pk for p in first["payments"]]

    listing = page(client, "/portal/transactions/")
    assert "0 payments" in listing and not any(pk in listing for pk in ids)
    for pk in ids:
        assert client.get(f"/portal/transactions/{pk}/").status_code == 404
    export = client.get("/portal/transactions/?export=csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert rows == []

    tokens = page(client, "/portal/tokens/")
    assert "No scheme tokens" in tokens and first["token"][:20] not in tokens
    registrations = page(client, "/portal/registrations/")
    assert first["registration"] not in registrations and "420000******0000" not in registrations
    assert (
        client.post(f"/portal/registrations/{first['registration']}/deregister/").status_code == 404
    )

    settlements = page(client, "/portal/settlements/")
    assert "112.00" not in settlements and f"{first['day']:%Y-%m-%d}" not in settlements
    report = client.get(f"/portal/reports/transaction/{first['day']:%Y-%m-%d}.csv")
    if report.status_code == 200:
        lines = b"".join(report.streaming_content).decode().splitlines()
        assert not any(merchant.merchant_id in line for line in lines[1:])
    else:
        assert report.status_code == 404
    files = page(client, "/portal/files/")
    assert first["file"].name not in files
    assert client.get(f"/portal/files/{first['file'].pk}/").status_code == 404

    for path in ("/portal/", "/portal/developers/", "/portal/chargebacks/", "/portal/terminals/"):
        shown = page(client, path)
        assert merchant.merchant_id not in shown and f"…{merchant.entity.token_last4}" not in shown


def test_the_first_merchants_own_user_sees_it_all(first):
    """The control: the same pages show the first merchant's data to its own portal user, so
    the checks above look where the data would be."""
    from django.test import Client

    client = Client()
    _, password = portal_user_create(
        merchant=first["merchant"], email="ann@first.example", changed_by="t"
    )
    client.post("/portal/login/", {"username": "ann@first.example", "password": password})
    client.post(
        "/portal/password/",
        {"old_password": password, "new_password1": OWN_PASSWORD, "new_password2": OWN_PASSWORD},
    )
    listing = page(client, "/portal/transactions/")
    assert all(p.pk in listing for p in first["payments"])
    assert client.get(f"/portal/transactions/{first['payments'][0].pk}/").status_code == 200
    export = client.get("/portal/transactions/?export=csv")
    assert len(b"".join(export.streaming_content).decode().splitlines()) == 3
    assert first["token"][:20] in page(client, "/portal/tokens/")
    assert first["registration"] in page(client, "/portal/registrations/")
    settlements = page(client, "/portal/settlements/")
    assert "112.00" in settlements and f"{first['day']:%Y-%m-%d}" in settlements
    assert first["file"].name in page(client, "/portal/files/")
