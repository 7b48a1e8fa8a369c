"""Staff forms for terminals (Django admin): validated with the API's terminal table, saved by
the admin through `terminals.services`."""

from typing import Any

from django import forms

from core.forms import SpecFieldsMixin, new_identifier, values_of
from core.status import OperatingStatus

from .api.tables import TERMINAL_FIELDS, TERMINAL_ID
from .models import TERMINAL_DATA_FIELDS, Terminal


class TerminalDataForm(SpecFieldsMixin, forms.ModelForm):
    """The terminal's registered data, validated as the API validates it."""

    spec_fields = TERMINAL_FIELDS

    class Meta:
        model = Terminal
        fields = TERMINAL_DATA_FIELDS


class TerminalCreateForm(TerminalDataForm):
    """pos.terminalId and the merchant, plus the registered data."""

    # terminal_id is not editable on the model (never changed after creation), so the form
    # declares it and the service sets it.
    terminal_id = forms.CharField(
        label="Terminal ID",
        max_length=8,
        help_text="pos.terminalId: up to 8 letters, digits or underscores, unique across the "
        "acquirer. Cannot be changed later.",
    )

    class Meta(TerminalDataForm.Meta):
        fields = ("merchant", *TERMINAL_DATA_FIELDS)

    def clean_terminal_id(self) -> str:
        return new_identifier(self, TERMINAL_ID, Terminal)

    def terminal_values(self) -> dict[str, Any]:
        return values_of(self, TERMINAL_DATA_FIELDS)


class TerminalStatusForm(forms.Form):
    status = forms.ChoiceField(
        choices=OperatingStatus.choices,
        help_text="CLOSED or TERMINATED terminals cannot return to NORMAL.",
    )
