"""Finding a payment by any identifier a dispute or a phone call brings (issue 35), in the admin
and in the portal (its own merchant's only)."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from merchants.models import PortalUser
from payments.models import Payment
from payments.selectors import payments_found
from tests.conftest import SpecClient
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(payer):
    ids = [payer.pay("DB", "12.00").json()["id"], payer.pay("PA", "30.00").json()["id"]]
    return [Payment.objects.get(pk=pk) for pk in ids]


def found(term):
    return set(payments_found(Payment.objects.all(), term).values_list("pk", flat=True))


def test_every_identifier_finds_its_payment(two):
    first, second = two
    assert found(first.pk) == {first.pk}
    assert found(first.pk[:10]) == {first.pk}  # as the lists show it
    assert found(first.pk[:10] + "…") == {first.pk}
    assert found(first.merchant_transaction_id) == {first.pk}
    assert found(first.acquirer_ref_no) == {first.pk}
    assert found(first.retrieval_ref_no) == {first.pk}
    assert found(first.stan) == {first.pk}
    assert found(first.auth_code) == {first.pk}
    assert found(first.auth_code.lower()) == {first.pk}
    both = {first.pk, second.pk}
    assert found(f"{first.card_bin}…{first.card_last4}") == both
    assert found(f"{first.card_bin} {first.card_last4}") == both
    assert found(f"{first.card_bin}******{first.card_last4}") == both
    assert found(first.card_last4) == both
    assert found(first.card_bin) == set()  # a BIN alone names too many payments
    assert found("no such thing") == set()
    assert found("") == both


def test_the_admin_search_finds_by_arn_and_narrows_by_amount_and_date(client, two):
    first, second = two
    client.force_login(User.objects.create_superuser("staff", password="x"))
    url = reverse("admin:payments_payment_changelist")
    shown = client.get(url, {"q": first.acquirer_ref_no}).content.decode()
    assert first.pk[:10] in shown and second.pk[:10] not in shown
    shown = client.get(url, {"amount__gte": "20", "amount__lte": "40"}).content.decode()
    assert second.pk[:10] in shown and first.pk[:10] not in shown
    day = first.created_at.date().isoformat()
    shown = client.get(url, {"created_at__date__gte": day, "created_at__date__lte": day})
    assert first.pk[:10] in shown.content.decode()
    shown = client.get(
        url, {"created_at__date__gte": "2001-01-01", "created_at__date__lte": "2001-01-02"}
    )
    assert first.pk[:10] not in shown.content.decode()
    shown = client.get(url, {"amount__gte": "lots"}).content.decode()  # ignored, and said so
    assert "Not understood, ignored: lots" in shown and first.pk[:10] in shown


def test_the_portal_finds_only_its_own(client, merchant, participator, two):
    first, _ = two
    other = MerchantFactory(participator=participator)
    theirs = (
        Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other)
        .pay("DB", "5.00")
        .json()
    )
    user = User.objects.create_user("shop", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    client.force_login(user)
    shown = client.get("/portal/transactions/", {"q": first.retrieval_ref_no}).content.decode()
    assert f"/portal/transactions/{first.pk}/" in shown and "1 payment<" in shown
    theirs_rrn = Payment.objects.get(pk=theirs["id"]).retrieval_ref_no
    shown = client.get("/portal/transactions/", {"q": theirs_rrn}).content.decode()
    assert "0 payments" in shown


def test_a_card_number_typed_into_a_search_is_never_echoed(client, merchant, two):
    """A whole card number in the admin's search or the portal's "Find" (issue 35): the page
    redirects to its masked form, which finds the card by BIN and last four."""
    first, second = two
    pan = "4200000000000000"
    client.force_login(User.objects.create_superuser("staff", password="x"))
    url = reverse("admin:payments_payment_changelist")
    redirected = client.get(url, {"q": pan})
    assert redirected.status_code == 302 and pan not in redirected["Location"]
    shown = client.get(redirected["Location"]).content.decode()
    assert pan not in shown and first.pk[:10] in shown and second.pk[:10] in shown

    user = User.objects.create_user("shop", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    client.force_login(user)
    redirected = client.get("/portal/transactions/", {"q": pan, "payment_type": "DB"})
    assert redirected.status_code == 302 and pan not in redirected["Location"]
    assert "payment_type=DB" in redirected["Location"]
    shown = client.get(redirected["Location"]).content.decode()
    assert pan not in shown and f"/portal/transactions/{first.pk}/" in shown
