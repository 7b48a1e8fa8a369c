"""3-D Secure 2 through the pages, with Django's client (the browser walks are in tests/browser)."""

from decimal import Decimal

import pytest
from django.utils import timezone

from payments.models import Payment, ThreeDSAuthentication
from payments.threeds.services import threeds_expire
from tests.conftest import code, param_errors
from tests.payments.conftest import VISA
from tests.payments.threeds_helpers import (
    SHOPPER_RESULT_URL,
    form_action_and_fields,
    nonce_of,
    threeds_fields,
)

FRICTIONLESS, CHALLENGE, FAILED, ATTEMPTS, METHOD, V21 = (
    "4000000000001000",
    "4000000000001091",
    "4000000000001109",
    "4000000000001117",
    "4000000000001125",
    "4000000000001133",
)


def start(payer, number=VISA, kind="DB", amount="10.00", **overrides):
    response = payer.pay(kind, amount, number=number, **threeds_fields(**overrides))
    assert code(response) == "000.200.000", response.json()
    return response.json()


def open_redirect(client, data):
    url = data["redirect"]["url"]
    params = {p["name"]: p["value"] for p in data["redirect"]["parameters"]}
    return client.post(url.replace("http://testserver", ""), params)


def final(payer, payment_id):
    return payer.get(payment_id).json()


class TestStart:
    def test_pending_answer_with_redirect(self, payer, enrolled):
        data = start(payer)
        assert data["redirect"]["url"].startswith("http://testserver/threeds/")
        assert data["redirect"]["parameters"][0]["name"] == "threeDSSessionData"
        payment = Payment.objects.get(pk=data["id"])
        assert payment.result_code == "000.200.000" and not payment.successful
        assert final(payer, data["id"])["result"]["code"] == "000.200.000"

    def test_merchant_not_enrolled_is_refused(self, payer, merchant):
        response = payer.pay("DB", **threeds_fields())
        assert code(response) == "800.121.300"
        assert not ThreeDSAuthentication.objects.exists()

    def test_mandatory_merchant_goes_through_3ds_without_indicator(self, payer, enrolled):
        enrolled.threeds_mode = "MANDATORY"
        enrolled.save()
        fields = threeds_fields()
        fields.pop("threeDSecure.indicator")
        assert code(payer.pay("DB", **fields)) == "000.200.000"

    @pytest.mark.parametrize(
        "missing",
        [
            "shopperResultUrl",
            "customer.browser.acceptHeader",
            "customer.browser.language",
            "customer.browser.userAgent",
            "customer.browser.javascriptEnabled",
            "customer.browser.screenHeight",
            "billing.city",
            "customer.email",
        ],
    )
    def test_v2_data_is_required(self, payer, enrolled, missing):
        fields = threeds_fields()
        fields.pop(missing)
        response = payer.pay("DB", **fields)
        assert response.status_code == 400 and missing in param_errors(response)
        assert not Payment.objects.exists()

    def test_challenge_window_one_digit_is_echoed_as_two(self, payer, enrolled):
        data = start(payer, **{"customer.browser.challengeWindow": "3"})
        assert ThreeDSAuthentication.objects.get(payment_id=data["id"]).challenge_window == "03"

    def test_cardholder_history_is_kept(self, payer, enrolled):
        data = start(
            payer,
            **{
                "customParameters[ReqAuthMethod]": "02",
                "customParameters[AccountAgeIndicator]": "05",
            },
        )
        auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
        assert auth.cardholder_history == {"ReqAuthMethod": "02", "AccountAgeIndicator": "05"}

    def test_bad_cardholder_history_code_is_400(self, payer, enrolled):
        response = payer.pay("DB", **threeds_fields(**{"customParameters[ReqAuthMethod]": "09"}))
        assert "customParameters[ReqAuthMethod]" in param_errors(response)


