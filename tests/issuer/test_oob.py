"""Out-of-band authentications end to end (StartOOBAuthen -> the cardholder's page ->
OOBResultInquiry), their expiry (the Celery task), and one-time passwords (SendOTP, VerifyOTP)."""

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from issuer import services as oob
from issuer.cards.models import Card
from issuer.models import OOBAuthentication, OOBStatus, OTPChallenge
from issuer.tasks import expire_oob_authentications
from tests.issuer.conftest import issue_cards
from tests.issuer.test_api import (
    ALL_SCOPES,
    INQUIRY,
    SEND_OTP,
    START,
    SUCCESS,
    VERIFY_OTP,
    Api,
    start_payload,
)
from tests.merchants.test_concurrency import race

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(issuer_keys, make_requestor) -> Api:
    return Api(make_requestor("oob-client", scopes=ALL_SCOPES))


def start(api: Api, **overrides) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """(authenticationId, the cardholder page's path)."""
    answer = api.call(START, start_payload(**overrides))
    assert answer["result"]["code"] == SUCCESS
    return answer["authenticationId"], urlsplit(answer["cardholderUrl"]).path


def status_of(api: Api, authentication_id: str) -> dict:  # type: ignore[type-arg]
    answer = api.call(INQUIRY, {"authenticationId": authentication_id})
    assert answer["result"]["code"] == SUCCESS
    return answer


