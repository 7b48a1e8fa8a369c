"""Safer token rotation (issue 25): a rotation may let the old token keep working for an overlap
(none, 1 hour, 24 hours at most); the bearer authentication accepts it until then and answers
401 (800.900.300) after; notifications carry the new token at once; every rotation is in the
token history; the portal and the admin ask for confirmation first.

The clock is never waited for: a test moves the previous token's end into the past."""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from merchants import services
from merchants.models import Entity, EntityTokenChange, PortalUser
from merchants.portal_forms import token_problem
from merchants.selectors import entity_by_token
from tests.conftest import SpecClient, code
from tests.merchants.test_admin import MERCHANTS, change_url, run_action, text

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)
PASSWORD = "a long portal passphrase 7"


def inquiry(merchant: Any, token: str) -> Any:
    client = SpecClient(token, merchant.entity.entity_id, "MERCHANT")
    return client.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})


def works(merchant: Any, token: str) -> bool:
    response = inquiry(merchant, token)
    if response.status_code == 401:
        assert code(response) == "800.900.300"
        return False
    assert response.status_code == 200, response.json()
    return True


def end_overlap_now(entity: Entity) -> None:
    """The test clock: the previous token's end moved into the past, as if the time had come."""
    Entity.objects.filter(pk=entity.pk).update(
        previous_token_ends_at=timezone.now() - timedelta(seconds=1)
    )


# --- the service and the bearer authentication -------------------------------------------------


def test_without_overlap_the_old_token_stops_at_once(merchant):
    old = merchant.entity.plain_token

    new = services.entity_rotate_token(entity=merchant.entity, changed_by="staff:x")

    assert not works(merchant, old) and works(merchant, new)
    merchant.entity.refresh_from_db()
    assert (
        merchant.entity.previous_token_hash == "" and merchant.entity.previous_token_ends_at is None
    )
    [change] = EntityTokenChange.objects.all()
    assert change.old_token_ends_at == change.changed_at and change.kind == "ROTATED"


def test_the_old_token_works_until_the_overlap_ends_and_not_after(merchant):
    old = merchant.entity.plain_token
    before = timezone.now()

    new = services.entity_rotate_token(entity=merchant.entity, overlap=HOUR, changed_by="staff:x")

    entity = Entity.objects.get(pk=merchant.entity.pk)
    assert before + HOUR <= entity.previous_token_ends_at <= timezone.now() + HOUR
    assert entity.previous_token_last4 == old[-4:] and entity.token_last4 == new[-4:]
    assert works(merchant, old) and works(merchant, new)
    end_overlap_now(entity)
    assert not works(merchant, old)
    assert works(merchant, new)


def test_the_previous_token_is_answered_as_its_entity_for_any_call(merchant, participator):
    """The previous token authenticates as the same entity, with the same rights (a participator
    acting for its merchant too), and a deactivated entity's previous token is refused."""
    old = participator.plain_token
    services.entity_rotate_token(entity=participator, overlap=HOUR)
    client = SpecClient(old, participator.entity_id, "PARTICIPATOR")
    assert (
        client.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id}).status_code
        == 200
    )
    services.entity_update(entity=participator, is_active=False)
    answer = client.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert answer.status_code == 401 and code(answer) == "800.900.300"


def test_a_second_rotation_during_the_overlap_ends_the_first_old_token(merchant):
    first = merchant.entity.plain_token
    second = services.entity_rotate_token(entity=merchant.entity, overlap=HOUR, changed_by="a")

    third = services.entity_rotate_token(entity=merchant.entity, overlap=HOUR, changed_by="b")

    assert not works(merchant, first)
    assert works(merchant, second) and works(merchant, third)
    latest = EntityTokenChange.objects.first()
    assert (latest.old_last4, latest.new_last4, latest.cut_short_last4) == (
        second[-4:],
        third[-4:],
        first[-4:],
    )
    assert latest.changed_by == "b" and latest.overlap == HOUR


def test_notifications_carry_the_new_token_during_the_overlap(merchant):
    services.entity_rotate_token(entity=merchant.entity, overlap=HOUR)
    new = services.entity_rotate_token(entity=merchant.entity, overlap=24 * HOUR)

    assert services.notification_credentials(str(merchant.entity.pk)) == new


@pytest.mark.parametrize("overlap", [timedelta(hours=24, seconds=1), timedelta(seconds=-1)])
def test_an_overlap_beyond_24_hours_or_negative_is_refused(merchant, overlap):
    old = merchant.entity.plain_token
    with pytest.raises(ValueError, match="overlap"):
        services.entity_rotate_token(entity=merchant.entity, overlap=overlap)
    assert entity_by_token(old) == merchant.entity and not EntityTokenChange.objects.exists()