class TestFrictionless:
    @pytest.mark.parametrize(
        ("number", "result", "eci", "status"),
        [
            (FRICTIONLESS, "000.000.000", "05", "Y"),
            (ATTEMPTS, "000.000.000", "06", "A"),
            (FAILED, "100.380.401", "07", "N"),
        ],
    )
    def test_outcomes(self, client, payer, enrolled, number, result, eci, status):
        data = start(payer, number=number)
        page = open_redirect(client, data)
        action, fields = form_action_and_fields(page.content.decode(), "result-form")
        assert action == SHOPPER_RESULT_URL
        assert fields == {"id": data["id"], "resourcePath": f"/pay/v3/payments/{data['id']}"}
        answer = final(payer, data["id"])
        assert answer["result"]["code"] == result
        three_ds = answer["threeDSecure"]
        assert (three_ds["eci"], three_ds["version"], three_ds["authenticationStatus"]) == (
            eci,
            "2.2.0",
            status,
        )
        assert len(three_ds["dsTransactionId"]) == 36 and len(three_ds["acsTransactionId"]) == 36
        assert ("verificationId" in three_ds) == (status != "N")

    def test_success_captures_a_debit(self, client, payer, enrolled):
        data = start(payer, number=FRICTIONLESS, amount="42.00")
        open_redirect(client, data)
        assert Payment.objects.get(pk=data["id"]).captured_amount == Decimal("42.00")

    def test_version_210_card(self, client, payer, enrolled):
        data = start(payer, number=V21)
        open_redirect(client, data)
        assert final(payer, data["id"])["threeDSecure"]["version"] == "2.1.0"

    def test_v21_needs_java_and_colour_depth_even_without_javascript(self, payer, enrolled):
        fields = threeds_fields(**{"customer.browser.javascriptEnabled": "false"})
        for name in ("customer.browser.javaEnabled", "customer.browser.screenColorDepth"):
            fields.pop(name)
        response = payer.pay("DB", number=V21, **fields)
        assert {"customer.browser.javaEnabled", "customer.browser.screenColorDepth"} <= set(
            param_errors(response)
        )

    def test_method_step_then_result(self, client, payer, enrolled):
        data = start(payer, number=METHOD)
        assert any(p["name"] == "threeDSMethodURL" for p in data["redirect"]["parameters"])
        page = open_redirect(client, data).content.decode()
        assert 'target="threeds-method"' in page and "/method" in page
        auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
        assert (
            client.post(
                f"/threeds/acs/{auth.pk}/method", {"threeDSMethodData": auth.pk}
            ).status_code
            == 200
        )
        auth.refresh_from_db()
        assert auth.method_completed
        client.post(f"/threeds/{auth.pk}/continue")
        assert final(payer, data["id"])["result"]["code"] == "000.000.000"


class TestChallenge:
    def challenge(self, client, payer, **overrides):
        data = start(payer, number=CHALLENGE, **overrides)
        page = open_redirect(client, data).content.decode()
        assert 'name="otp"' in page
        return data, ThreeDSAuthentication.objects.get(payment_id=data["id"]), nonce_of(page)

    def test_right_code(self, client, payer, enrolled):
        data, auth, nonce = self.challenge(client, payer)
        page = client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "otp": "1234"})
        assert form_action_and_fields(page.content.decode(), "result-form")[0] == SHOPPER_RESULT_URL
        assert final(payer, data["id"])["result"]["code"] == "000.000.000"

    def test_three_wrong_codes_fail(self, client, payer, enrolled):
        data, auth, nonce = self.challenge(client, payer)
        for left in (2, 1):
            page = client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "otp": "0000"})
            assert f"{left} attempt(s) left" in page.content.decode()
        client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "otp": "0000"})
        answer = final(payer, data["id"])
        assert answer["result"]["code"] == "100.380.401"
        assert answer["threeDSecure"]["eci"] == "07"

    def test_cancel(self, client, payer, enrolled):
        data, auth, nonce = self.challenge(client, payer)
        client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "action": "cancel"})
        assert final(payer, data["id"])["result"]["code"] == "100.396.101"

    def test_cannot_complete_twice(self, client, payer, enrolled):
        data, auth, nonce = self.challenge(client, payer)
        client.post(f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "otp": "1234"})
        again = client.post(
            f"/threeds/acs/{auth.pk}/challenge", {"nonce": nonce, "action": "cancel"}
        )
        assert again.status_code == 409
        assert final(payer, data["id"])["result"]["code"] == "000.000.000"

    def test_cannot_complete_another_payments_challenge(self, client, payer, enrolled):
        _, first, first_nonce = self.challenge(client, payer)
        data, second, _ = self.challenge(client, payer)
        response = client.post(
            f"/threeds/acs/{second.pk}/challenge", {"nonce": first_nonce, "otp": "1234"}
        )
        assert response.status_code == 403
        assert final(payer, data["id"])["result"]["code"] == "000.200.000"

    @pytest.mark.parametrize(
        ("overrides", "flow"),
        [
            ({"threeDSecure.challengeIndicator": "04"}, "CHALLENGE"),
            ({"threeDSecure.challengeIndicator": "02"}, "FRICTIONLESS"),
            ({"customParameters[3DS2_flow]": "challenge"}, "CHALLENGE"),
            ({"threeDSecure.amount": "600.00", "threeDSecure.currency": "EUR"}, "CHALLENGE"),
            ({}, "FRICTIONLESS"),
        ],
    )
    def test_the_decision(self, payer, enrolled, overrides, flow):
        data = start(payer, **overrides)
        assert ThreeDSAuthentication.objects.get(payment_id=data["id"]).flow == flow

    def test_a_large_amount_is_challenged(self, payer, enrolled):
        data = start(payer, amount="750.00")
        assert ThreeDSAuthentication.objects.get(payment_id=data["id"]).flow == "CHALLENGE"

    @pytest.mark.parametrize("window", ["01", "02", "03", "04", "05"])
    def test_page_size_per_challenge_window(self, client, payer, enrolled, window):
        _, auth, _ = self.challenge(client, payer, **{"customer.browser.challengeWindow": window})
        page = client.get(f"/threeds/{auth.pk}/start").content.decode()
        assert f'data-window="{window}"' in page
        sizes = {
            "01": "width: 250px",
            "02": "width: 390px",
            "03": "width: 500px",
            "04": "width: 600px",
        }
        if window == "05":
            assert 'class="frame full"' in page
        else:  # a class of the stylesheet (no inline style: the page's CSP allows none)
            assert f'class="frame window-{window}"' in page
            assert f".frame.window-{window} {{ {sizes[window]};" in page


