"""Bank staff onboard a merchant's portal users (issue 23): the services, the inline on the
merchant's admin page, the `portal_user` command, and what the portal does with a one-time
password, a deactivated user and a reset password."""

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from core.errors import ApplicationError
from merchants import services
from merchants.models import PortalUser, PortalUserChange
from tests.factories import MerchantFactory
from tests.merchants.test_admin import change_form_data, change_url, text

pytestmark = pytest.mark.django_db
STAFF = "staff:admin"  # pytest-django's admin_client user is "admin"
OWN_PASSWORD = "a long portal passphrase 7"


def counts() -> tuple[int, int, int]:
    return User.objects.count(), PortalUser.objects.count(), PortalUserChange.objects.count()


def actions(merchant: Any) -> list[tuple[str, str, str]]:
    return [
        (c.username, c.action, c.changed_by)
        for c in PortalUserChange.objects.filter(merchant=merchant).order_by("id")
    ]


@pytest.fixture
def other(participator):
    return MerchantFactory(participator=participator)


# --- services ----------------------------------------------------------------------------------


def test_create_binds_a_new_user_to_the_merchant_with_a_one_time_password(merchant):
    portal_user, password = services.portal_user_create(
        merchant=merchant, email="  Ann@Shop.Example ", changed_by=STAFF
    )

    user = User.objects.get(username="ann@shop.example")
    assert portal_user.user == user and portal_user.merchant == merchant
    assert user.email == "ann@shop.example" and user.is_active
    assert not user.is_staff and not user.is_superuser
    assert user.check_password(password) and len(password) >= 16
    assert portal_user.must_change_password
    assert password not in user.password  # only the hash is kept
    assert actions(merchant) == [("ann@shop.example", "CREATED", STAFF)]


@pytest.mark.parametrize(
    ("existing", "said"),
    [
        ("staff", "is a bank staff user"),
        ("superuser", "is a bank staff user"),
        ("other-merchant", "is already a portal user of merchant"),
        ("same-merchant", "is already a portal user of merchant"),
        ("plain", "with this email already exists"),
        ("plain-by-email", "with this email already exists"),
    ],
)
def test_create_never_attaches_an_existing_user(merchant, other, existing, said):
    email = "ann@shop.example"
    if existing == "staff":
        User.objects.create_user(email, email=email, is_staff=True)
    elif existing == "superuser":
        User.objects.create_superuser("root", email=email)
    elif existing in ("other-merchant", "same-merchant"):
        owner = other if existing == "other-merchant" else merchant
        services.portal_user_create(merchant=owner, email=email, changed_by=STAFF)
    elif existing == "plain":
        User.objects.create_user(email)
    else:
        User.objects.create_user("ann", email=email.upper())
    before = counts()

    with pytest.raises(ApplicationError) as refused:
        services.portal_user_create(merchant=merchant, email=email.upper(), changed_by=STAFF)

    assert said in refused.value.description
    assert refused.value.result.code == "200.300.405"
    assert counts() == before  # nothing written


def test_create_refuses_a_malformed_email(merchant):
    with pytest.raises(ApplicationError, match="valid email"):
        services.portal_user_create(merchant=merchant, email="not-an-email", changed_by=STAFF)
    assert counts() == (0, 0, 0)


def test_deactivate_and_reactivate_with_history(merchant):
    portal_user, _ = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )

    assert services.portal_user_set_active(portal_user=portal_user, active=False, changed_by=STAFF)
    assert not User.objects.get(pk=portal_user.user_id).is_active
    assert not services.portal_user_set_active(
        portal_user=portal_user, active=False, changed_by=STAFF
    )  # already: nothing recorded
    assert services.portal_user_set_active(
        portal_user=portal_user, active=True, changed_by="staff:bob"
    )
    assert User.objects.get(pk=portal_user.user_id).is_active
    assert [a for _, a, _ in actions(merchant)] == ["CREATED", "DEACTIVATED", "ACTIVATED"]
    assert actions(merchant)[-1][2] == "staff:bob"