def test_the_previous_token_can_be_ended_early(merchant):
    old = merchant.entity.plain_token
    services.entity_rotate_token(entity=merchant.entity, overlap=24 * HOUR)

    assert services.entity_end_previous_token(entity=merchant.entity, changed_by="portal:ann")

    assert not works(merchant, old)
    ended = EntityTokenChange.objects.first()
    assert (ended.kind, ended.old_last4, ended.changed_by) == ("ENDED", old[-4:], "portal:ann")
    assert not services.entity_end_previous_token(entity=merchant.entity, changed_by="x")
    assert EntityTokenChange.objects.count() == 2


def test_a_chosen_token_may_not_be_a_previous_token_still_working(merchant):
    chosen = "Zq8#mW2$rT5&yU9*pL3@kH7!cV1^bN4%xJ6"
    services.entity_rotate_token(entity=merchant.entity, token=chosen)
    services.entity_rotate_token(entity=merchant.entity, overlap=HOUR)
    assert token_problem(chosen) == "is in use: choose another"
    assert EntityTokenChange.objects.last().kind == "SET"


# --- the portal: Developers ----------------------------------------------------------------------


@pytest.fixture
def signed_in(client, merchant):
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    assert (
        client.post("/portal/login/", {"username": "shop-admin", "password": PASSWORD}).status_code
        == 302
    )
    return client


def test_the_portal_asks_before_rotating(signed_in, merchant):
    old = merchant.entity.plain_token

    asked = signed_in.post("/portal/developers/", {"action": "rotate"})

    page = text(asked)
    assert asked.status_code == 200 and "Rotate the API token?" in page
    assert "1 hour" in page and "24 hours" in page and 'id="rotate-confirm"' in page
    assert 'id="new-token"' not in page
    assert works(merchant, old) and not EntityTokenChange.objects.exists()


def test_the_portal_rotates_with_an_overlap_and_shows_its_end(signed_in, merchant):
    old = merchant.entity.plain_token

    rotated = signed_in.post(
        "/portal/developers/",
        {"action": "rotate", "confirm": "yes", "overlap": "3600", "password": PASSWORD},
    )

    assert rotated.status_code == 200 and rotated["Cache-Control"] == "no-store"
    new = re.search(r'<code id="new-token">([^<]+)</code>', text(rotated)).group(1)
    entity = Entity.objects.get(pk=merchant.entity.pk)
    until = f"{entity.previous_token_ends_at:%Y-%m-%d %H:%M} UTC"
    page = text(signed_in.get("/portal/developers/"))
    assert f"…{old[-4:]}" in page and until in page and "keeps working until" in page
    assert "portal:shop-admin" in page  # the token history
    assert new not in page and old not in page
    assert works(merchant, old) and works(merchant, new)
    end_overlap_now(entity)
    page = text(signed_in.get("/portal/developers/"))
    assert 'id="previous-token"' not in page  # over: no longer offered as working
    assert not works(merchant, old)


def test_the_portal_ends_the_previous_token_on_request(signed_in, merchant):
    old = merchant.entity.plain_token
    signed_in.post(
        "/portal/developers/",
        {"action": "rotate", "confirm": "yes", "overlap": "86400", "password": PASSWORD},
    )

    done = signed_in.post("/portal/developers/", {"action": "end-previous"}, follow=True)

    assert "The previous token no longer works" in text(done)
    assert not works(merchant, old)


def test_the_portal_refuses_an_overlap_it_does_not_offer(signed_in, merchant):
    old = merchant.entity.plain_token

    refused = signed_in.post(
        "/portal/developers/", {"action": "rotate", "confirm": "yes", "overlap": "172800"}
    )

    assert refused.status_code == 400 and "Choose how long" in text(refused)
    assert works(merchant, old) and not EntityTokenChange.objects.exists()


def test_the_portal_sets_a_chosen_token_with_an_overlap(signed_in, merchant):
    old = merchant.entity.plain_token
    chosen = "Zq8#mW2$rT5&yU9*pL3@kH7!cV1^bN4%xJ6"

    done = signed_in.post(
        "/portal/developers/",
        {"action": "set", "token": chosen, "overlap": "3600", "password": PASSWORD},
    )

    assert done.status_code == 200 and "keeps working until" in text(done)
    assert works(merchant, old) and works(merchant, chosen)


# --- the admin -----------------------------------------------------------------------------------