class TestExpiry:
    def test_an_unfinished_authentication_expires(self, payer, enrolled):
        from payments.tasks import expire_threeds_authentications

        data = start(payer)
        assert expire_threeds_authentications.apply().get() == 0
        ThreeDSAuthentication.objects.filter(payment_id=data["id"]).update(
            expires_at=timezone.now()
        )
        assert threeds_expire() == 1
        assert final(payer, data["id"])["result"]["code"] == "100.396.103"


class TestPreAuthenticated:
    def fields(self, **overrides):
        return {
            "threeDSecure.indicator": "third",
            "threeDSecure.authenticationStatus": "Y",
            "threeDSecure.eci": "05",
            "threeDSecure.verificationId": "AAABBEg0VhI0VniQEjRWAAAAAAA=",
            "threeDSecure.dsTransactionId": "f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
            **overrides,
        }

    def test_forwarded_without_redirect(self, payer, merchant):
        data = payer.pay("DB", **self.fields()).json()
        assert data["result"]["code"] == "000.000.000" and "redirect" not in data
        assert data["threeDSecure"]["eci"] == "05"

    def test_failed_status_is_refused(self, payer, merchant):
        response = payer.pay("DB", **self.fields(**{"threeDSecure.authenticationStatus": "N"}))
        assert response.status_code == 400
        assert "threeDSecure.authenticationStatus" in param_errors(response)

    @pytest.mark.parametrize(
        "missing",
        [
            "threeDSecure.eci",
            "threeDSecure.verificationId",
            "threeDSecure.dsTransactionId",
            "threeDSecure.authenticationStatus",
        ],
    )
    def test_every_field_is_mandatory(self, payer, merchant, missing):
        fields = self.fields()
        fields.pop(missing)
        response = payer.pay("DB", **fields)
        assert response.status_code == 400 and missing in param_errors(response)


def test_admin_lists_authentications_read_only(admin_client, payer, enrolled):
    data = start(payer)
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    listing = admin_client.get("/admin/payments/threedsauthentication/")
    assert listing.status_code == 200 and auth.pk in listing.content.decode()
    page = admin_client.get(f"/admin/payments/threedsauthentication/{auth.pk}/change/")
    assert page.status_code == 200 and auth.nonce not in page.content.decode()
    assert admin_client.get("/admin/payments/threedsauthentication/add/").status_code == 403


def test_cardholder_history_dates_are_kept_as_sent(payer, enrolled):
    data = start(
        payer,
        **{
            "customParameters[AccountChangeDate]": "20240131",
            "customParameters[ReqAuthTimestamp]": "202401311230",
        },
    )
    history = ThreeDSAuthentication.objects.get(payment_id=data["id"]).cardholder_history
    assert history == {"AccountChangeDate": "20240131", "ReqAuthTimestamp": "202401311230"}
