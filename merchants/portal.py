"""The merchant portal's door: login, logout, password change, and the developers page
(docs/portal.md). The framework every portal page wears (`portal_view`, `page_methods`,
`list_page`) is core's (core/portal.py); this app registers how it finds a user's merchant
(merchants.apps: `selectors.portal_user_of`).

A portal user is a Django user with a PortalUser row binding it to one merchant. Failed logins
are counted by django-axes in the database (AXES_* settings), so the limit holds across workers;
a locked-out username and address get the login page again with a message, never a
distinction between "no such user" and "wrong password". A portal session ends after
PORTAL_SESSION_SECONDS without a request. A user signed in with a one-time password from bank
staff (`PortalUser.must_change_password`) is sent to the password page until it has chosen one.
"""

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import path, reverse_lazy
from django.utils import timezone

from core.fields.web import LocalUrl
from core.models import OutboxMessage
from core.outbound import url_problem as outbound_url_problem
from core.outbox import redeliver
from core.portal import page_methods, portal_view
from core.schema.pages import documented, html, portal_page

from .forms import TokenOverlapForm
from .models import Merchant, PortalUser
from .selectors import entity_by_token
from .services import (
    entity_end_previous_token,
    entity_rotate_token,
    merchant_update,
    notification_test,
    portal_user_password_changed,
)

NAV = [("Developers", "portal:developers")]  # login, logout, password: in the page header


class PortalLoginForm(AuthenticationForm):
    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not PortalUser.objects.filter(user=user).exists():
            raise self.get_invalid_login_error()


class LoginView(auth_views.LoginView):
    template_name = "portal/login.html"
    form_class = PortalLoginForm
    redirect_authenticated_user = True
    next_page = "/portal/"

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        self.request.session.set_expiry(settings.PORTAL_SESSION_SECONDS)
        return response


def locked_out(request: HttpRequest, credentials: Any, *args: Any, **kwargs: Any) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page again, saying to wait (403)."""
    minutes = round(settings.AXES_COOLOFF_TIME * 60)
    form = PortalLoginForm(request)
    return render(
        request,
        "portal/login.html",
        {
            "form": form,
            "locked": f"Too many failed sign-ins: try again in {minutes} minutes or ask the bank.",
        },
        status=403,
    )


@page_methods("POST")
def logout(request: HttpRequest) -> HttpResponse:
    from django.contrib.auth import logout as end_session

    end_session(request)
    messages.info(request, "You are signed out.")
    return redirect("portal:login")


class PortalPasswordChangeView(auth_views.PasswordChangeView):
    template_name = "portal/password.html"
    success_url = reverse_lazy("portal:overview")
    extra_context = {"title": "Change password"}

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        portal_user_password_changed(portal_user=self.request.portal_user)  # type: ignore[attr-defined]
        return response


def password_change(request: HttpRequest) -> HttpResponseBase:
    return PortalPasswordChangeView.as_view()(request)


# The one page a user on a one-time password reaches.
password_view = page_methods("GET", "POST")(portal_view(password_change, password_page=True))


def _login_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("The sign-in form (again, with the problem, after a failed sign-in).")}
    return {
        "get": portal_page("portal_login_get", "Portal: the sign-in page", page),
        "post": portal_page(
            "portal_login_post",
            "Portal: sign in",
            page,
            form=("csrfmiddlewaretoken", "username", "password", "next"),
        ),
    }


def _logout_operations() -> dict[str, dict[str, Any]]:
    return {
        "post": portal_page("portal_logout", "Portal: sign out", {}, form=("csrfmiddlewaretoken",))
    }


def _password_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("The password form (again, with the problems).")}
    return {
        "get": portal_page("portal_password_get", "Portal: the password form", page),
        "post": portal_page(
            "portal_password_post",
            "Portal: change the password",
            page,
            form=("csrfmiddlewaretoken", "old_password", "new_password1", "new_password2"),
        ),
    }


TOKEN_MIN_LENGTH = 32
TOKEN_MIN_DISTINCT = 16


def token_problem(token: str) -> str:
    """Why a token the administrator chose is not good enough, or ""."""
    if not TOKEN_MIN_LENGTH <= len(token) <= 128:
        return f"must have {TOKEN_MIN_LENGTH} to 128 characters"
    if not all(33 <= ord(c) <= 126 for c in token):
        return "may hold letters, digits and punctuation only (no spaces)"
    if len(set(token)) < TOKEN_MIN_DISTINCT:
        return f"is not random enough: at least {TOKEN_MIN_DISTINCT} different characters"
    if entity_by_token(token) is not None:
        return "is in use: choose another"
    return ""


def url_problem(url: str) -> str:
    try:
        LocalUrl().parse(url)
    except ValueError:
        return "must be an absolute https URL"
    return outbound_url_problem(url)


def deliveries_of(merchant: Merchant) -> Any:
    """The merchant's outbound notifications, newest first (their credential is its entity)."""
    return OutboxMessage.objects.filter(credential=str(merchant.entity_id)).order_by(
        "-created_at", "-pk"
    )


PASSWORD_AGAIN = "Enter your password to change the API token."


def password_confirmed(request: HttpRequest) -> bool:
    """The signed-in user typed its password again (field `password`), as a password change
    asks for the old one: a session taken over (a browser left open, a stolen cookie) cannot
    obtain a working API token by itself. Checked through `authenticate`, so django-axes counts
    a wrong one as a failed sign-in and locks the user and address out after
    AXES_FAILURE_LIMIT of them, as at the login."""
    password = request.POST.get("password", "")
    if not password:
        return False
    user = authenticate(request, username=request.user.get_username(), password=password)
    return user is not None and user.pk == request.user.pk


