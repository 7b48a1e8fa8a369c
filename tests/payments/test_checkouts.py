"""The hosted checkout through Django's test client: create, the page, paying once, expiry,
stored cards, 3-D Secure, and who reads the result. The same flows in Chromium are in
tests/browser/test_checkout_browser.py."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from payments.models import Checkout, Payment, Registration, ThreeDSAuthentication
from tests.conftest import code, param_errors
from tests.payments.conftest import INVALID_CARD, mtid
from tests.payments.test_registrations import _other_merchant_payer, register

pytestmark = pytest.mark.django_db

RESULT_URL = "https://shop.example.com/result"
CUSTOMER = {
    "customer.merchantCustomerId": "cust-0042",
    "customer.givenName": "Jane",
    "customer.surname": "Doe",
    "customer.email": "jane@example.com",
}
BILLING = {
    "billing.street1": "1 Main Street",
    "billing.city": "Berlin",
    "billing.postcode": "10115",
    "billing.country": "DE",
}


def create(payer, kind="DB", amount="49.90", **fields):
    body = {
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": fields.pop("merchantTransactionId", mtid()),
        "paymentType": kind,
        "amount": amount,
        "currency": "EUR",
        "shopperResultUrl": RESULT_URL,
        **fields,
    }
    return payer.client.post("/pay/v3/checkouts", body, mtid=False)


def opened(payer, **fields):
    response = create(payer, **fields)
    assert code(response) == "000.200.101", response.json()
    return response.json()


def page_path(data) -> str:
    url = data["redirect"]["url"]
    assert url.startswith("http://testserver/checkout/")
    return url.removeprefix("http://testserver")


def shopper() -> Client:
    return Client(enforce_csrf_checks=True, HTTP_USER_AGENT="Mozilla/5.0 (X11; Linux x86_64)")


def card_form(browser: Client, path: str, **fields):
    """The page's form filled in as a shopper would, and posted."""
    return browser.post(path, filled_form(browser, path, **fields))


def filled_form(browser: Client, path: str, **fields) -> dict[str, str]:
    page = browser.get(path)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    form = {
        "csrfmiddlewaretoken": token,
        "source": "card",
        "card.holder": "Jane Doe",
        "card.number": "4200 0000 0000 0000",
        "card.expiryMonth": "12",
        "card.expiryYear": "2034",
        "card.cvv": "123",
        "browser.javascriptEnabled": "true",
        "browser.language": "en-US",
        "browser.screenHeight": "1080",
        "browser.screenWidth": "1920",
        "browser.screenColorDepth": "24",
        "browser.timezone": "-60",
        "browser.javaEnabled": "false",
        **fields,
    }
    return {k: v for k, v in form.items() if v is not None}


def forwarded(response) -> tuple[str, dict[str, str]]:
    """The auto-submitted form of a forward page: its action and fields."""
    html = response.content.decode()
    action = re.search(r'<form id="forward" method="post" action="([^"]+)"', html).group(1)
    return action, dict(re.findall(r'name="([^"]+)" value="([^"]*)"', html))


# --- creating ------------------------------------------------------------------------------------


def test_a_checkout_answers_its_id_and_page(payer):
    data = opened(payer, **CUSTOMER)
    assert re.fullmatch(r"[0-9a-f]{32}", data["id"])
    assert data["redirect"] == {"url": f"http://testserver/checkout/{data['id']}", "method": "GET"}
    assert (data["paymentType"], data["amount"], data["currency"]) == ("DB", "49.90", "EUR")
    assert data["status"] == "OPEN" and "expiresAt" in data
    checkout = Checkout.objects.get(pk=data["id"])
    assert checkout.merchant_customer_id == "cust-0042"
    assert not Payment.objects.exists()


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"shopperResultUrl": None}, "shopperResultUrl"),
        ({"amount": None}, "amount"),
        ({"paymentType": "CD"}, "paymentType"),
        ({"card.number": "4200000000000000"}, "card.number"),
        (
            {"standingInstruction.source": "MIT", "standingInstruction.initialTransactionId": "S1"},
            "standingInstruction.source",
        ),
    ],
)
def test_a_checkout_refuses_bad_input(payer, fields, named):
    response = create(payer, **fields)
    assert response.status_code == 400 and named in param_errors(response)
    assert not Checkout.objects.exists()


def test_a_checkout_reference_already_paid_is_refused(payer):
    reference = mtid()
    payer.pay("DB", merchantTransactionId=reference)
    response = create(payer, merchantTransactionId=reference)
    assert code(response) == "800.110.100" and not Checkout.objects.exists()


