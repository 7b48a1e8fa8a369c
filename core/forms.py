"""Staff form building blocks shared by the apps' admin forms."""

from collections.abc import Sequence
from typing import Any

from django import forms
from django.db.models import Model

from .tables import F, Rule


class SpecFieldsMixin(forms.BaseForm):
    """Runs the spec's field types over the form's text values, then its cross-field rules.

    `spec_fields` are rows of a spec table whose `attribute` names a form field; blank values are
    left to the form's own `required` check (mandatory model fields are `blank=False`).
    """

    spec_fields: Sequence[F] = ()
    spec_rules: Sequence[Rule] = ()

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        rows = [row for row in self.spec_fields if row.attribute in self.fields]
        for row in rows:
            value = cleaned.get(row.attribute)
            if isinstance(value, str) and value != "":
                try:
                    cleaned[row.attribute] = row.type.parse(value)
                except ValueError as exc:
                    self.add_error(row.attribute, str(exc))
        if not self.errors:
            by_name = {row.name: row.attribute for row in rows}
            flat = {row.name: cleaned.get(row.attribute) for row in rows}
            for rule in self.spec_rules:
                for name, message in rule(flat):
                    self.add_error(by_name.get(name), message)
        return cleaned


def new_identifier(form: forms.BaseForm, row: F, model: type[Model]) -> str:
    """A create form's identifier (merchant.id, pos.terminalId): declared on the form because it
    is not editable on the model, parsed by its table row, and not taken yet (the create
    service's unique constraint stays the last word under concurrency)."""
    value = form.cleaned_data[row.attribute].strip()
    try:
        value = row.type.parse(value)
    except ValueError as exc:
        raise forms.ValidationError(str(exc)) from None
    if model._default_manager.filter(**{row.attribute: value}).exists():
        raise forms.ValidationError(f"{row.name} {value} already exists.")
    return str(value)


def values_of(form: forms.BaseForm, names: Sequence[str]) -> dict[str, Any]:
    """The registered data a create service takes (`values=...`)."""
    return {name: form.cleaned_data[name] for name in names}
