"""Writing registered data: only the fields a resource allows, only those columns saved."""

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Model


def save_changes(obj: Model, values: Mapping[str, Any], *, allowed: Iterable[str]) -> list[str]:
    """Set `values` on a (locked) row and save exactly those columns (and `updated_at`).

    A key outside `allowed` is a programming error (a caller handing over what a table did not
    validate) and raises before anything is set. Returns the columns saved."""
    allowed = frozenset(allowed)
    refused = sorted(set(values) - allowed)
    if refused:
        raise ValueError(f"{type(obj).__name__}: not editable here: {', '.join(refused)}")
    if not values:
        return []
    for name, value in values.items():
        setattr(obj, name, value)
    fields = list(values)
    if any(f.name == "updated_at" for f in obj._meta.concrete_fields):
        fields.append("updated_at")
    obj.save(update_fields=fields)
    return fields