def test_a_mandatory_3ds_merchant_needs_the_billing_data(payer, enrolled):
    enrolled.threeds_mode = "MANDATORY"
    enrolled.save()
    response = create(payer)
    assert response.status_code == 400
    assert {"billing.street1", "customer.email"} <= set(param_errors(response))


# --- the page ------------------------------------------------------------------------------------


def test_the_page_carries_the_standard_autocomplete_attributes(payer):
    data = opened(payer)
    html = shopper().get(page_path(data)).content.decode()
    for attribute in ("cc-name", "cc-number", "cc-exp-month", "cc-exp-year", "cc-csc"):
        assert f'autocomplete="{attribute}"' in html
    assert "49.90 EUR" in html and "https://" not in html
    # Scripts only from the platform's own static files (the expiry in the shopper's time).
    assert re.findall(r'<script src="([^"]*)"', html) == ["/static/checkout/local-time.js"]


def test_a_card_pays_the_checkout_once(payer):
    data = opened(payer)
    browser = shopper()
    form = filled_form(browser, page_path(data))
    response = browser.post(page_path(data), form)
    assert response.status_code == 200
    action, fields = forwarded(response)
    assert action == RESULT_URL
    assert fields == {"id": data["id"], "resourcePath": f"/pay/v3/checkouts/{data['id']}/payment"}
    paid = payer.client.get(fields["resourcePath"])
    assert paid.status_code == 200 and code(paid) == "000.000.000"
    payment = Payment.objects.get()
    assert paid.json()["id"] == payment.pk != data["id"]
    assert payment.merchant_transaction_id == Checkout.objects.get().merchant_transaction_id
    assert paid.json()["card"]["last4Digits"] == "0000" and paid.json()["amount"] == "49.90"
    again = browser.post(page_path(data), form)  # a second submission of the same form
    assert again.status_code == 409 and "Already paid" in again.content.decode()
    assert Payment.objects.count() == 1


def test_a_declined_card_uses_the_checkout_too(payer):
    data = opened(payer)
    card_form(shopper(), page_path(data), **{"card.number": INVALID_CARD})
    assert code(payer.client.get(f"/pay/v3/checkouts/{data['id']}/payment")) == "800.100.151"
    assert Checkout.objects.get().status == "USED"