def _overlap_note(entity: Any) -> str:
    if entity.previous_token_ends_at is None:
        return "the old one no longer works."
    until = entity.previous_token_ends_at.strftime("%Y-%m-%d %H:%M")
    return f"the old one (…{entity.previous_token_last4}) keeps working until {until} UTC."


@page_methods("GET", "POST")
@portal_view
def developers(request: HttpRequest) -> HttpResponse:
    """The merchant's API token (rotate, after a confirmation that offers an overlap: the new one
    shown once, on this answer only; or set one of the administrator's choosing, never shown;
    either only with the user's password typed again),
    the previous token while its overlap lasts, the token's history, and the notification URL."""
    merchant: Merchant = request.merchant  # type: ignore[attr-defined]
    actor = f"portal:{request.user.get_username()}"
    context: dict[str, Any] = {"title": "Developers", "errors": {}}
    action = request.POST.get("action") if request.method == "POST" else None
    if action in ("rotate", "set"):
        overlap_form = TokenOverlapForm(request.POST)
        context["overlap_form"] = overlap_form
        if action == "rotate" and request.POST.get("confirm") != "yes":
            context["confirm_rotation"] = True  # the first click only asks
            context["overlap_form"] = TokenOverlapForm()
        elif not overlap_form.is_valid():
            context["errors"]["overlap"] = "Choose how long the old token keeps working."
            context["confirm_rotation"] = action == "rotate"
        elif action == "rotate" and not password_confirmed(request):
            context["errors"]["password"] = PASSWORD_AGAIN
            context["confirm_rotation"] = True
        elif action == "rotate":
            context["new_token"] = entity_rotate_token(
                entity=merchant.entity, overlap=overlap_form.chosen_overlap(), changed_by=actor
            )
            messages.success(request, f"A new API token: {_overlap_note(merchant.entity)}")
        elif not request.POST.get("overlap"):
            # Setting a token is one form, so the choice of overlap is its confirmation: there
            # is no default that ends the live token unasked.
            context["errors"]["set_overlap"] = "Choose how long the old token keeps working."
        else:
            chosen = request.POST.get("token", "")
            problem = token_problem(chosen)
            if problem:
                context["errors"]["token"] = f"The token {problem}."
            elif not password_confirmed(request):
                context["errors"]["set_password"] = PASSWORD_AGAIN
            else:
                entity_rotate_token(
                    entity=merchant.entity,
                    token=chosen,
                    overlap=overlap_form.chosen_overlap(),
                    changed_by=actor,
                )
                messages.success(
                    request, f"Your API token is set: {_overlap_note(merchant.entity)}"
                )
    elif action == "end-previous":
        if entity_end_previous_token(entity=merchant.entity, changed_by=actor):
            messages.success(request, "The previous token no longer works.")
    elif action == "test":
        try:
            notification_test(merchant=merchant)
        except ValueError as exc:
            messages.error(request, f"No test notification: {exc}.")
        else:
            messages.success(request, "A test notification is on its way: see the deliveries.")
    elif action == "redeliver":
        event_id = request.POST.get("event_id", "")
        if not deliveries_of(merchant).filter(pk=event_id).exists():
            raise Http404("no such notification")
        redeliver(event_id=event_id, actor=actor)
        messages.success(request, "The notification will be delivered again now.")
    elif action == "notification":
        url = request.POST.get("notification_url", "").strip()
        problem = url_problem(url) if url else ""
        if problem:
            context["errors"]["notification_url"] = f"The URL {problem}."
        else:
            merchant = merchant_update(merchant=merchant, values={"notification_url": url})
            messages.success(request, "The notification URL is saved.")
    merchant.entity.refresh_from_db()
    entity = merchant.entity
    context.setdefault("overlap_form", TokenOverlapForm())
    context.update(
        merchant=merchant,
        entity=entity,
        previous_live=entity.previous_token_live(timezone.now()),
        token_changes=entity.token_changes.all()[:10],
        deliveries=deliveries_of(merchant).prefetch_related("deliveries")[:20],
    )
    status = 400 if context["errors"] else 200
    response = render(request, "portal/developers.html", context, status=status)
    if "new_token" in context:
        response["Cache-Control"] = "no-store"
    return response


def _developers_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("The token's last four digits, the notification URL, the forms.")}
    post = portal_page(
        "portal_developers_post",
        "Portal: rotate (confirm, overlap) or set the API token, end the previous token, set the "
        "notification URL",
        {**page, "400": html("The form again, with the problem.")},
        form=(
            "csrfmiddlewaretoken",
            "action",
            "confirm",
            "overlap",
            "token",
            "password",
            "notification_url",
            "event_id",
        ),
    )
    return {
        "get": portal_page("portal_developers_get", "Portal: developers", page),
        "post": post,
    }


urlpatterns = [
    path("developers/", documented(_developers_operations)(developers), name="developers"),
    path(
        "login/",
        documented(_login_operations)(page_methods("GET", "POST")(LoginView.as_view())),
        name="login",
    ),
    path("logout/", documented(_logout_operations)(logout), name="logout"),
    path("password/", documented(_password_operations)(password_view), name="password"),
]