def test_reset_password_replaces_the_password(merchant):
    portal_user, first = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )
    services.portal_user_password_changed(portal_user=portal_user)

    second = services.portal_user_reset_password(portal_user=portal_user, changed_by=STAFF)

    user = User.objects.get(pk=portal_user.user_id)
    assert second != first and user.check_password(second) and not user.check_password(first)
    assert PortalUser.objects.get(pk=portal_user.pk).must_change_password
    assert actions(merchant)[-1] == ("ann@shop.example", "PASSWORD_RESET", STAFF)


# --- the admin: the merchant page's inline -----------------------------------------------------

PREFIX = "portal_users"


def inline_post(admin_client: Any, merchant: Any, **fields: Any) -> Any:
    """The merchant's change page posted back as a browser would, with `fields` changed
    (names without the inline's prefix: `0-email`)."""
    data = change_form_data(admin_client.get(change_url(merchant)))
    for name, value in fields.items():
        data[f"{PREFIX}-{name}"] = value
    return admin_client.post(change_url(merchant), data, follow=True)


def shown_password(response: Any) -> str:
    [message] = [str(m) for m in response.context["messages"] if "one-time password" in str(m)]
    return message.split(": ", 1)[1].split(" — ", 1)[0]


def test_the_merchant_page_lists_its_portal_users_and_their_history(admin_client, merchant):
    services.portal_user_create(merchant=merchant, email="ann@shop.example", changed_by="staff:x")

    page = text(admin_client.get(change_url(merchant)))

    assert "portal users" in page.lower() and 'value="ann@shop.example"' in page
    assert "one-time (not yet changed)" in page
    assert "portal user history" in page.lower() and "staff:x" in page


def test_staff_create_a_portal_user_on_the_merchant_page(admin_client, merchant):
    response = inline_post(admin_client, merchant, **{"0-email": "Ann@Shop.example"})

    assert response.status_code == 200 and response.redirect_chain
    portal_user = PortalUser.objects.get()
    assert portal_user.merchant == merchant
    assert portal_user.user.username == "ann@shop.example"
    password = shown_password(response)
    assert f"portal user ann@shop.example of merchant {merchant.merchant_id}" in text(response)
    assert portal_user.user.check_password(password)
    assert actions(merchant) == [("ann@shop.example", "CREATED", STAFF)]
    assert password not in text(admin_client.get(change_url(merchant)))  # shown once


def test_the_merchant_is_fixed_a_tampered_parent_is_refused(admin_client, merchant, other):
    response = inline_post(
        admin_client,
        merchant,
        **{"0-email": "ann@shop.example", "0-merchant": str(other.pk)},
    )

    assert not PortalUser.objects.filter(merchant=other).exists()
    assert set(PortalUser.objects.values_list("merchant_id", flat=True)) <= {merchant.pk}
    assert response.status_code == 200


@pytest.mark.parametrize("whose", ["staff", "other-merchant"])
def test_the_inline_refuses_staff_and_another_merchants_user(admin_client, merchant, other, whose):
    if whose == "staff":
        User.objects.create_user("clerk@bank.example", email="clerk@bank.example", is_staff=True)
        email, said = "clerk@bank.example", "is a bank staff user"
    else:
        services.portal_user_create(merchant=other, email="bob@other.example", changed_by=STAFF)
        email, said = "bob@other.example", f"already a portal user of merchant {other.merchant_id}"
    before = counts()

    response = inline_post(admin_client, merchant, **{"0-email": email, "0-city": "x"})

    assert response.status_code == 200 and not response.redirect_chain  # the form again
    assert said in text(response)
    assert counts() == before
    assert not PortalUser.objects.filter(merchant=merchant).exists()


def test_a_refusal_rolls_back_the_merchants_other_changes(admin_client, merchant, other):
    services.portal_user_create(merchant=other, email="bob@other.example", changed_by=STAFF)
    data = change_form_data(admin_client.get(change_url(merchant)))
    data.update({"city": "Hamburg", f"{PREFIX}-0-email": "bob@other.example"})

    admin_client.post(change_url(merchant), data)

    merchant.refresh_from_db()
    assert merchant.city == "Berlin"


