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

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import path, reverse_lazy
from django.utils import timezone

from core import outbox
from core.portal import page_methods, portal_view
from core.schema.pages import documented, html, portal_page

from . import webhooks
from .forms import TokenOverlapForm
from .models import Merchant, PortalUser, Webhook
from .portal_forms import (
    NotificationUrlForm,
    RedeliverForm,
    TokenRotateForm,
    TokenSetForm,
    WebhookForm,
)
from .services import (
    entity_end_previous_token,
    entity_rotate_token,
    merchant_update,
    notification_test,
    portal_user_password_changed,
)

NAV = [("Developers", "portal:developers")]  # login, logout, password: in the page header
ADMINISTRATORS = (PortalUser.Role.ADMINISTRATOR.value,)
ROLES = {"portal:developers": ADMINISTRATORS}  # the API token and the notifications


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


def deliveries_of(merchant: Merchant) -> QuerySet[Any]:
    """The merchant's outbound notifications, newest first (their credential is its entity)."""
    return outbox.message_list_for_credential(credential=str(merchant.entity_id))


def _overlap_note(entity: Any) -> str:
    if entity.previous_token_ends_at is None:
        return "the old one no longer works."
    until = entity.previous_token_ends_at.strftime("%Y-%m-%d %H:%M")
    return f"the old one (…{entity.previous_token_last4}) keeps working until {until} UTC."


def _errors(form: forms.Form, names: dict[str, str] | None = None) -> dict[str, str]:
    """A refused form's first problem of each field, under the page's name for it."""
    names = names or {}
    return {names.get(field, field): str(problems[0]) for field, problems in form.errors.items()}


# What an action shows besides the page: "errors" (the page answers 400), "confirm_rotation",
# "overlap_form", "new_token" (the page is not stored), "merchant" (as the action changed it).
Shown = dict[str, Any]


