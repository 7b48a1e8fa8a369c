"""Bank staff act on a payment from its admin page (issue 35): buttons by permission, a form with
an amount and a reason, the API's answer in words, one operation per form, and a second staff
member's approval above BACKOFFICE_APPROVAL_AMOUNT."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from payments.backoffice.models import PaymentAction
from payments.models import Payment, PaymentState

pytestmark = pytest.mark.django_db
PERMISSIONS = (
    "view_payment",
    "capture_payment",
    "reverse_payment",
    "refund_payment",
    "view_paymentaction",
)


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.BACKOFFICE_APPROVAL_AMOUNT = {"EUR": Decimal("100"), "*": Decimal("0")}


def staff_member(name, *codenames):
    user = User.objects.create_user(name, password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return user


@pytest.fixture
def alice(client):
    client.force_login(staff_member("alice", *PERMISSIONS))
    return client


def debit(payer, amount="150.00", kind="DB"):
    answer = payer.pay(kind, amount=amount).json()
    assert answer["result"]["code"] == "000.000.000"
    return Payment.objects.get(pk=answer["id"])


def page(client, payment):
    response = client.get(reverse("admin:payments_payment_change", args=[payment.pk]))
    assert response.status_code == 200
    return response.content.decode()


def act_url(payment, kind):
    return reverse("admin:payments_payment_act", args=[payment.pk, kind])


def form_key(client, payment, kind):
    response = client.get(act_url(payment, kind))
    assert response.status_code == 200
    return re.search(r'name="key" value="([0-9a-f]+)"', response.content.decode()).group(1)


def send(client, payment, kind, amount="", reason="customer called", key=None):
    key = key or form_key(client, payment, kind)
    return client.post(act_url(payment, kind), {"amount": amount, "reason": reason, "key": key})


def messages_of(response):
    return [str(m) for m in response.wsgi_request._messages]


def test_the_buttons_follow_the_permissions(client, payer):
    payment = debit(payer)
    client.force_login(staff_member("viewer", "view_payment"))
    assert "backoffice-action" not in page(client, payment)
    assert client.get(act_url(payment, "RF")).status_code == 403
    client.force_login(staff_member("refunder", "view_payment", "refund_payment"))
    shown = page(client, payment)
    assert ">Refund<" in shown and ">Reverse (void)<" not in shown


def test_a_refund_from_the_page(alice, payer):
    payment = debit(payer)
    assert ">Reverse (void)<" in page(alice, payment) and ">Capture<" not in page(alice, payment)
    response = send(alice, payment, "RF", "40.00")
    assert response.status_code == 302
    assert any("000.000.000" in m for m in messages_of(response))
    assert ">Refund<" in page(alice, payment)  # 110.00 left
    refund = Payment.objects.get(payment_type="RF")
    assert refund.referenced_id == payment.pk and refund.amount == Decimal("40.00")
    assert refund.pk in page(alice, payment)  # in the chain at once
    action = PaymentAction.objects.get()
    assert (action.requested_by, action.reason, action.channel) == (
        "staff:alice",
        "customer called",
        "ADMIN",
    )


def test_a_double_click_makes_one_refund(alice, payer):
    payment = debit(payer)
    key = form_key(alice, payment, "RF")
    first = send(alice, payment, "RF", "10.00", key=key)
    second = send(alice, payment, "RF", "10.00", key=key)
    assert first.status_code == second.status_code == 302
    assert any("sent already" in m for m in messages_of(second))
    assert Payment.objects.filter(payment_type="RF").count() == 1


def test_the_form_says_what_is_wrong_and_nothing_is_written(alice, payer):
    payment = debit(payer)
    response = send(alice, payment, "RF", "", reason="")
    assert response.status_code == 200
    shown = response.content.decode()
    assert "This field is required." in shown
    assert not PaymentAction.objects.exists() and Payment.objects.count() == 1


def test_an_over_capture_answers_in_words(alice, payer):
    pa = debit(payer, "50.00", kind="PA")
    response = send(alice, pa, "CP", "60.00")
    assert any(
        "700.400.100" in m and "PA value exceeded" in m and "refused" in m
        for m in messages_of(response)
    )


def test_above_the_threshold_a_second_staff_member_approves(alice, client, payer):
    payment = debit(payer)
    response = send(alice, payment, "RF", "120.00")
    assert any("second staff member" in m for m in messages_of(response))
    held = Payment.objects.get(payment_type="RF")
    assert (held.state, held.result_code) == (PaymentState.PENDING, "000.200.400")
    action = PaymentAction.objects.get()
    decide = reverse("admin:payments_paymentaction_decide", args=[action.pk])
    assert "Approve or reject" in page(alice, payment)

    alice.force_login(User.objects.get(username="alice"))
    shown = alice.get(decide).content.decode()
    assert "Withdraw" in shown and "Approve and send" not in shown
    assert alice.post(decide, {"approve": "1"}).status_code == 403

    bob = staff_member("bob", "view_payment", "approve_paymentaction")
    client.force_login(bob)
    shown = client.get(decide).content.decode()
    assert "Approve and send" in shown and "customer called" in shown
    response = client.post(decide, {"approve": "1"})
    assert response.status_code == 302
    assert any("approved and sent" in m and "000.000.000" in m for m in messages_of(response))
    held.refresh_from_db()
    assert held.result_code == "000.000.000"
    action.refresh_from_db()
    assert (action.state, action.decided_by) == ("APPROVED", "staff:bob")


def test_a_rejection_releases_the_amount(alice, client, payer):
    payment = debit(payer)
    send(alice, payment, "RV")
    action = PaymentAction.objects.get()
    client.force_login(staff_member("bob", "view_payment", "approve_paymentaction"))
    decide = reverse("admin:payments_paymentaction_decide", args=[action.pk])
    response = client.post(decide, {"reject": "1", "note": "duplicate request"})
    assert any("700.400.800" in m for m in messages_of(response))
    payment.refresh_from_db()
    assert payment.reversing_amount == 0
    action.refresh_from_db()
    assert (action.state, action.decision_note) == ("REJECTED", "duplicate request")


def test_the_record_lists_every_operation(alice, payer):
    payment = debit(payer)
    send(alice, payment, "RF", "120.00")
    shown = alice.get(reverse("admin:payments_paymentaction_changelist")).content.decode()
    assert "Awaiting approval: decide" in shown and "staff:alice" in shown