def test_staff_deactivate_reactivate_and_reset_on_the_merchant_page(admin_client, merchant):
    portal_user, first = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by="staff:x"
    )

    inline_post(admin_client, merchant, **{"0-active": ""})
    assert not User.objects.get(pk=portal_user.user_id).is_active
    inline_post(admin_client, merchant, **{"0-active": "on"})
    assert User.objects.get(pk=portal_user.user_id).is_active
    response = inline_post(admin_client, merchant, **{"0-reset_password": "on"})

    password = shown_password(response)
    user = User.objects.get(pk=portal_user.user_id)
    assert user.check_password(password) and not user.check_password(first)
    assert [a for _, a, by in actions(merchant) if by == STAFF] == [
        "DEACTIVATED",
        "ACTIVATED",
        "PASSWORD_RESET",
    ]
    assert PortalUser.objects.count() == 1  # nothing added by the empty row


def test_an_unchanged_save_touches_no_portal_user(admin_client, merchant):
    services.portal_user_create(merchant=merchant, email="ann@shop.example", changed_by=STAFF)
    before = counts()

    response = inline_post(admin_client, merchant)

    assert response.redirect_chain and counts() == before


def test_staff_who_may_only_view_cannot_change_portal_users(client, merchant):
    from django.contrib.auth.models import Permission

    viewer = User.objects.create_user("viewer", password=OWN_PASSWORD, is_staff=True)
    viewer.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_merchant", "view_portaluser"])
    )
    client.force_login(viewer)
    page = client.get(change_url(merchant))
    assert page.status_code == 200
    assert 'name="portal_users-0-email"' not in text(page)


# --- the command ---------------------------------------------------------------------------------


def run(*args: str) -> str:
    out = StringIO()
    call_command("portal_user", *args, stdout=out)
    return out.getvalue()


def test_command_creates_a_portal_user_and_prints_a_one_time_password(merchant):
    data = json.loads(
        run("create", "--merchant", merchant.merchant_id, "--email", "Ann@Shop.example")
    )

    assert data["merchantId"] == merchant.merchant_id and data["username"] == "ann@shop.example"
    assert data["mustChangePassword"] is True and data["signIn"] == "/portal/login/"
    portal_user = PortalUser.objects.get()
    assert portal_user.merchant == merchant and portal_user.user.check_password(data["password"])
    assert actions(merchant) == [("ann@shop.example", "CREATED", "command:portal_user")]
    assert data["role"] == "administrator"


def test_command_creates_an_operator(merchant):
    data = json.loads(
        run(
            "create",
            "--merchant",
            merchant.merchant_id,
            "--email",
            "ops@shop.example",
            "--role",
            "operator",
        )
    )
    assert data["role"] == "operator" and PortalUser.objects.get().role == "OPERATOR"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["create", "--merchant", "999999", "--email", "ann@shop.example"], "no merchant"),
        (["create", "--merchant", "{m}", "--email", "taken@shop.example"], "already a portal"),
        (["create", "--merchant", "{m}", "--email", "staff@bank.example"], "bank staff"),
        (["create", "--merchant", "{m}", "--email", "nope"], "valid email"),
        (["deactivate", "--email", "nobody@shop.example"], "no portal user"),
        (["reset-password", "--email", "staff@bank.example"], "no portal user"),
    ],
)
def test_command_refusals_write_nothing(merchant, other, args, said):
    services.portal_user_create(merchant=other, email="taken@shop.example", changed_by=STAFF)
    User.objects.create_user("staff@bank.example", email="staff@bank.example", is_staff=True)
    before = counts()

    with pytest.raises(CommandError, match=said):
        run(*[a.replace("{m}", merchant.merchant_id) for a in args])

    assert counts() == before