def test_an_invalid_card_shows_the_form_again_and_keeps_the_checkout_open(payer):
    data = opened(payer)
    response = card_form(shopper(), page_path(data), **{"card.number": "4200000000000001"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Luhn" in html and "4200000000000001" not in html
    assert Checkout.objects.get().status == "OPEN" and not Payment.objects.exists()


def test_the_server_checks_the_csrf_token(payer):
    data = opened(payer)
    response = shopper().post(page_path(data), {"source": "card"})
    assert response.status_code == 403 and not Payment.objects.exists()


def test_an_open_checkout_has_no_payment_yet(payer):
    data = opened(payer)
    response = payer.client.get(f"/pay/v3/checkouts/{data['id']}/payment")
    assert response.status_code == 200 and code(response) == "000.200.102"
    assert response.json()["id"] == data["id"] and response.json()["status"] == "OPEN"


def test_an_expired_checkout_cannot_be_paid(payer):
    data = opened(payer)
    Checkout.objects.filter(pk=data["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert shopper().get(page_path(data)).status_code == 410
    answer = payer.client.get(f"/pay/v3/checkouts/{data['id']}/payment")
    assert code(answer) == "100.396.105"
    assert not Payment.objects.exists()


def test_a_checkout_expiring_while_the_shopper_types_is_refused(payer):
    data = opened(payer)
    browser = shopper()
    path = page_path(data)
    token = re.search(
        r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.get(path).content.decode()
    ).group(1)
    Checkout.objects.filter(pk=data["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = browser.post(
        path,
        {
            "csrfmiddlewaretoken": token,
            "source": "card",
            "card.number": "4200000000000000",
            "card.expiryMonth": "12",
            "card.expiryYear": "2034",
            "card.cvv": "123",
        },
    )
    assert response.status_code == 410 and not Payment.objects.exists()


def test_an_unknown_checkout_page(payer):
    assert shopper().get(f"/checkout/{'a' * 32}").status_code == 404
    assert shopper().get("/checkout/not-an-id").status_code == 404


# --- stored cards and registrations ----------------------------------------------------------


def test_the_customers_stored_cards_are_offered_and_pay(payer):
    customer = {k: v for k, v in CUSTOMER.items() if k != "customer.email"}
    stored = register(payer, **customer).json()["registrationId"]
    register(payer, **{**customer, "customer.merchantCustomerId": "someone-else"})
    data = opened(payer, **CUSTOMER)
    browser = shopper()
    html = browser.get(page_path(data)).content.decode()
    assert html.count('name="source" value="') == 2  # the customer's card and "a new card"
    assert f'value="{stored}"' in html and "•••• 0000" in html
    response = card_form(
        browser,
        page_path(data),
        source=stored,
        **{"card.number": None, "card.cvv": None, "stored.cvv": "123"},
    )
    assert forwarded(response)[0] == RESULT_URL
    payment = Payment.objects.get(payment_type="DB")
    assert payment.registration_id == stored and payment.successful


def test_another_merchants_stored_card_cannot_be_chosen(payer):
    other = _other_merchant_payer()
    foreign = register(
        other,
        **{
            "customer.merchantCustomerId": "cust-0042",
            "customer.givenName": "J",
            "customer.surname": "D",
        },
    ).json()["registrationId"]
    data = opened(payer, **CUSTOMER)
    response = card_form(shopper(), page_path(data), source=foreign, **{"card.number": None})
    assert response.status_code == 400  # not a stored card of this checkout: the card form
    assert not Payment.objects.filter(merchant=payer.merchant).exists()


def test_a_checkout_can_store_the_card(payer):
    data = opened(payer, createRegistration="true", **CUSTOMER)
    card_form(shopper(), page_path(data))
    answer = payer.client.get(f"/pay/v3/checkouts/{data['id']}/payment").json()
    registration = Registration.objects.get(pk=answer["registrationId"])
    assert registration.merchant_customer_id == "cust-0042"


# --- 3-D Secure -------------------------------------------------------------------------------


def test_a_3ds_checkout_goes_through_the_challenge_and_back(payer, enrolled):
    from payments.threeds.services import threeds_complete

    enrolled.threeds_mode = "MANDATORY"
    enrolled.save()
    data = opened(payer, **CUSTOMER, **BILLING)
    browser = shopper()
    response = card_form(browser, page_path(data), **{"card.number": "4000000000001091"})
    action, fields = forwarded(response)
    auth = ThreeDSAuthentication.objects.get()
    assert action == f"http://testserver/threeds/{auth.pk}/start"
    assert fields["threeDSSessionData"] == auth.pk
    assert auth.shopper_result_url == f"http://testserver/checkout/{data['id']}/result"
    threeds_complete(auth_id=auth.pk, outcome="Y")
    back = browser.post(f"/checkout/{data['id']}/result", {"id": auth.payment_id})
    assert forwarded(back) == (
        RESULT_URL,
        {"id": data["id"], "resourcePath": f"/pay/v3/checkouts/{data['id']}/payment"},
    )
    answer = payer.client.get(f"/pay/v3/checkouts/{data['id']}/payment").json()
    assert answer["result"]["code"] == "000.000.000" and answer["threeDSecure"]["eci"]


# --- who reads a checkout -------------------------------------------------------------------------


def test_another_merchant_cannot_read_the_checkout(payer):
    data = opened(payer)
    other = _other_merchant_payer()
    response = other.client.get(f"/pay/v3/checkouts/{data['id']}/payment")
    assert response.status_code == 404


def test_the_channel_reads_its_merchants_checkout(api, payer):
    data = opened(payer)
    assert api.get(f"/pay/v3/checkouts/{data['id']}/payment").status_code == 200


def test_the_page_keeps_its_origin_for_the_csrf_check(payer):
    """`no-referrer` would make Chromium post the form with `Origin: null`, which Django's CSRF
    check refuses (the cardholder page's bug of issue 9): same-origin keeps the checkout's link
    from other sites and the form's origin for ours."""
    page = shopper().get(page_path(opened(payer)))
    assert page["Referrer-Policy"] == "same-origin"
    assert 'content="no-referrer"' not in page.content.decode()
    assert "no-store" in page["Cache-Control"]


def test_staff_see_checkouts_read_only(admin_client, payer):
    from django.urls import reverse

    data = opened(payer)
    card_form(shopper(), page_path(data))
    page = admin_client.get(reverse("admin:payments_checkout_changelist"))
    assert page.status_code == 200 and data["id"] in page.content.decode()
    detail = admin_client.get(reverse("admin:payments_checkout_change", args=[data["id"]]))
    assert detail.status_code == 200 and Payment.objects.get().pk in detail.content.decode()
    assert "4200000000000000" not in detail.content.decode()


def test_another_method_is_refused_before_the_csrf_check(payer):
    path = page_path(opened(payer))
    response = shopper().generic(
        "QUERY", path, "a=1", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 405 and response["Allow"] == "GET, POST"
    assert shopper().delete(path).status_code == 405
