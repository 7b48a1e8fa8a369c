"""Requests built from the resource tables: a valid body, and every field's invalid variants.

The format tests iterate over the same `Table` rows that build the serializers, so a field added
to a table is tested without a hand-written case.
"""

from collections.abc import Iterator
from typing import Any

from core.tables import F, Table

COMMON_NAMES = {"entityId", "entityType", "merchantTransactionId"}


def valid_body(table: Table, **overrides: Any) -> dict[str, str]:
    """Every mandatory field of the table with its type's valid example (common fields left to
    the client), then overrides (None removes a field)."""
    body = {f.name: f.type.valid() for f in table if f.mandatory and f.name not in COMMON_NAMES}
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


def field_cases(table: Table, *, skip: set[str] = frozenset()) -> Iterator[tuple[str, F, str]]:  # type: ignore[assignment]
    """(case id, field, invalid value) for every field and every invalid example of its type."""
    for spec in table:
        if spec.name in COMMON_NAMES | skip:
            continue
        for index, bad in enumerate(spec.type.invalid()):
            yield f"{spec.name}-{index}", spec, bad


def mandatory_fields(table: Table, *, skip: set[str] = frozenset()) -> list[F]:  # type: ignore[assignment]
    return [f for f in table if f.mandatory and f.name not in COMMON_NAMES | skip]


def project_tables() -> list[Table]:
    """Every Table a module of the project's apps holds (the URL conf imports them all)."""
    import importlib
    import sys

    importlib.import_module("config.urls")
    importlib.import_module("issuer.operations.authentication")
    apps = ("core.", "merchants.", "terminals.", "payments.", "issuer.")
    return [
        value
        for name, module in list(sys.modules.items())
        if name.startswith(apps)
        for value in vars(module).values()
        if isinstance(value, Table)
    ]
