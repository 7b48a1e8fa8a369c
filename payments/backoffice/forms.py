"""The form of a capture, reversal or refund, in the admin and the portal alike."""

from decimal import Decimal
from typing import Any

from django import forms

from merchants.models import Merchant

from .services import ActionRequest, new_key


class ActionForm(forms.Form):
    """Amount (not for a reversal: it gives back all that remains) and reason; `key` is the
    form's own, rendered once, so that the form sent twice makes one operation."""

    amount = forms.DecimalField(
        max_digits=12, decimal_places=3, min_value=Decimal("0.01"), required=False
    )
    reason = forms.CharField(
        max_length=255,
        widget=forms.TextInput(attrs={"size": 60}),
        help_text="Why: kept with the operation, with your name and the time.",
    )
    key = forms.RegexField(regex=r"^[0-9a-f]{32}$", widget=forms.HiddenInput)

    def __init__(self, *args: Any, kind: str, up_to: Decimal | None, currency: str, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.kind = kind
        if not self.is_bound:
            self.initial.setdefault("key", new_key())
        if up_to is None:
            del self.fields["amount"]
        else:
            amount = self.fields["amount"]
            amount.required = True
            amount.label = f"Amount ({currency})"
            amount.help_text = f"At most {up_to} {currency}."
            amount.initial = up_to

    def action_request(
        self,
        *,
        original_id: str,
        channel: str,
        actor: str,
        user_id: int | None,
        merchant: Merchant | None = None,
    ) -> ActionRequest:
        """What the valid form asks for, by whom, through which channel."""
        return ActionRequest(
            original_id=original_id,
            kind=self.kind,
            amount=self.cleaned_data.get("amount"),
            reason=self.cleaned_data["reason"],
            key=self.cleaned_data["key"],
            channel=channel,
            actor=actor,
            merchant=merchant,
            user_id=user_id,
        )
