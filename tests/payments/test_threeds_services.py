"""3-D Secure state changes go through locked services: wrong one-time passwords are counted
exactly under concurrency, a finished authentication is refused with a refusal code, and a
payment's threeDSecure block comes from the payment itself, whatever the merchant's mode is now.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from core.errors import Conflict
from merchants.models import ThreeDSMode, ThreeDSStatus
from payments.models import Payment, ThreeDSAuthentication, ThreeDSState
from payments.threeds import services
from tests.conftest import SpecClient
from tests.factories import MerchantFactory
from tests.merchants.test_concurrency import race
from tests.payments.conftest import Payer
from tests.payments.test_threeds_flow import CHALLENGE, FRICTIONLESS, final, open_redirect, start
from tests.payments.threeds_helpers import nonce_of


def challenge(client, payer):
    data = start(payer, number=CHALLENGE)
    page = open_redirect(client, data).content.decode()
    return data, ThreeDSAuthentication.objects.get(payment_id=data["id"]), nonce_of(page)


def test_a_second_completion_is_refused_with_a_refusal_code(client, payer, enrolled):
    data, auth, _ = challenge(client, payer)
    services.threeds_complete(auth_id=auth.pk, outcome="Y")
    with pytest.raises(Conflict) as info:
        services.threeds_complete(auth_id=auth.pk, outcome=ThreeDSState.CANCELLED)
    assert info.value.result.code == "700.400.720"
    assert info.value.http_status == 409
    assert final(payer, data["id"])["result"]["code"] == "000.000.000"


def test_the_3ds_block_of_a_payment_made_in_mandatory_mode_survives_a_mode_switch(
    client, payer, enrolled
):
    enrolled.threeds_mode = ThreeDSMode.MANDATORY
    enrolled.save()
    fields = {"threeDSecure.indicator": None}
    response = payer.pay("DB", number=FRICTIONLESS, **_threeds(fields))
    data = response.json()
    assert data["result"]["code"] == "000.200.000"
    open_redirect(client, data)
    before = final(payer, data["id"])
    assert before["threeDSecure"]["eci"] == "05"

    enrolled.threeds_mode = ThreeDSMode.OPTIONAL
    enrolled.save()

    after = final(payer, data["id"])
    assert after["threeDSecure"] == before["threeDSecure"]
    assert after["result"]["code"] == "000.000.000"


def test_a_payment_without_3ds_gets_no_block_when_the_mode_becomes_mandatory(payer, enrolled):
    payment_id = payer.pay("DB").json()["id"]
    enrolled.threeds_mode = ThreeDSMode.MANDATORY
    enrolled.save()
    assert "threeDSecure" not in final(payer, payment_id)
    assert "redirect" not in final(payer, payment_id)


def _threeds(overrides):
    from tests.payments.threeds_helpers import threeds_fields

    fields = threeds_fields()
    for name, value in overrides.items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return fields


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("parallel", "attempts", "state"), [(2, 2, "CHALLENGE"), (6, 3, "FAILED")])
def test_parallel_wrong_codes_are_each_counted(parallel, attempts, state):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")
    merchant = MerchantFactory(threeds_status=ThreeDSStatus.ENROLLED)
    payer = Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )
    data, auth, nonce = challenge(Client(), payer)
    url = f"/threeds/acs/{auth.pk}/challenge"

    responses = race([lambda: Client().post(url, {"nonce": nonce, "otp": "0000"})] * parallel)

    auth.refresh_from_db()
    assert auth.otp_attempts == attempts
    assert auth.state == state
    statuses = sorted(r.status_code for r in responses)
    # Every wrong code up to the third is answered (the third with the failed result); any
    # later one finds the authentication ended: 409.
    assert statuses == [200] * min(parallel, 3) + [409] * max(parallel - 3, 0)
    if state == "FAILED":
        assert final(payer, data["id"])["result"]["code"] == "100.380.401"


def _late(auth):
    ThreeDSAuthentication.objects.filter(pk=auth.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_challenge_answered_after_its_lifetime_expires_instead_of_authorizing(
    client, payer, enrolled
):
    """Expiry is checked where the authentication is used: beat only tidies up (not running)."""
    data, auth, nonce = challenge(client, payer)
    _late(auth)
    client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "otp": "1234"})
    auth.refresh_from_db()
    assert auth.state == ThreeDSState.EXPIRED
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == "100.396.103"
    assert not Payment.objects.get(pk=data["id"]).successful


def test_a_frictionless_authentication_reached_after_its_lifetime_expires(client, payer, enrolled):
    data = start(payer, number=FRICTIONLESS)
    _late(ThreeDSAuthentication.objects.get(payment_id=data["id"]))
    open_redirect(client, data)
    assert final(payer, data["id"])["result"]["code"] == "100.396.103"


def test_a_challenge_page_reached_after_its_lifetime_shows_the_result(client, payer, enrolled):
    data = start(payer, number=CHALLENGE)
    _late(ThreeDSAuthentication.objects.get(payment_id=data["id"]))
    page = open_redirect(client, data).content.decode()
    assert 'name="otp"' not in page  # no challenge: the shopper goes back to the shop
    assert final(payer, data["id"])["result"]["code"] == "100.396.103"