def test_the_admin_rotation_asks_for_the_overlap_and_records_it(admin_client, merchant):
    old = merchant.entity.plain_token

    asked = run_action(admin_client, MERCHANTS, "rotate_merchant_token", [merchant])
    assert "24 hours" in text(asked) and works(merchant, old)
    done = run_action(admin_client, MERCHANTS, "rotate_merchant_token", [merchant], overlap="86400")

    page = text(done)
    assert f"the old token …{old[-4:]} keeps working until" in page
    assert works(merchant, old)
    change = EntityTokenChange.objects.get()
    assert change.merchant == merchant and change.changed_by == "staff:admin"
    assert change.overlap == 24 * HOUR
    merchant_page = text(admin_client.get(change_url(merchant)))
    assert "token history" in merchant_page.lower() and "staff:admin" in merchant_page
    assert f"…{old[-4:]}, works until" in merchant_page
    assert "token history" in text(admin_client.get(change_url(merchant.entity))).lower()


def test_the_admin_refuses_an_overlap_it_does_not_offer(admin_client, merchant):
    old = merchant.entity.plain_token

    again = run_action(
        admin_client, MERCHANTS, "rotate_merchant_token", [merchant], overlap="90000"
    )

    assert "Rotate API tokens" in text(again)  # the form again, with the problem
    assert works(merchant, old) and not EntityTokenChange.objects.exists()


# --- the password, typed again --------------------------------------------------------------------


@pytest.mark.parametrize("password", [None, "", "not the password"])
@pytest.mark.parametrize(
    "form",
    [
        {"action": "rotate", "confirm": "yes", "overlap": "0"},
        {"action": "rotate", "confirm": "yes", "overlap": "3600"},
        {"action": "set", "token": "Zq8#mW2$rT5&yU9*pL3@kH7!cV1^bN4%xJ6", "overlap": "0"},
    ],
    ids=["rotate-stop-now", "rotate-overlap", "set"],
)
def test_a_token_change_needs_the_password_again(signed_in, merchant, form, password):
    """A session alone (a browser left open, a stolen cookie) cannot obtain a working token."""
    old = merchant.entity.plain_token
    if password is not None:
        form = {**form, "password": password}

    refused = signed_in.post("/portal/developers/", form)

    assert refused.status_code == 400
    assert "Enter your password to change the API token." in text(refused)
    assert 'id="new-token"' not in text(refused)
    assert works(merchant, old) and not EntityTokenChange.objects.exists()


def test_wrong_passwords_count_as_failed_sign_ins(signed_in, merchant, settings):
    """Typed again through `authenticate`: django-axes counts each wrong one, and locks the user
    out after AXES_FAILURE_LIMIT, as at the login page."""
    from axes.models import AccessAttempt

    form = {"action": "rotate", "confirm": "yes", "overlap": "0"}
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert signed_in.post("/portal/developers/", {**form, "password": "x"}).status_code == 400
    assert AccessAttempt.objects.get().failures_since_start == settings.AXES_FAILURE_LIMIT - 1
    locked = signed_in.post("/portal/developers/", {**form, "password": "x"})
    assert locked.status_code == 403 and "Too many failed sign-ins" in text(locked)
    # Locked: even the right password changes nothing now.
    signed_in.post("/portal/developers/", {**form, "password": PASSWORD})
    assert works(merchant, merchant.entity.plain_token)
    assert not EntityTokenChange.objects.exists()


def test_a_csrf_cookie_planted_after_login_carries_no_valid_token(merchant):
    """CSRF_USE_SESSIONS: the token is in the session; a `csrftoken` cookie set by someone else
    (a sibling subdomain, plain HTTP) with a matching form field is refused."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    user = User.objects.create_user("shop-admin", password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    login = browser.get("/portal/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(login)).group(1)
    signed = browser.post(
        "/portal/login/",
        {"username": "shop-admin", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert signed.status_code == 302
    assert "csrftoken" not in browser.cookies  # none is handed out at all

    planted = "A" * 32
    browser.cookies["csrftoken"] = planted
    forged = browser.post(
        "/portal/developers/",
        {"action": "notification", "notification_url": "https://evil.example/n",
         "csrfmiddlewaretoken": planted},
    )  # fmt: skip
    assert forged.status_code == 403
    merchant.refresh_from_db()
    assert merchant.notification_url != "https://evil.example/n"

    # The page's own token (from the session) still works.
    page = browser.get("/portal/developers/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(page)).group(1)
    saved = browser.post(
        "/portal/developers/",
        {"action": "notification", "notification_url": "https://shop.example.com/n",
         "csrfmiddlewaretoken": token},
    )  # fmt: skip
    assert saved.status_code == 200
    merchant.refresh_from_db()
    assert merchant.notification_url == "https://shop.example.com/n"
