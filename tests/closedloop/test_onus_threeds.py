"""3-D Secure for on-us cards: the ACS asks the issuer. A cardholder with the app channel
approves out of band (StartOOBAuthen's cardholder page, then the challenge continues); one with
an SMS or e-mail channel types the issuer's one-time password; one without a channel goes
frictionless."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from issuer import demo
from issuer.cards import money, onus, services
from issuer.cards.models import Card
from issuer.models import OOBAuthentication, OTPChallenge
from payments.models import ThreeDSAuthentication
from tests.closedloop.test_onus import on_us
from tests.payments.conftest import Payer
from tests.payments.test_threeds_flow import final, open_redirect
from tests.payments.threeds_helpers import (
    SHOPPER_RESULT_URL,
    form_action_and_fields,
    nonce_of,
    threeds_fields,
)

pytestmark = pytest.mark.django_db
APPROVED = "000.000.000"


@pytest.fixture(autouse=True)
def _quick_pin_hash(settings):
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000


@pytest.fixture
def cards():  # type: ignore[no-untyped-def]
    return demo.demo_cards("oob-client")


@pytest.fixture
def payer(merchant_api, enrolled) -> Payer:
    return Payer(merchant_api, enrolled)


def start(payer: Payer, issued: Card, amount: str = "20.00") -> dict:  # type: ignore[type-arg]
    answer = payer.pay(
        "DB", amount=amount, number=None, **{**on_us(issued), **threeds_fields()}
    ).json()
    assert answer["result"]["code"] == "000.200.000", answer
    return answer


def test_an_app_cardholder_approves_out_of_band(payer, cards):
    shopper = Client()
    data = start(payer, cards.prepaid)  # crd_demo_prepaid: channel APP
    page = open_redirect(shopper, data).content.decode()
    assert "Approve the payment there" in page
    link = re.search(r'id="app-link" href="([^"]+)"', page).group(1)
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    oob = OOBAuthentication.objects.get(pk=auth.issuer_reference)
    assert (oob.client_id, oob.card_reference, oob.amount) == (
        onus.ACS,
        cards.prepaid.masked,  # the cardholder's page shows the masked number
        Decimal("20.00"),
    )

    # Continue before approving: still waiting, nothing decided.
    waiting = shopper.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page)})
    assert "Not approved yet" in waiting.content.decode()

    # The cardholder approves in the app (the issuer's cardholder page), then continues.
    path = link.split("://", 1)[1].split("/", 1)[1]
    cardholder = Client()
    form = cardholder.get("/" + path).content.decode()
    assert "Approve" in form
    cardholder.post("/" + path, {"decision": "approve"})
    oob.refresh_from_db()
    assert oob.status == "SUCCESS"
    done = shopper.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page)})
    assert form_action_and_fields(done.content.decode(), "result-form")[0] == SHOPPER_RESULT_URL
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == APPROVED
    assert answer["threeDSecure"]["authenticationStatus"] == "Y"
    assert money.balances(card=Card.objects.get(pk=cards.prepaid.pk))["ledgerBalance"] == "480.00"


def test_a_rejection_in_the_app_fails_the_payment(payer, cards):
    shopper = Client()
    data = start(payer, cards.prepaid)
    page = open_redirect(shopper, data).content.decode()
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    path = re.search(r'id="app-link" href="[^"]+?(/issuer/oob/[^"]+)"', page).group(1)
    Client().post(path, {"decision": "reject"})
    shopper.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page)})
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == "100.380.401"
    assert money.balances(card=Card.objects.get(pk=cards.prepaid.pk))["ledgerBalance"] == "500.00"


def test_an_sms_cardholder_types_the_issuers_one_time_password(payer, cards):
    shopper = Client()
    data = start(payer, cards.debit)  # crd_demo_debit: channel SMS
    page = open_redirect(shopper, data).content.decode()
    assert "sent to +49*********78" in page
    code = re.search(r'id="simulator-code" data-code="(\d{6})"', page).group(1)
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    assert OTPChallenge.objects.get(pk=auth.issuer_reference).client_id == onus.ACS

    wrong = shopper.post(
        f"/threeds/acs/{auth.pk}/challenge",
        {"nonce": nonce_of(page), "otp": "000000" if code != "000000" else "111111"},
    )
    assert "2 attempt(s) left" in wrong.content.decode()
    shopper.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page), "otp": code})
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == APPROVED
    assert money.balances(card=Card.objects.get(pk=cards.debit.pk))["ledgerBalance"] == "2480.00"


def test_a_cardholder_without_a_channel_goes_frictionless(payer, cards):
    services.secure_register(card=cards.prepaid, channel="")
    data = start(payer, cards.prepaid)
    open_redirect(Client(), data)
    assert final(payer, data["id"])["result"]["code"] == APPROVED
    assert not OOBAuthentication.objects.exists()


def test_a_production_issuer_shows_no_code_on_the_challenge_page(payer, cards, settings):
    """SIMULATOR_SHOW_CODES=false (production): the code goes by SMS only, so the page shows no
    simulator code; the simulated ACS's 1234 is not a code of the platform's own cards."""
    settings.SIMULATOR_SHOW_CODES = False
    shopper = Client()
    data = start(payer, cards.debit)  # crd_demo_debit: channel SMS
    page = open_redirect(shopper, data).content.decode()
    assert "sent to +49*********78" in page
    assert 'id="simulator-code"' not in page and "Simulator:" not in page
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    wrong = shopper.post(
        f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page), "otp": "1234"}
    )
    assert "Wrong code. 2 attempt(s) left." in wrong.content.decode()


def simulator_code_of(page: str) -> str:
    return re.search(r'id="simulator-code" data-code="(\d{6})"', page).group(1)


def test_a_code_that_expired_before_the_challenge_did_is_sent_again(payer, cards):
    """The issuer's code lives 5 minutes, the challenge 10: the right code typed after the
    code's expiry is not a wrong code (it used to say "Wrong code. 3 attempt(s) left." for ever):
    the issuer sends a new one, which authenticates the payment."""
    shopper = Client()
    data = start(payer, cards.debit)  # crd_demo_debit: channel SMS
    page = open_redirect(shopper, data).content.decode()
    first = simulator_code_of(page)
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    first_otp = auth.issuer_reference
    OTPChallenge.objects.filter(pk=first_otp).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    again = shopper.post(
        f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page), "otp": first}
    )
    text = again.content.decode()
    assert again.status_code == 200
    assert "The code has expired. We sent you a new one." in text
    assert "Wrong code" not in text and "3 attempt(s) left" in text
    auth.refresh_from_db()
    assert auth.issuer_reference != first_otp and auth.state == "CHALLENGE"
    assert final(payer, data["id"])["result"]["code"] == "000.200.000"  # still pending

    shopper.post(
        f"/threeds/acs/{auth.pk}/challenge",
        {"nonce": nonce_of(text), "otp": simulator_code_of(text)},
    )
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == APPROVED
    assert (answer["threeDSecure"]["eci"], answer["threeDSecure"]["authenticationStatus"]) == (
        "05",
        "Y",
    )


def test_wrong_codes_count_across_a_new_code(payer, cards):
    """A new code does not give three more tries: two wrong codes, the code expires, a new one is
    sent, one more wrong code fails the authentication."""
    shopper = Client()
    data = start(payer, cards.debit)
    page = open_redirect(shopper, data).content.decode()
    code = simulator_code_of(page)
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(2):
        page = shopper.post(
            f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page), "otp": wrong}
        ).content.decode()
    assert "Wrong code. 1 attempt(s) left." in page
    OTPChallenge.objects.filter(pk=auth.issuer_reference).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    page = shopper.post(
        f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce_of(page), "otp": code}
    ).content.decode()
    assert "We sent you a new one." in page and "1 attempt(s) left" in page
    new = simulator_code_of(page)
    shopper.post(
        f"/threeds/acs/{auth.pk}/challenge",
        {"nonce": nonce_of(page), "otp": "000000" if new != "000000" else "111111"},
    )
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == "100.380.401"
    assert answer["threeDSecure"]["eci"] == "07"
