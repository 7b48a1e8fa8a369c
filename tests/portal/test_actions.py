"""Merchant operators and administrators capture, reverse and refund their own payments from the
portal (issue 35), by role; a viewer reads only; the API's answer in words; one operation per
form; no second approval; another merchant's payment is 404."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from merchants import services as merchant_services
from merchants.models import PortalUser, PortalUserChange
from payments.backoffice.models import PaymentAction
from payments.models import Payment
from tests.conftest import SpecClient
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db
PASSWORD = "a long portal passphrase 7"
Role = PortalUser.Role


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.BACKOFFICE_APPROVAL_AMOUNT = {"*": Decimal("0")}  # the portal is never held


def signed_in(client, merchant, role, name="shop-user"):
    user = User.objects.create_user(name, password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant, role=role)
    client.force_login(user)
    return client


def sale(payer, kind="DB", amount="100.00"):
    return Payment.objects.get(pk=payer.pay(kind, amount).json()["id"])


def page(client, payment):
    response = client.get(f"/portal/transactions/{payment.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def key_of(shown, kind):
    return re.search(rf'name="{kind}-key" value="([0-9a-f]+)"', shown).group(1)


def act(client, payment, kind, amount="", reason="shopper returned it", key=None):
    key = key or key_of(page(client, payment), kind)
    data = {f"{kind}-reason": reason, f"{kind}-key": key}
    if amount:
        data[f"{kind}-amount"] = amount
    return client.post(f"/portal/transactions/{payment.pk}/act/{kind}/", data)


def shown_messages(response):
    return [str(m) for m in response.wsgi_request._messages]


def test_an_operator_refunds_and_sees_it_in_the_chain(client, merchant, payer):
    payment = sale(payer)
    signed_in(client, merchant, Role.OPERATOR)
    shown = page(client, payment)
    assert 'id="act-RF"' in shown and 'id="act-RV"' in shown and 'id="act-CP"' not in shown
    response = act(client, payment, "RF", "150.00")  # more than the sale
    assert response.status_code == 302
    assert any("700.400.200" in m and "refused" in m for m in shown_messages(response))
    response = act(client, payment, "RF", "30.00")
    assert any("Refund of 30.00 EUR" in m and "000.000.000" in m for m in shown_messages(response))
    refund = Payment.objects.get(payment_type="RF", successful=True)
    shown = page(client, payment)
    assert f"/portal/transactions/{refund.pk}/" in shown  # in the chain at once
    assert "shopper returned it" in shown  # the operation's record
    action = PaymentAction.objects.get(payment=refund)
    assert (action.channel, action.requested_by, action.state) == (
        "PORTAL",
        "portal:shop-user",
        "SENT",
    )


def test_above_the_admins_threshold_the_portal_is_not_held(client, merchant, payer):
    payment = sale(payer)
    signed_in(client, merchant, Role.ADMINISTRATOR)
    act(client, payment, "RV")
    payment.refresh_from_db()
    assert payment.reversed_amount == Decimal("100.00")


def test_a_double_click_makes_one_capture(client, merchant, payer):
    pa = sale(payer, "PA", "40.00")
    signed_in(client, merchant, Role.OPERATOR)
    key = key_of(page(client, pa), "CP")
    act(client, pa, "CP", "25.00", key=key)
    second = act(client, pa, "CP", "25.00", key=key)
    assert any("sent already" in m for m in shown_messages(second))
    assert Payment.objects.filter(payment_type="CP").count() == 1


def test_a_bad_form_answers_400_and_nothing_is_written(client, merchant, payer):
    payment = sale(payer)
    signed_in(client, merchant, Role.OPERATOR)
    response = act(client, payment, "RF", "", reason="")
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert not PaymentAction.objects.exists() and Payment.objects.count() == 1


def test_a_viewer_reads_only(client, merchant, payer):
    payment = sale(payer)
    signed_in(client, merchant, Role.VIEWER)
    shown = page(client, payment)
    assert "Act on this payment" not in shown
    assert 'href="/portal/developers/"' not in shown  # nor the API token's page
    data = {"RF-reason": "x", "RF-key": "0" * 32, "RF-amount": "1.00"}
    assert client.post(f"/portal/transactions/{payment.pk}/act/RF/", data).status_code == 403
    assert client.get("/portal/developers/").status_code == 403
    assert not PaymentAction.objects.exists()


def test_an_operator_does_not_reach_the_api_token(client, merchant, payer):
    signed_in(client, merchant, Role.OPERATOR)
    assert client.get("/portal/developers/").status_code == 403
    assert 'href="/portal/developers/"' not in client.get("/portal/").content.decode()


def test_another_merchants_payment_is_404(client, merchant, participator):
    other = MerchantFactory(participator=participator)
    theirs = Payer(
        SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other
    ).pay("DB", "77.00")
    signed_in(client, merchant, Role.ADMINISTRATOR)
    payment_id = theirs.json()["id"]
    data = {"RF-reason": "x", "RF-key": "0" * 32, "RF-amount": "1.00"}
    assert client.post(f"/portal/transactions/{payment_id}/act/RF/", data).status_code == 404
    assert not PaymentAction.objects.exists()


def test_staff_set_the_role_and_the_history_keeps_it(merchant):
    portal_user, _ = merchant_services.portal_user_create(
        merchant=merchant, email="ops@example.com", changed_by="staff:alice"
    )
    assert portal_user.role == Role.ADMINISTRATOR  # as every existing portal user became
    assert merchant_services.portal_user_set_role(
        portal_user=portal_user, role=Role.VIEWER, changed_by="staff:alice"
    )
    change = PortalUserChange.objects.filter(action="ROLE_CHANGED").get()
    assert (change.changed_by, change.detail) == ("staff:alice", "Administrator to Viewer")
    assert not merchant_services.portal_user_set_role(
        portal_user=portal_user, role=Role.VIEWER, changed_by="staff:alice"
    )


def test_a_viewer_cannot_deregister_a_stored_card(client, merchant, payer):
    from payments.registrations.models import Registration

    stored = payer.pay("DB", "10.00", createRegistration="true").json()["registrationId"]
    signed_in(client, merchant, Role.VIEWER)
    assert "Deregister" not in client.get("/portal/registrations/").content.decode()
    assert client.post(f"/portal/registrations/{stored}/deregister/").status_code == 403
    assert Registration.objects.get(pk=stored).status == "ACTIVE"
