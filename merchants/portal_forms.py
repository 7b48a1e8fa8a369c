"""The forms of the portal's Developers page (merchants.portal), one per action that takes input:
rotate the API token, set one of the administrator's choosing, deliver a notification again,
save the notification URL. Each holds the action's rules; the page only dispatches.

A token change asks for the signed-in user's password again (`PasswordAgainForm`), and only once
everything else in the form is right: each wrong password counts as a failed sign-in.
"""

from typing import Any

from django import forms
from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.http import HttpRequest

from core.fields.web import LocalUrl
from core.outbound import url_problem as outbound_url_problem

from .forms import TokenOverlapForm
from .models import Webhook
from .selectors import entity_by_token

TOKEN_MIN_LENGTH = 32
TOKEN_MIN_DISTINCT = 16
PASSWORD_AGAIN = "Enter your password to change the API token."
OVERLAP_MISSING = "Choose how long the old token keeps working."


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


def password_confirmed(request: HttpRequest, password: str) -> bool:
    """The signed-in user typed its password again, as a password change asks for the old one:
    a session taken over (a browser left open, a stolen cookie) cannot obtain a working API
    token by itself. Checked through `authenticate`, so django-axes counts a wrong one as a
    failed sign-in and locks the user and address out after AXES_FAILURE_LIMIT of them, as at
    the login."""
    if not password:
        return False
    user = authenticate(request, username=request.user.get_username(), password=password)
    return user is not None and user.pk == request.user.pk


class PasswordAgainForm(forms.Form):
    """A token change, confirmed by the user's password (`password_confirmed`)."""

    password = forms.CharField(required=False, strip=False)

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # Asked last: a form refused for another reason does not count a failed sign-in.
        if not self.errors and not password_confirmed(self.request, cleaned.get("password", "")):
            self.add_error("password", PASSWORD_AGAIN)
        return cleaned


class TokenRotateForm(PasswordAgainForm, TokenOverlapForm):
    """Rotate: the first click only asks (`confirmed` false); the confirmation chooses the old
    token's overlap (none when left out) and gives the password."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["overlap"].error_messages["invalid_choice"] = OVERLAP_MISSING

    @property
    def confirmed(self) -> bool:
        return self.data.get("confirm") == "yes"


class TokenSetForm(PasswordAgainForm, TokenOverlapForm):
    """Set a token of the administrator's choosing (`token_problem`). It is one form, so the
    choice of overlap is its confirmation: there is no default that ends the live token unasked.
    """

    token = forms.CharField(required=False, strip=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        overlap = self.fields["overlap"]
        overlap.required = True
        overlap.error_messages.update(required=OVERLAP_MISSING, invalid_choice=OVERLAP_MISSING)

    def clean_token(self) -> str:
        token: str = self.cleaned_data["token"]
        problem = token_problem(token)
        if problem:
            raise forms.ValidationError(f"The token {problem}.")
        return token


class RedeliverForm(forms.Form):
    """Deliver again one of `deliveries` (the merchant's notifications): `event_id` names it."""

    event_id = forms.CharField(strip=False)

    def __init__(self, *args: Any, deliveries: QuerySet[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deliveries = deliveries

    def clean_event_id(self) -> str:
        event_id: str = self.cleaned_data["event_id"]
        if not self.deliveries.filter(pk=event_id).exists():
            raise forms.ValidationError("no such notification")
        return event_id


class NotificationUrlForm(forms.Form):
    """The notification URL: an absolute https URL an outbound call may reach, or none."""

    notification_url = forms.CharField(required=False)

    def clean_notification_url(self) -> str:
        url: str = self.cleaned_data["notification_url"]
        problem = url_problem(url) if url else ""
        if problem:
            raise forms.ValidationError(f"The URL {problem}.")
        return url


class WebhookForm(forms.Form):
    """A webhook's URL and the kinds of events it takes (merchants.webhooks checks the URL as
    every outbound call's)."""

    url = forms.CharField(max_length=2048)
    events = forms.MultipleChoiceField(
        choices=Webhook.Event.choices, widget=forms.CheckboxSelectMultiple
    )
    active = forms.BooleanField(required=False, initial=True)
