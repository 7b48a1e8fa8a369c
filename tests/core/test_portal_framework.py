"""The portal framework lives in core (core/portal.py) and knows no app: the merchants app
registers how a signed-in user's membership is found; portal_view uses whatever is registered."""

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from core import portal
from merchants.selectors import portal_user_of


@dataclass
class Membership:
    merchant: Any
    must_change_password: bool = False


def page(request):
    return HttpResponse(f"the page of {request.merchant}")


def request_of(user) -> Any:
    request = RequestFactory().get("/portal/somewhere/")
    request.user = user
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


@pytest.fixture
def members(monkeypatch):
    """Core's registry with only this test's finder in it."""
    found: dict[int, Membership] = {}
    monkeypatch.setattr(portal, "_finders", [])
    portal.register_member_finder(found.get)
    return found


def test_merchants_registers_its_portal_users_as_cores_member_finder():
    assert portal_user_of in portal._finders


@pytest.mark.django_db
def test_a_member_gets_the_page_with_its_merchant(members):
    user = User.objects.create_user("member")
    members[user.pk] = Membership(merchant="M1")
    response = portal.portal_view(page)(request_of(user))
    assert response.content == b"the page of M1"


@pytest.mark.django_db
def test_a_user_no_finder_knows_gets_404_and_anonymous_the_sign_in_page(members):
    with pytest.raises(Http404):
        portal.portal_view(page)(request_of(User.objects.create_user("staff", is_staff=True)))
    response = portal.portal_view(page)(request_of(AnonymousUser()))
    assert (response.status_code, response["Location"]) == (
        302,
        "/portal/login/?next=/portal/somewhere/",
    )


@pytest.mark.django_db
def test_a_one_time_password_reaches_the_password_page_only(members):
    user = User.objects.create_user("new")
    members[user.pk] = Membership(merchant="M1", must_change_password=True)
    response = portal.portal_view(page)(request_of(user))
    assert (response.status_code, response["Location"]) == (302, "/portal/password/")
    allowed = portal.portal_view(page, password_page=True)(request_of(user))
    assert allowed.content == b"the page of M1"
