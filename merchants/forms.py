"""Staff forms for entities and merchants (Django admin).

Field shapes come from the API's spec tables (`merchants.api.tables`), so a merchant
registered or edited in the admin satisfies the same AN/N/pattern rules as one created through
`/pay/v3/merchant/create`. The forms only validate; the admin saves through `merchants.services`.
"""

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pycountry
from django import forms

from core.fields.codes import minor_units, within_exponent
from core.forms import SpecFieldsMixin, new_identifier, values_of
from core.status import OperatingStatus
from core.tables.common import ENTITY_ID

from .api.tables import (
    AGGREGATOR_RULES,
    MERCHANT_FIELDS,
    MERCHANT_ID,
    bank_account_rule,
    notification_url_rule,
)
from .models import (
    MERCHANT_DATA_FIELDS,
    AmountLimit,
    Entity,
    EntityType,
    Merchant,
    PortalUser,
    SecurityStatus,
    ThreeDSDeleteReason,
)
from .services import portal_user_email_problem

COUNTRY_CHOICES = sorted(
    ((c.alpha_2, f"{c.alpha_2} {c.name}") for c in pycountry.countries),
    key=lambda choice: choice[1],
)

CURRENCY_CHOICES = sorted(
    (c.alpha_3, f"{c.alpha_3} {c.name}")
    for c in pycountry.currencies
    if minor_units(c.alpha_3) is not None
)


class AmountLimitForm(forms.ModelForm):
    """A maximum per payment in one currency (a merchant's, on its page, or the platform's): a
    currency payments can be made in, an amount above zero with no fraction the currency lacks.
    The admin saves through `merchants.services.amount_limit_*`."""

    currency = forms.ChoiceField(choices=CURRENCY_CHOICES)
    max_amount = forms.DecimalField(
        label="maximum per payment", max_digits=12, decimal_places=2, min_value=Decimal("0.01")
    )

    class Meta:
        model = AmountLimit
        fields = ("currency", "max_amount")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        currency, amount = data.get("currency"), data.get("max_amount")
        exponent = minor_units(currency) if currency else None
        if amount is not None and exponent is not None and not within_exponent(amount, exponent):
            self.add_error("max_amount", f"{currency} has {exponent} decimals")
        return data


# --- entities ------------------------------------------------------------------------------------