def _rotate(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    form = TokenRotateForm(request.POST, request=request)
    if not form.confirmed:
        return {"confirm_rotation": True}  # the first click only asks
    if not form.is_valid():
        return {"confirm_rotation": True, "overlap_form": form, "errors": _errors(form)}
    token = entity_rotate_token(
        entity=merchant.entity, overlap=form.chosen_overlap(), changed_by=actor
    )
    messages.success(request, f"A new API token: {_overlap_note(merchant.entity)}")
    return {"new_token": token}


def _set_token(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    form = TokenSetForm(request.POST, request=request)
    if not form.is_valid():
        names = {"overlap": "set_overlap", "password": "set_password"}
        return {"errors": _errors(form, names)}
    entity_rotate_token(
        entity=merchant.entity,
        token=form.cleaned_data["token"],
        overlap=form.chosen_overlap(),
        changed_by=actor,
    )
    messages.success(request, f"Your API token is set: {_overlap_note(merchant.entity)}")
    return {}


def _end_previous(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    if entity_end_previous_token(entity=merchant.entity, changed_by=actor):
        messages.success(request, "The previous token no longer works.")
    return {}


def _send_test(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    try:
        notification_test(merchant=merchant)
    except ValueError as exc:
        messages.error(request, f"No test notification: {exc}.")
    else:
        messages.success(request, "A test notification is on its way: see the deliveries.")
    return {}


def _redeliver(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    mine = deliveries_of(merchant) | webhooks.deliveries_of(merchant)
    form = RedeliverForm(request.POST, deliveries=mine)
    if not form.is_valid():
        raise Http404("no such notification")
    outbox.redeliver(event_id=form.cleaned_data["event_id"], actor=actor)
    messages.success(request, "The notification will be delivered again now.")
    return {}


def _webhook_of(request: HttpRequest, merchant: Merchant) -> Webhook:
    hook = Webhook.objects.filter(merchant=merchant, pk=request.POST.get("webhook_id", "")).first()
    if hook is None:
        raise Http404("no such webhook")
    return hook


def _secret_shown(hook: Webhook, secret: str) -> Shown:
    """A webhook's secret, on this answer only (the page is not stored)."""
    return {"new_secret": secret, "new_secret_hook": hook.pk}


def _webhook_add(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return {"errors": _errors(form, {"url": "webhook_url", "events": "webhook_events"})}
    try:
        hook, secret = webhooks.webhook_create(
            merchant=merchant,
            url=form.cleaned_data["url"],
            events=form.cleaned_data["events"],
            created_by=actor,
        )
    except webhooks.WebhookRefused as refused:
        return {"errors": {"webhook_url": str(refused)}}
    messages.success(request, "The webhook is made: copy its secret now, it is shown once.")
    return _secret_shown(hook, secret)


def _webhook_save(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    hook = _webhook_of(request, merchant)
    form = WebhookForm(request.POST)
    names = {"url": f"url_{hook.pk}", "events": f"events_{hook.pk}"}
    if not form.is_valid():
        return {"errors": _errors(form, names)}
    try:
        webhooks.webhook_update(
            hook=hook,
            url=form.cleaned_data["url"],
            events=form.cleaned_data["events"],
            active=form.cleaned_data["active"],
        )
    except webhooks.WebhookRefused as refused:
        return {"errors": {f"url_{hook.pk}": str(refused)}}
    messages.success(request, "The webhook is saved.")
    return {}


def _webhook_rotate(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    hook = _webhook_of(request, merchant)
    secret = webhooks.webhook_rotate(hook=hook)
    messages.success(
        request,
        "A new secret seals every delivery from now on: copy it now, it is shown once. Keep the "
        f"old one (key id {hook.previous_key_id}) until your receiver has the new one.",
    )
    return _secret_shown(hook, secret)


def _webhook_test(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    webhooks.webhook_send_test(hook=_webhook_of(request, merchant))
    messages.success(request, "A test event is on its way: see the webhook deliveries.")
    return {}


def _webhook_delete(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    webhooks.webhook_delete(hook=_webhook_of(request, merchant))
    messages.success(request, "The webhook is deleted: nothing more is sent to it.")
    return {}


def _save_notification_url(request: HttpRequest, merchant: Merchant, actor: str) -> Shown:
    form = NotificationUrlForm(request.POST)
    if not form.is_valid():
        return {"errors": _errors(form)}
    url = form.cleaned_data["notification_url"]
    merchant = merchant_update(
        merchant=merchant, values={"notification_url": url}, changed_by=actor
    )
    messages.success(request, "The notification URL is saved.")
    return {"merchant": merchant}


DEVELOPER_ACTIONS: dict[str, Callable[[HttpRequest, Merchant, str], Shown]] = {
    "rotate": _rotate,
    "set": _set_token,
    "end-previous": _end_previous,
    "test": _send_test,
    "redeliver": _redeliver,
    "webhook-add": _webhook_add,
    "webhook-save": _webhook_save,
    "webhook-rotate": _webhook_rotate,
    "webhook-test": _webhook_test,
    "webhook-delete": _webhook_delete,
    "notification": _save_notification_url,
}


@page_methods("GET", "POST")
@portal_view(roles=ADMINISTRATORS)
def developers(request: HttpRequest) -> HttpResponse:
    """The merchant's API token (rotate, after a confirmation that offers an overlap: the new one
    shown once, on this answer only; or set one of the administrator's choosing, never shown;
    either only with the user's password typed again),
    the previous token while its overlap lasts, the token's history, and the notification URL.
    A POST's `action` names what to do (DEVELOPER_ACTIONS); the page shows what it did."""
    merchant: Merchant = request.merchant  # type: ignore[attr-defined]
    shown: Shown = {}
    action = None
    if request.method == "POST":
        action = DEVELOPER_ACTIONS.get(request.POST.get("action", ""))
    if action is not None:
        shown = action(request, merchant, f"portal:{request.user.get_username()}")
    merchant = shown.get("merchant", merchant)
    merchant.entity.refresh_from_db()
    entity = merchant.entity
    context = {
        "title": "Developers",
        "errors": {},
        "overlap_form": TokenOverlapForm(),
        **shown,
        "merchant": merchant,
        "entity": entity,
        "previous_live": entity.previous_token_live(timezone.now()),
        "token_changes": entity.token_changes.all()[:10],
        "deliveries": deliveries_of(merchant).prefetch_related("deliveries")[:20],
        "webhooks": merchant.webhooks.all(),
        "webhook_events": Webhook.Event.choices,
        "webhook_deliveries": webhooks.deliveries_of(merchant).prefetch_related("deliveries")[:20],
    }
    response = render(
        request, "portal/developers.html", context, status=400 if context["errors"] else 200
    )
    if "new_token" in context or "new_secret" in context:
        response["Cache-Control"] = "no-store"
    return response


def _developers_operations() -> dict[str, dict[str, Any]]:
    page = {
        "200": html("The token's last four digits, the notification URL, the forms."),
        "403": html("An operator or a viewer: only administrators reach this page."),
    }
    post = portal_page(
        "portal_developers_post",
        "Portal: rotate (confirm, overlap) or set the API token, end the previous token, set the "
        "notification URL; add, change, test, rotate the secret of, delete a webhook; deliver "
        "a notification or a webhook event again",
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
            "webhook_id",
            "url",
            "events",
            "active",
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
