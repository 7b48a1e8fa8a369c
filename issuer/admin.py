"""Staff admin for the issuer side.

- Requestor profiles: the public JWK set (or jwks_uri) and scopes of a requestor client, checked
  on save exactly as `register_requestor` checks them (issuer.requestors), and saved through
  `requestor_register`, which also keeps the DOT Application a confidential client-credentials
  client without a usable secret. Create the Application in DOT's admin (or let the command do
  both).
- Used assertions: the jti store, read-only (rows are written by the token endpoint and purged
  by the issuer.purge_used_assertions task).
DOT's own admin for Applications and AccessTokens (the audit rows) stays as DOT registers it.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from oauth2_provider.models import get_grant_model, get_id_token_model, get_refresh_token_model

from core.admin import amount_column

from .models import OOBAuthentication, OTPChallenge, RequestorProfile, UsedAssertion
from .protocol import requestors


class RequestorProfileForm(forms.ModelForm):
    jwks_uri = forms.URLField(
        required=False,
        assume_scheme="https",
        help_text="Or where its JWK set is published (https).",
    )

    class Meta:
        model = RequestorProfile
        fields = ["application", "jwks", "jwks_uri", "scopes"]
        help_texts = {
            "jwks": 'Public keys only: {"keys": [EC P-256 with kid, RSA >= 2048 with kid]}.',
            "scopes": "Space separated, e.g. START_OOB CHECK_OOB.",
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            jwks, jwks_uri, scopes = requestors.requestor_check(
                jwks=data.get("jwks") or None,
                jwks_uri=data.get("jwks_uri") or "",
                scopes=data.get("scopes") or "",
            )
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
            return data
        data.update(jwks=jwks, jwks_uri=jwks_uri, scopes=scopes)
        return data


@admin.register(RequestorProfile)
class RequestorProfileAdmin(admin.ModelAdmin):
    form = RequestorProfileForm
    list_display = ["client_id", "scopes", "key_source", "created_at"]
    search_fields = ["application__client_id", "application__name"]
    readonly_fields = ["registered_keys", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        # A profile belongs to one client for good; register another one for a new client.
        return [*fields, "application"] if obj is not None else fields

    @admin.display(description="client id", ordering="application__client_id")
    def client_id(self, obj: RequestorProfile) -> str:
        return obj.application.client_id

    @admin.display(description="keys from")
    def key_source(self, obj: RequestorProfile) -> str:
        return obj.jwks_uri or "stored JWK set"

    @admin.display(description="registered keys")
    def registered_keys(self, obj: RequestorProfile) -> str:
        if obj.pk is None:
            return "-"
        if obj.jwks_uri:
            return f"fetched from {obj.jwks_uri} when needed (cached five minutes)"
        try:
            keys = requestors.jwks_validate(obj.jwks)
        except ValidationError as exc:
            return "invalid: " + "; ".join(exc.messages)
        return ", ".join(requestors.kids_summary(keys.items()))

    def save_model(
        self, request: HttpRequest, obj: RequestorProfile, form: forms.ModelForm, change: bool
    ) -> None:
        data = form.cleaned_data
        application = obj.application if change else data["application"]
        saved = requestors.requestor_register(
            client_id=application.client_id,
            jwks=data.get("jwks") or None,
            jwks_uri=data.get("jwks_uri") or "",
            scopes=data["scopes"],
        )
        # The admin goes on with `obj` (log entry, redirect): make it the saved row.
        obj.pk, obj.created_at = saved.pk, saved.created_at


@admin.register(UsedAssertion)
class UsedAssertionAdmin(admin.ModelAdmin):
    list_display = ["client_id", "jti", "expires_at"]
    list_filter = ["client_id"]
    search_fields = ["client_id", "jti"]
    ordering = ["-expires_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _ReadOnly(admin.ModelAdmin):
    """Staff look; only the services change these rows (the secrets are hashes and not shown)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(OOBAuthentication)
class OOBAuthenticationAdmin(_ReadOnly):
    list_display = (
        "id",
        "client_id",
        "transaction_id",
        "merchant_name",
        "amount_shown",
        "status",
        "created_at",
        "expires_at",
        "decided_at",
    )
    list_filter = ("status", "client_id")
    search_fields = ("=id", "transaction_id", "card_reference")
    exclude = ("link_token_hash",)
    date_hierarchy = "created_at"

    amount_shown = amount_column("amount", "amount", with_currency=True)


@admin.register(OTPChallenge)
class OTPChallengeAdmin(_ReadOnly):
    list_display = (
        "id",
        "client_id",
        "transaction_id",
        "channel",
        "attempts",
        "verified_at",
        "created_at",
        "expires_at",
    )
    list_filter = ("channel", "client_id")
    search_fields = ("=id", "transaction_id", "card_reference")
    exclude = ("code_hash",)
    date_hierarchy = "created_at"


# The OAuth toolkit's grants, ID tokens and refresh tokens: the issuer protocol issues none
# (client credentials only); staff have nothing to see there.
for _model in (get_grant_model(), get_id_token_model(), get_refresh_token_model()):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)

from .cards import admin as _cards_admin  # noqa: E402, F401 - registers the cards' admin