class EntityCreateForm(forms.ModelForm):
    """A new PARTICIPATOR (a bank or channel). Merchant entities are made with their merchant, so
    no MERCHANT entity exists without one."""

    entity_type = forms.ChoiceField(
        label="entityType",
        choices=[(EntityType.PARTICIPATOR, EntityType.PARTICIPATOR.label)],
        initial=EntityType.PARTICIPATOR,
        help_text="Merchant entities are created with their merchant (Merchants › Add merchant).",
    )

    class Meta:
        model = Entity
        fields = ("entity_id", "entity_type", "name")
        help_texts = {
            "entity_id": "8 uppercase letters or digits, e.g. BANK0002. Cannot be changed "
            "later. The token is shown once, after saving."
        }

    def clean_entity_id(self) -> str:
        value = self.cleaned_data["entity_id"].strip().upper()
        try:
            return ENTITY_ID.type.parse(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


class EntityChangeForm(forms.ModelForm):
    """What staff may change on an entity; id, type, owner and token are not editable here."""

    class Meta:
        model = Entity
        fields = ("name", "is_active", "test_mode")
        help_texts = {
            "is_active": "An inactive entity's token is refused at once (HTTP 401).",
            "test_mode": "A participator in test mode: its merchants' approvals answer "
            "000.100.112 and stay out of production settlement and daily files.",
        }


# --- merchants -----------------------------------------------------------------------------------


class MerchantDataForm(SpecFieldsMixin, forms.ModelForm):
    """The merchant's registered data, validated as the API validates it."""

    spec_fields = MERCHANT_FIELDS
    spec_rules = (*AGGREGATOR_RULES, bank_account_rule, notification_url_rule)

    # No default: a merchant in the first country of the list by accident is worse than a
    # form that asks.
    country = forms.ChoiceField(
        choices=[("", "Choose the country…"), *COUNTRY_CHOICES], help_text="ISO 3166-1 alpha-2"
    )
    corporate_status = forms.ChoiceField(
        choices=[("0", "0: not a sole proprietor"), ("1", "1: individual or sole proprietor")]
    )
    aggregator_type = forms.ChoiceField(
        required=False,
        choices=[("", "---------"), ("P", "P: payment facilitator"), ("M", "M: marketplace")],
    )
    notification_url = forms.URLField(
        label="Notification URL",
        required=False,
        max_length=2048,
        assume_scheme="https",
        help_text="Where token status notifications are posted (HTTPS, a public host).",
    )

    class Meta:
        model = Merchant
        fields = MERCHANT_DATA_FIELDS


class MerchantCreateForm(MerchantDataForm):
    """merchant.id and the owning participator, plus the registered data."""

    # merchant_id is not editable on the model (never changed after creation), so the form
    # declares it and the service sets it.
    merchant_id = forms.CharField(
        label="Merchant ID",
        max_length=15,
        help_text="merchant.id: 1 to 15 digits, unique across the acquirer. Cannot be changed "
        "later.",
    )

    class Meta(MerchantDataForm.Meta):
        fields = ("participator", *MERCHANT_DATA_FIELDS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        participator = self.fields["participator"]
        participator.queryset = Entity.objects.filter(  # type: ignore[attr-defined]
            entity_type=EntityType.PARTICIPATOR, is_active=True
        ).order_by("entity_id")
        participator.help_text = "The bank or channel that owns the merchant."

    def clean_merchant_id(self) -> str:
        return new_identifier(self, MERCHANT_ID, Merchant)

    def merchant_values(self) -> dict[str, Any]:
        return values_of(self, MERCHANT_DATA_FIELDS)


# --- action forms --------------------------------------------------------------------------------

UNCHANGED = ""
CLEAR = "-"


class MerchantStatusForm(forms.Form):
    """merchant.status and/or merchant.securityStatus for the selected merchants."""

    status = forms.ChoiceField(
        required=False,
        choices=[(UNCHANGED, "(leave unchanged)"), *OperatingStatus.choices],
        help_text="CLOSED or TERMINATED merchants cannot return to NORMAL.",
    )
    security_status = forms.ChoiceField(
        label="security status",
        required=False,
        choices=[
            (UNCHANGED, "(leave unchanged)"),
            *SecurityStatus.choices,
            (CLEAR, "none (clear it)"),
        ],
        help_text="Informational only: it does not stop transactions.",
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if not cleaned.get("status") and not cleaned.get("security_status"):
            raise forms.ValidationError("Choose a status, a security status, or both.")
        return cleaned

    def service_arguments(self) -> dict[str, str | None]:
        """`status` and `security_status` as `merchant_set_status` takes them: None = unchanged,
        "" = clear the security status."""
        security = self.cleaned_data["security_status"]
        return {
            "status": self.cleaned_data["status"] or None,
            "security_status": None
            if security == UNCHANGED
            else ("" if security == CLEAR else security),
        }


class ThreeDSDeleteForm(forms.Form):
    reason = forms.ChoiceField(
        choices=ThreeDSDeleteReason.choices,
        widget=forms.RadioSelect,
        help_text="Sent to the card network with the deletion.",
    )


# --- tokens ---------------------------------------------------------------------------------------

# How long a rotated token keeps working (seconds): none, an hour, a day (MAX_TOKEN_OVERLAP).
TOKEN_OVERLAPS = [
    ("86400", "24 hours (proposed: time to deploy the new one)"),
    ("3600", "1 hour"),
    ("0", "Stop now: the old token is refused at once"),
]
PROPOSED_OVERLAP = "86400"  # a day, unless the person chooses otherwise


class TokenOverlapForm(forms.Form):
    """How long the token being replaced keeps working (the admin's rotation action and the
    portal's Developers page)."""

    overlap = forms.ChoiceField(
        label="The old token keeps working for",
        choices=TOKEN_OVERLAPS,
        initial=PROPOSED_OVERLAP,
        required=False,  # left out: the proposed day; stopping at once is chosen, never assumed
        widget=forms.RadioSelect,
        help_text="An overlap lets you deploy the new token before the old one is refused; "
        "notifications carry the new token at once.",
    )

    def chosen_overlap(self) -> timedelta:
        return timedelta(seconds=int(self.cleaned_data["overlap"] or PROPOSED_OVERLAP))


# --- portal users ---------------------------------------------------------------------------------


class PortalUserInlineForm(forms.ModelForm):
    """A row of the merchant page's portal users: a new row takes an email (the user's name and
    address); an existing row shows it, with "active" and "reset password" to tick. The admin
    saves through `merchants.services` (`PortalUserInline`), never this form."""

    email = forms.EmailField(
        required=False,
        help_text="The merchant administrator's email: also the user name to sign in with.",
    )
    active = forms.BooleanField(
        required=False, initial=True, help_text="Untick to deactivate; tick to re-activate."
    )
    reset_password = forms.BooleanField(
        label="reset password",
        required=False,
        help_text="Tick and save: a one-time password is shown once.",
    )
    role = forms.ChoiceField(
        choices=PortalUser.Role.choices,
        initial=PortalUser.Role.ADMINISTRATOR,
        help_text="What the user may do in the portal.",
    )

    class Meta:
        model = PortalUser
        fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            user = self.instance.user
            # Shown, never sent back: a user name of before emails (the demo's) is not checked.
            self.fields["email"] = forms.CharField(
                required=False, disabled=True, initial=user.email or user.username
            )
            self.fields["active"].initial = user.is_active
            self.fields["role"].initial = self.instance.role
        else:
            self.fields["reset_password"].disabled = True
            self.fields["active"].disabled = True

    def clean_email(self) -> str:
        email = (self.cleaned_data.get("email") or "").strip().lower()
        if self.instance.pk:
            return email
        if not email:
            raise forms.ValidationError("Enter the new portal user's email.")
        problem = portal_user_email_problem(email)
        if problem:
            raise forms.ValidationError(f"Not created: {problem}.")
        return email
