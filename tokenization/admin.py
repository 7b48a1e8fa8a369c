"""Staff admin for tokenization: tokens (read-only, with their history; activate, suspend,
unsuspend, deactivate through the services), card art per card product (artwork uploaded as PNG,
checked, published as immutable assets) and the published assets. The funding card number and
its fingerprint are on no page."""

import base64
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from core.admin import HistoryInline, ReadOnlyMixin, each_through_service, form_action, staff_actor
from core.errors import ApplicationError

from . import services
from .artwork.png import png_size
from .models import Asset, CardArt, MediaContent, Suspender, Token, TokenStatusChange

REASONS = [
    (code, code)
    for code in (
        "SUSPECTED_FRAUD",
        "DEVICE_LOST",
        "DEVICE_STOLEN",
        "ACCOUNT_CLOSED",
        "NOT_FRAUD",
        "DEVICE_FOUND",
        "OTHER",
    )
]


class TokenStatusChangeInline(HistoryInline):
    model = TokenStatusChange
    verbose_name_plural = "status history"
    fields = ("changed_at", "changed_by", "from_status", "to_status", "reason", "suspended_by")


class SuspendForm(forms.Form):
    suspender = forms.ChoiceField(choices=[(s, s) for s in Suspender.values], initial="ISSUER")
    reason = forms.ChoiceField(choices=REASONS, initial="SUSPECTED_FRAUD")


class ReasonForm(forms.Form):
    reason = forms.ChoiceField(choices=REASONS, initial="OTHER")