def test_command_deactivates_reactivates_resets_and_lists(merchant):
    created = json.loads(
        run("create", "--merchant", merchant.merchant_id, "--email", "ann@shop.example")
    )

    assert json.loads(run("deactivate", "--email", "ANN@shop.example"))["active"] is False
    assert json.loads(run("deactivate", "--email", "ann@shop.example"))["changed"] is False
    assert json.loads(run("activate", "--email", "ann@shop.example"))["active"] is True
    reset = json.loads(run("reset-password", "--email", "ann@shop.example"))

    user = User.objects.get(username="ann@shop.example")
    assert user.check_password(reset["password"]) and not user.check_password(created["password"])
    [listed] = [
        json.loads(line) for line in run("list", "--merchant", merchant.merchant_id).splitlines()
    ]
    assert listed["username"] == "ann@shop.example" and "password" not in listed


# --- what the portal does with them --------------------------------------------------------------


def sign_in(client: Any, username: str, password: str) -> Any:
    return client.post("/portal/login/", {"username": username, "password": password})


def test_a_one_time_password_must_be_changed_first(client, merchant):
    portal_user, password = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )
    assert sign_in(client, "ann@shop.example", password).status_code == 302

    for path in ("/portal/", "/portal/transactions/", "/portal/developers/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"] == "/portal/password/"
    changed = client.post(
        "/portal/password/",
        {"old_password": password, "new_password1": OWN_PASSWORD, "new_password2": OWN_PASSWORD},
    )

    assert changed.status_code == 302
    assert client.get("/portal/").status_code == 200
    assert not PortalUser.objects.get(pk=portal_user.pk).must_change_password


def test_a_deactivated_user_is_signed_out_and_cannot_sign_in(client, merchant):
    portal_user, password = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )
    services.portal_user_password_changed(portal_user=portal_user)
    sign_in(client, "ann@shop.example", password)
    assert client.get("/portal/").status_code == 200

    services.portal_user_set_active(portal_user=portal_user, active=False, changed_by=STAFF)

    assert client.get("/portal/").status_code == 302  # the open session ends
    refused = sign_in(client, "ann@shop.example", password)
    assert refused.status_code == 200 and "Please enter a correct" in text(refused)
    services.portal_user_set_active(portal_user=portal_user, active=True, changed_by=STAFF)
    assert sign_in(client, "ann@shop.example", password).status_code == 302


def test_a_reset_password_ends_the_open_sessions(client, merchant):
    portal_user, password = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )
    services.portal_user_password_changed(portal_user=portal_user)
    sign_in(client, "ann@shop.example", password)

    new = services.portal_user_reset_password(portal_user=portal_user, changed_by=STAFF)

    assert client.get("/portal/").status_code == 302
    assert sign_in(client, "ann@shop.example", password).status_code == 200  # refused
    assert sign_in(client, "ann@shop.example", new).status_code == 302
    assert client.get("/portal/")["Location"] == "/portal/password/"


def test_a_reset_password_lets_a_locked_out_user_in_at_once(client, merchant, settings):
    portal_user, password = services.portal_user_create(
        merchant=merchant, email="ann@shop.example", changed_by=STAFF
    )
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, "ann@shop.example", "wrong")
    assert sign_in(client, "ann@shop.example", password).status_code == 403  # locked out

    new = services.portal_user_reset_password(portal_user=portal_user, changed_by=STAFF)

    assert sign_in(client, "ann@shop.example", new).status_code == 302


def test_a_portal_user_named_before_emails_does_not_block_the_merchants_page(
    admin_client, merchant
):
    """The demo's portal user is `merchant-admin`, not an email (issue 35's new-user try): its
    row is shown, never checked as an email, so the merchant's page still saves."""
    from django.urls import reverse

    from tests.merchants.test_admin import change_form_data

    user = User.objects.create_user("merchant-admin", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    url = reverse("admin:merchants_merchant_change", args=[merchant.pk])
    data = change_form_data(admin_client.get(url))
    data["city"] = "Hamburg"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    merchant.refresh_from_db()
    assert merchant.city == "Hamburg"
