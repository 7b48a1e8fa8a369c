"""Staff admin for card on file: registrations masked and searchable, deregistration through
the service, the chain of a standing instruction on the payment page, no card number anywhere."""

import pytest
from django.urls import reverse

from payments.models import Payment, Registration, StandingInstruction
from tests.payments.conftest import MASTER, mtid
from tests.payments.test_registrations import pay_stored

pytestmark = pytest.mark.django_db

REGISTRATIONS = reverse("admin:payments_registration_changelist")


def stored(payer, number="4200000000000000", **fields):
    data = payer.pay(
        "DB",
        number=number,
        createRegistration="true",
        **{"standingInstruction.source": "CIT"},
        **fields,
    ).json()
    return data


def test_registrations_are_listed_masked(admin_client, payer):
    data = stored(payer)
    page = admin_client.get(REGISTRATIONS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "420000******0000" in html and data["registrationId"] in html
    assert "4200000000000000" not in html


def test_search_by_last_four_and_merchant(admin_client, payer):
    visa = stored(payer)["registrationId"]
    master = stored(payer, number=MASTER)["registrationId"]
    by_last4 = admin_client.get(REGISTRATIONS, {"q": "5454"}).context["cl"].result_list
    assert [r.pk for r in by_last4] == [master]
    by_merchant = admin_client.get(REGISTRATIONS, {"q": payer.merchant.merchant_id})
    assert {r.pk for r in by_merchant.context["cl"].result_list} == {visa, master}


def test_the_change_page_shows_no_card_number(admin_client, payer):
    registration = Registration.objects.get(pk=stored(payer)["registrationId"])
    page = admin_client.get(reverse("admin:payments_registration_change", args=[registration.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert registration.pan_fingerprint not in html and registration.pan_ciphertext not in html
    assert StandingInstruction.objects.get().initial_transaction_id in html  # the inline


def test_deregister_action_goes_through_the_service(admin_client, payer):
    registration_id = stored(payer)["registrationId"]
    response = admin_client.post(
        REGISTRATIONS,
        {"action": "deregister", "_selected_action": [registration_id]},
        follow=True,
    )
    assert "Deregistered 1" in response.content.decode()
    registration = Registration.objects.get(pk=registration_id)
    assert registration.status == "DEREGISTERED" and registration.pan_ciphertext == ""
    again = admin_client.post(
        REGISTRATIONS, {"action": "deregister", "_selected_action": [registration_id]}, follow=True
    )
    assert "100.150.202" in again.content.decode()


def test_the_payment_page_shows_the_chain(admin_client, payer):
    data = stored(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    mit = pay_stored(
        payer,
        data["registrationId"],
        merchantTransactionId=mtid(),
        **{
            "standingInstruction.source": "MIT",
            "standingInstruction.initialTransactionId": initial_id,
        },
    ).json()
    page = admin_client.get(reverse("admin:payments_payment_change", args=[mit["id"]]))
    html = page.content.decode()
    assert page.status_code == 200
    assert initial_id in html and data["id"] in html and "this payment" in html
    assert "CIT" in html and "MIT" in html
    chain = admin_client.get(
        reverse(
            "admin:payments_standinginstruction_change", args=[StandingInstruction.objects.get().pk]
        )
    )
    assert chain.status_code == 200 and mit["id"] in chain.content.decode()
    assert Payment.objects.get(pk=mit["id"]).standing_instruction_id is not None


def test_staff_who_may_only_view_cannot_deregister(client, payer):
    from django.contrib.auth.models import Permission, User

    registration_id = stored(payer)["registrationId"]
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_registration"))
    client.force_login(viewer)
    page = client.get(REGISTRATIONS)
    assert page.status_code == 200 and "deregister" not in page.content.decode()
    client.post(REGISTRATIONS, {"action": "deregister", "_selected_action": [registration_id]})
    assert Registration.objects.get(pk=registration_id).status == "ACTIVE"