@admin.register(Token)
class TokenAdmin(ReadOnlyMixin, admin.ModelAdmin):
    # Each on one line of a 1280-pixel screen: the whole reference, times as numbers, the
    # merchant by its id.
    list_display = (
        "tur",
        "created",
        "merchant_code",
        "brand",
        "token_card",
        "status_display",
        "since",
    )
    list_filter = ("status", "brand", ("merchant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=tur", "=token_pan_suffix", "=card_last4", "=merchant__merchant_id")
    list_select_related = ("merchant",)
    ordering = ("-created_at",)
    exclude = ("pan_ciphertext", "pan_fingerprint")
    inlines = (TokenStatusChangeInline,)
    actions = ("activate", "suspend", "unsuspend", "deactivate")

    @admin.display(description="created (UTC)", ordering="created_at")
    def created(self, obj: Token) -> str:
        return f"{obj.created_at:%Y-%m-%d %H:%M}"

    @admin.display(description="merchant", ordering="merchant__merchant_id")
    def merchant_code(self, obj: Token) -> str:
        return obj.merchant.merchant_id

    @admin.display(description="status since (UTC)", ordering="status_timestamp")
    def since(self, obj: Token) -> str:
        return f"{obj.status_timestamp:%Y-%m-%d %H:%M}"

    @admin.display(description="token card")
    def token_card(self, obj: Token) -> str:
        return f"{obj.token_bin}…{obj.token_pan_suffix} (card …{obj.card_last4})"

    @admin.display(description="status", ordering="status")
    def status_display(self, obj: Token) -> str:
        """The status's name, and who suspended the token: "Suspended (ISSUER, TSP)"."""
        by = f" ({', '.join(obj.suspended_by)})" if obj.suspended_by else ""
        return f"{obj.get_status_display()}{by}"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        hidden = ("pan_ciphertext", "pan_fingerprint")
        return [f.name for f in self.model._meta.fields if f.name not in hidden]

    def _each(
        self,
        request: HttpRequest,
        queryset: QuerySet[Token],
        action: str,
        *,
        reason: str,
        suspender: str = "",
    ) -> None:
        actor = staff_actor(request)
        each_through_service(
            request,
            queryset,
            lambda token: services.token_set_status(
                reference=token.pk, action=action, actor=actor, reason=reason, suspender=suspender
            ),
            name=lambda token: f"…{token.token_pan_suffix}",
            done=lambda names: f"{action.capitalize()}d {len(names)} token(s): {', '.join(names)}.",
        )

    @admin.action(description="Activate (INACTIVE tokens)", permissions=["manage"])
    def activate(self, request: HttpRequest, queryset: QuerySet[Token]) -> None:
        self._each(request, queryset, "activate", reason="OTHER")

    @admin.action(description="Suspend…", permissions=["manage"])
    def suspend(self, request: HttpRequest, queryset: QuerySet[Token]) -> HttpResponse | None:
        return form_action(
            self,
            request,
            queryset,
            form_class=SuspendForm,
            title="Suspend tokens",
            submit_label="Suspend",
            intro="A token stays suspended while any suspender remains.",
            apply=lambda form: self._each(
                request,
                queryset,
                "suspend",
                suspender=form.cleaned_data["suspender"],
                reason=form.cleaned_data["reason"],
            ),
        )

    @admin.action(description="Unsuspend…", permissions=["manage"])
    def unsuspend(self, request: HttpRequest, queryset: QuerySet[Token]) -> HttpResponse | None:
        return form_action(
            self,
            request,
            queryset,
            form_class=SuspendForm,
            title="Unsuspend tokens",
            submit_label="Unsuspend",
            intro="Removes one suspender; the token is ACTIVE again when none remains.",
            apply=lambda form: self._each(
                request,
                queryset,
                "unsuspend",
                suspender=form.cleaned_data["suspender"],
                reason=form.cleaned_data["reason"],
            ),
        )

    @admin.action(description="Deactivate for good…", permissions=["manage"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet[Token]) -> HttpResponse | None:
        return form_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            title="Deactivate tokens",
            submit_label="Deactivate",
            intro="A deactivated token never changes again.",
            apply=lambda form: self._each(
                request, queryset, "deactivate", reason=form.cleaned_data["reason"]
            ),
        )


VECTOR_TYPES = {"pdf": "application/pdf", "svg": "image/svg+xml"}
TERMS_TYPES = {"txt": "text/plain", "html": "text/html", "htm": "text/html"}


class CardArtForm(forms.ModelForm):
    """The texts of a card product's art, and new artwork as PNG uploads (kept when empty)."""

    brand_logo_file = forms.FileField(required=False, label="Brand logo (PNG with alpha)")
    issuer_logo_file = forms.FileField(required=False, label="Issuer logo (PNG with alpha)")
    icon_file = forms.FileField(required=False, label="Icon (PNG with alpha)")
    card_background_combined_file = forms.FileField(
        required=False, label="Card background (PNG with alpha)"
    )
    background_vector_file = forms.FileField(
        required=False, label="Card background as vector artwork (PDF or SVG), optional"
    )
    terms_file = forms.FileField(required=False, label="Terms (text or HTML), optional")
    foreground_color = forms.RegexField(regex=r"^[0-9A-Fa-f]{6}$", max_length=6)

    class Meta:
        model = CardArt
        fields = ("name", "brand", "bin_from", "bin_to", "issuer_name", "short_description")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        uploads = {}
        for image in services.IMAGES:
            upload = data.get(f"{image}_file")
            uploads[image] = upload.read() if upload else None
        if self.instance.pk is None and not all(uploads.values()):
            raise forms.ValidationError("A new card product needs all four images.")
        change = services.CardArtChange(
            name=data.get("name", ""),
            brand=data.get("brand", ""),
            bin_from=data.get("bin_from", "") or "",
            bin_to=data.get("bin_to", "") or "",
            issuer_name=data.get("issuer_name", ""),
            short_description=data.get("short_description", ""),
            foreground_color=data.get("foreground_color", ""),
            background_vector=self._typed("background_vector_file", VECTOR_TYPES),
            terms=self._typed("terms_file", TERMS_TYPES),
            brand_logo=uploads["brand_logo"],
            issuer_logo=uploads["issuer_logo"],
            icon=uploads["icon"],
            card_background_combined=uploads["card_background_combined"],
        )
        for image, upload in uploads.items():
            if upload is not None:
                try:
                    png_size(upload)
                except ApplicationError as exc:
                    self.add_error(f"{image}_file", f"This image {exc.description}.")
        self.change = change
        return data

    def _typed(self, field: str, types: dict[str, str]) -> tuple[str, bytes] | None:
        """An optional upload with its media type (from its file name), checked."""
        upload = self.cleaned_data.get(field)
        if not upload:
            return None
        suffix = upload.name.rsplit(".", 1)[-1].lower()
        media_type = types.get(suffix)
        if media_type is None:
            self.add_error(field, f"Use a file ending in {', '.join('.' + k for k in types)}.")
            return None
        data = upload.read()
        try:
            services.check_media(media_type, data)
        except ApplicationError as exc:
            self.add_error(field, f"This file {exc.description}.")
            return None
        return media_type, data


@admin.register(CardArt)
class CardArtAdmin(admin.ModelAdmin):
    form = CardArtForm
    list_display = ("name", "brand", "bin_from", "bin_to", "issuer_name", "preview", "updated_at")
    list_filter = ("brand",)
    fields = (
        "name",
        "brand",
        ("bin_from", "bin_to"),
        "issuer_name",
        "short_description",
        "foreground_color",
        "preview",
        "brand_logo_file",
        "issuer_logo_file",
        "icon_file",
        "card_background_combined_file",
        "background_vector_file",
        "terms_file",
    )
    readonly_fields = ("preview",)

    @admin.display(description="card")
    def preview(self, obj: CardArt) -> SafeString:
        asset = obj.card_background_combined or obj.card_background if obj.pk else None
        content = asset.contents.first() if asset else None
        if content is None:
            return format_html("{}", "—")
        data = base64.b64encode(bytes(content.data)).decode()
        return format_html('<img alt="card" width="240" src="data:image/png;base64,{}">', data)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None:
            form.base_fields["foreground_color"].initial = obj.foreground_color
        return form

    def save_model(self, request: HttpRequest, obj: CardArt, form: Any, change: bool) -> None:
        art = services.card_art_save(card_art_id=obj.pk, change=form.change)
        obj.pk = art.pk
        messages.info(request, "New artwork is published as new assets; tokens show it at once.")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MediaContentInline(ReadOnlyMixin, admin.TabularInline):
    model = MediaContent
    fields = ("type", "width", "height", "position")
    readonly_fields = fields
    extra = 0


@admin.register(Asset)
class AssetAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Published assets: immutable (new artwork is a new asset)."""

    list_display = ("id", "description", "created_at")
    search_fields = ("=id", "description")
    readonly_fields = ("id", "description", "created_at")
    inlines = (MediaContentInline,)