def expire_now(authentication_id: str) -> None:
    OOBAuthentication.objects.filter(pk=authentication_id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


# --- the cardholder's page -------------------------------------------------------------------


def test_approve_end_to_end(api):
    auth_id, page = start(api, merchantName="Corner Café", amount="42.50", currency="USD")
    cardholder = Client(enforce_csrf_checks=True)
    shown = cardholder.get(page)
    assert shown.status_code == 200
    html = shown.content.decode()
    card = Card.objects.get(client_id="oob-client", reference="411111******1111")
    for text in (
        "Corner Café",
        "42.50 USD",
        card.masked,  # the card's own number, masked (the reference only looks like one)
        'value="approve"',
        'value="reject"',
    ):
        assert text in html
    assert shown["Referrer-Policy"] == "no-referrer"
    assert shown["Cache-Control"] == "no-store"
    # No CSRF cookie or token: the link's secret is the credential (tests/issuer/test_oob_page.py).
    answered = cardholder.post(page, {"decision": "approve"})
    assert answered.status_code == 200
    assert "Payment approved" in answered.content.decode()
    answer = status_of(api, auth_id)
    assert answer["status"] == "SUCCESS"
    assert answer["decidedAt"].endswith("+0000")


@pytest.mark.parametrize("reference", ["tok_abc123", "crd_demo_prepaid"])
def test_the_page_names_the_card_by_its_masked_number(api, reference):
    """Issue 25: a requestor names the card by its own cardReference; the cardholder sees the
    masked number, never the internal reference."""
    issue_cards("oob-client", (reference,))
    _, page = start(api, cardReference=reference)
    html = Client().get(page).content.decode()
    card = Card.objects.get(client_id="oob-client", reference=reference)
    assert f'<dd id="card">{card.masked}</dd>' in html
    assert reference not in html


def test_reject_end_to_end(api, client):
    auth_id, page = start(api)
    response = client.post(page, {"decision": "reject"})
    assert response.status_code == 200 and "Payment rejected" in response.content.decode()
    assert status_of(api, auth_id)["status"] == "REJECTED"


def test_answering_twice_changes_nothing(api, client):
    auth_id, page = start(api)
    client.post(page, {"decision": "reject"})
    decided_at = OOBAuthentication.objects.get(pk=auth_id).decided_at
    again = client.post(page, {"decision": "approve"})
    assert again.status_code == 409
    assert (
        "already rejected" in again.content.decode()
        and "Nothing was changed" in again.content.decode()
    )
    shown = client.get(page)
    assert (
        shown.status_code == 409
        and "approve" not in shown.content.decode().lower().split("<body>")[1]
    )
    auth = OOBAuthentication.objects.get(pk=auth_id)
    assert auth.status == OOBStatus.REJECTED and auth.decided_at == decided_at


def test_a_page_without_the_secret_or_with_another_one(api, client):
    auth_id, page = start(api)
    other_id, other_page = start(api)
    secret = page.rsplit("/", 1)[1]
    other_secret = other_page.rsplit("/", 1)[1]
    for path in (
        f"/issuer/oob/{auth_id}/{other_secret}",  # another authentication's secret
        f"/issuer/oob/{auth_id}/{secret[:-1]}",
        f"/issuer/oob/{auth_id}/x",
        f"/issuer/oob/{'0' * 32}/{secret}",
    ):
        assert client.get(path).status_code == 404
        assert client.post(path, {"decision": "approve"}).status_code == 404
    assert OOBAuthentication.objects.filter(status=OOBStatus.PENDING).count() == 2


def test_an_unknown_decision(api, client):
    auth_id, page = start(api)
    assert client.post(page, {"decision": "maybe"}).status_code == 400
    assert OOBAuthentication.objects.get(pk=auth_id).status == OOBStatus.PENDING


# --- expiry ---------------------------------------------------------------------------------


def test_the_task_expires_pending_authentications(api, client):
    expired_id, expired_page = start(api)
    live_id, _ = start(api)
    answered_id, answered_page = start(api)
    client.post(answered_page, {"decision": "approve"})
    expire_now(expired_id)
    expire_now(answered_id)
    # apply() runs the task here, as a worker would, with or without a broker configured.
    assert expire_oob_authentications.apply().get() == 1
    assert status_of(api, expired_id)["status"] == "EXPIRED"
    assert status_of(api, live_id)["status"] == "PENDING"
    assert status_of(api, answered_id)["status"] == "SUCCESS"
    assert expire_oob_authentications() == 0
    # The cardholder comes back too late: a clear message, nothing changes.
    response = client.post(expired_page, {"decision": "approve"})
    assert response.status_code == 410 and "expired" in response.content.decode()
    assert status_of(api, expired_id)["status"] == "EXPIRED"


def test_an_answer_after_the_expiry_before_the_task_ran(api, client):
    auth_id, page = start(api)
    expire_now(auth_id)
    shown = client.get(page)
    assert shown.status_code == 410 and "expired" in shown.content.decode()
    assert (
        OOBAuthentication.objects.get(pk=auth_id).status == OOBStatus.PENDING
    )  # GET writes nothing
    response = client.post(page, {"decision": "approve"})
    assert response.status_code == 410
    assert OOBAuthentication.objects.get(pk=auth_id).status == OOBStatus.EXPIRED


def test_the_service_says_an_overdue_authentication_is_expired_and_writes_nothing(api):
    """issuer.services.oob_status_at owns "PENDING past its expiry is EXPIRED" (the page's GET
    used to set it on the row in the view): at the expiry and after it EXPIRED, a second
    before it PENDING, a final status as it is; the row is left as it was."""
    auth_id, _ = start(api, expiry=60)
    auth = OOBAuthentication.objects.get(pk=auth_id)
    deadline = auth.expires_at

    assert oob.oob_status_at(auth, deadline - timedelta(seconds=1)) == OOBStatus.PENDING
    assert oob.oob_status_at(auth, deadline) == OOBStatus.EXPIRED
    assert oob.oob_status_at(auth, deadline + timedelta(days=1)) == OOBStatus.EXPIRED
    assert auth.status == OOBStatus.PENDING
    assert OOBAuthentication.objects.get(pk=auth_id).status == OOBStatus.PENDING
    decided = oob.oob_decide(authentication_id=auth_id, status=OOBStatus.REJECTED)
    assert oob.oob_status_at(decided, deadline + timedelta(days=1)) == OOBStatus.REJECTED


def test_the_inquiry_reports_an_overdue_authentication_as_expired(api):
    auth_id, _ = start(api)
    expire_now(auth_id)
    answer = status_of(api, auth_id)
    assert answer["status"] == "EXPIRED" and "decidedAt" in answer


def test_default_and_custom_expiry(api):
    auth_id, _ = start(api)
    auth = OOBAuthentication.objects.get(pk=auth_id)
    assert abs((auth.expires_at - auth.created_at).total_seconds() - 300) < 2
    auth_id, _ = start(api, expiry="900")
    auth = OOBAuthentication.objects.get(pk=auth_id)
    assert abs((auth.expires_at - auth.created_at).total_seconds() - 900) < 2


def test_final_states_never_move(api):
    auth_id, _ = start(api)
    oob.oob_decide(authentication_id=auth_id, status=OOBStatus.CANCELLED)
    for status in OOBStatus.values:
        with pytest.raises(oob.OOBAlreadyDecided):
            oob.oob_decide(authentication_id=auth_id, status=status)
    assert status_of(api, auth_id)["status"] == "CANCELLED"


def test_the_database_refuses_a_decision_without_a_time(api):
    from django.db import IntegrityError, transaction

    auth_id, _ = start(api)
    with pytest.raises(IntegrityError), transaction.atomic():
        OOBAuthentication.objects.filter(pk=auth_id).update(status=OOBStatus.SUCCESS)


# --- one-time passwords ---------------------------------------------------------------------


def send(api: Api, channel: str = "SMS") -> tuple[str, str]:
    answer = api.call(
        SEND_OTP, {"cardReference": "tok_abc123", "transactionId": "txn-9", "channel": channel}
    )
    assert answer["result"]["code"] == SUCCESS
    return answer["otpId"], answer["simulatorCode"]


def verify(api: Api, otp_id: str, code: str) -> dict:  # type: ignore[type-arg]
    return api.call(VERIFY_OTP, {"otpId": otp_id, "code": code})


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def test_otp_right_code_once(api):
    otp_id, code = send(api, "EMAIL")
    assert verify(api, otp_id, code)["verified"] is True
    again = verify(api, otp_id, code)
    assert again["verified"] is False and again["result"]["code"] == "700.400.710"


def test_otp_three_wrong_codes_block_it(api):
    otp_id, code = send(api)
    first = verify(api, otp_id, wrong(code))
    assert first["result"]["code"] == "100.380.410"
    assert (first["verified"], first["attemptsLeft"]) == (False, 2)
    assert verify(api, otp_id, wrong(code))["attemptsLeft"] == 1
    third = verify(api, otp_id, wrong(code))
    assert third["result"]["code"] == "100.380.411"
    assert (third["verified"], third["attemptsLeft"]) == (False, 0)
    # Even the right code is refused now, and no attempt is counted beyond three.
    late = verify(api, otp_id, code)
    assert late["verified"] is False and late["result"]["code"] == "100.380.411"
    assert OTPChallenge.objects.get(pk=otp_id).attempts == 3


def test_otp_right_code_after_two_wrong_ones(api):
    otp_id, code = send(api)
    verify(api, otp_id, wrong(code))
    verify(api, otp_id, wrong(code))
    answer = verify(api, otp_id, code)
    assert answer["verified"] is True and answer["attemptsLeft"] == 1


def test_otp_expiry(api):
    otp_id, code = send(api)
    OTPChallenge.objects.filter(pk=otp_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    answer = verify(api, otp_id, code)
    assert answer["verified"] is False and answer["result"]["code"] == "100.396.104"
    assert OTPChallenge.objects.get(pk=otp_id).attempts == 0


def test_otp_lifetime(api):
    otp_id, _ = send(api)
    otp = OTPChallenge.objects.get(pk=otp_id)
    assert abs((otp.expires_at - otp.created_at).total_seconds() - oob.OTP_SECONDS) < 2


def test_otp_codes_are_stored_only_as_keyed_hashes(api):
    otp_id, code = send(api)
    row = OTPChallenge.objects.filter(pk=otp_id).values().get()
    assert all(code not in str(value) for value in row.values())


def test_the_simulator_code_can_be_switched_off(api, settings):
    settings.SIMULATOR_SHOW_CODES = False
    answer = api.call(
        SEND_OTP, {"cardReference": "tok_abc123", "transactionId": "t", "channel": "SMS"}
    )
    assert answer["result"]["code"] == SUCCESS and "simulatorCode" not in answer


# --- races (PostgreSQL: real row locks) -----------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_answers_decide_once(issuer_keys, make_requestor):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")
    api = Api(make_requestor("oob-client", scopes=ALL_SCOPES))
    auth_id, page = start(api)
    decisions = ["approve", "reject"] * 4
    responses = race([lambda d=d: Client().post(page, {"decision": d}) for d in decisions])
    assert sorted(r.status_code for r in responses).count(200) == 1
    assert OOBAuthentication.objects.get(pk=auth_id).status in (
        OOBStatus.SUCCESS,
        OOBStatus.REJECTED,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_wrong_codes_never_exceed_three_attempts(issuer_keys, make_requestor):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")
    api = Api(make_requestor("oob-client", scopes=ALL_SCOPES))
    otp_id, code = send(api)
    outcomes = race(
        [
            lambda: oob.otp_verify(client_id="oob-client", otp_id=otp_id, code=wrong(code))
            for _ in range(8)
        ]
    )
    assert sorted(o.result.code for o in outcomes).count("100.380.410") == 2
    assert OTPChallenge.objects.get(pk=otp_id).attempts == 3


def test_oob_and_otp_admin_pages_load_read_only(admin_client):
    for name in ("oobauthentication", "otpchallenge"):
        assert admin_client.get(f"/admin/issuer/{name}/").status_code == 200
        assert admin_client.get(f"/admin/issuer/{name}/add/").status_code == 403


def test_the_expiry_task_is_registered_and_scheduled(settings):
    from config.celery import app

    app.loader.import_default_modules()
    assert "issuer.expire_oob_authentications" in app.tasks
    assert "issuer.purge_used_assertions" in app.tasks
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"issuer.expire_oob_authentications", "issuer.purge_used_assertions"} <= tasks
