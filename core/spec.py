"""Resource tables: one row per dotted field name, from which serializers (and tests) are built.

A `Table` is the single place that says `merchant.postcode` is AN10 of letters, digits and
hyphen and is Mandatory. `Table.serializer()` builds the nested DRF serializer that validates a
parsed request; it refuses parameters the table does not name, so a misspelt field is an error,
not silently dropped. Conditional rules that involve several fields are plain functions over the
flat validated data and run after every field is valid.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rest_framework import serializers

from .errors import ParameterError
from .fields import FieldType
from .nesting import flatten, join_name, key_of, lookup, split_name

MANDATORY, OPTIONAL, CONDITIONAL = "M", "O", "C"

Rule = Callable[[dict[str, Any]], Iterable[tuple[str, str]]]


def snake(name: str) -> str:
    """aggregatorID -> aggregator_id, nationalTaxIdentificationNumber -> national_tax_..."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", name)
    return name.lower()


@dataclass(frozen=True)
class F:
    """One field: its dotted name, type, requirement word (M, O, C) and model attribute."""

    name: str
    type: FieldType
    req: str = OPTIONAL
    attr: str = ""
    meaning: str = ""

    @property
    def attribute(self) -> str:
        return self.attr or snake(key_of(split_name(self.name)[-1]))

    @property
    def mandatory(self) -> bool:
        return self.req == MANDATORY


class SpecField(serializers.Field):
    """A DRF field delegating to a spec `FieldType`; optional fields accept "" (not applicable)."""

    def __init__(self, ftype: FieldType, *, blank_ok: bool, **kwargs: Any):
        super().__init__(**kwargs)
        self.ftype = ftype
        self.blank_ok = blank_ok
        self.error_messages["required"] = f"is required ({ftype.describe()})"
        self.error_messages["null"] = f"may not be null ({ftype.describe()})"

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if isinstance(data, str) and data.strip() == "":
            if self.blank_ok:
                return True, ""
            self.fail_blank()
        return super().validate_empty_values(data)

    def fail_blank(self) -> None:
        raise serializers.ValidationError(f"may not be blank ({self.ftype.describe()})")

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            raise serializers.ValidationError(f"must be {self.ftype.describe()}")
        try:
            return self.ftype.parse(data.strip())
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value: Any) -> Any:
        return value


class _Group(serializers.Serializer):
    """A nested group (`merchant`, `pos`, ...). Built dynamically from a table."""


@dataclass
class Table:
    """The fields of one request (or resource), with its cross-field rules."""

    fields: list[F]
    rules: list[Rule] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_name = {f.name: f for f in self.fields}

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.fields)

    def names(self) -> set[str]:
        return set(self.by_name)

    def only(self, *prefixes: str) -> list[F]:
        return [f for f in self.fields if f.name.startswith(prefixes)]

    def validate(
        self,
        data: Mapping[str, Any],
        *,
        partial: bool = False,
        required: Iterable[str] = (),
        run_rules: bool = True,
    ) -> dict[str, Any]:
        """Validate nested request data; return {dotted name: parsed value} of what was sent.

        `partial` (updates): mandatory fields may be omitted but not blanked; names in `required`
        stay required. Raises ParameterError listing every problem, with nothing written.
        """
        errors: list[tuple[str, Any, str]] = []
        known = self.names()
        for name, value in flatten(data):
            if name not in known:
                errors.append((name, value, "unknown parameter"))
        serializer = self._serializer_class(frozenset(required) if partial else None)(
            data=self._with_groups(data)
        )
        if not serializer.is_valid():
            from .errors import flatten_errors

            errors.extend(
                (name, lookup(data, name), message)
                for name, message in flatten_errors(serializer.errors)
            )
        if errors:
            raise ParameterError(_dedupe(errors))
        flat = {name: value for name, value in flatten(serializer.validated_data)}
        if run_rules:
            self.check_rules(flat, data)
        return flat

    def check_rules(self, flat: Mapping[str, Any], data: Mapping[str, Any]) -> None:
        """Cross-field rules over flat values (for updates: stored values merged with changes)."""
        errors = [
            (name, lookup(data, name), message)
            for rule in self.rules
            for name, message in rule(dict(flat))
        ]
        if errors:
            raise ParameterError(errors)

    def _serializer_class(
        self, still_required: frozenset[str] | None
    ) -> type[serializers.Serializer]:
        tree: dict[str, Any] = {}
        for spec in self.fields:
            parts = [key_of(p) for p in split_name(spec.name)]
            node = tree
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            required = spec.mandatory if still_required is None else spec.name in still_required
            node[parts[-1]] = SpecField(spec.type, blank_ok=not spec.mandatory, required=required)
        return _build("Request", tree, root=True)

    def _with_groups(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of data in which every group of the table exists, so a missing group reports
        each of its mandatory fields by name instead of the group as a whole."""
        out: dict[str, Any] = dict(data)
        for spec in self.fields:
            parts = [key_of(p) for p in split_name(spec.name)]
            node = out
            for part in parts[:-1]:
                child = node.get(part)
                if child is None:
                    child = node[part] = {}
                elif isinstance(child, dict):
                    child = node[part] = dict(child)
                else:
                    break
                node = child
        return out


def model_values(fields: Iterable[F], flat: Mapping[str, Any]) -> dict[str, Any]:
    """{dotted name: value} -> {model attribute: value}, for the given fields that were sent."""
    return {spec.attribute: flat[spec.name] for spec in fields if spec.name in flat}


def _build(
    name: str, tree: Mapping[str, Any], *, root: bool = False
) -> type[serializers.Serializer]:
    attrs: dict[str, Any] = {}
    for key, node in tree.items():
        if isinstance(node, dict):
            attrs[key] = _build(key, node)(required=False)
        else:
            attrs[key] = node
    base = serializers.Serializer if root else _Group
    return type(f"{name[:1].upper()}{name[1:]}Serializer", (base,), attrs)


def _dedupe(errors: list[tuple[str, Any, str]]) -> list[tuple[str, Any, str]]:
    seen, out = set(), []
    for name, value, message in errors:
        if (name, message) not in seen:
            seen.add((name, message))
            out.append((name, value, message))
    return out


def require_together(if_name: str, then_name: str, message: str = "") -> Rule:
    """`then_name` is required when `if_name` is given (non-blank)."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        if flat.get(if_name) not in (None, "") and flat.get(then_name) in (None, ""):
            yield then_name, message or f"required when {if_name} is given"

    return rule


__all__ = ["CONDITIONAL", "F", "MANDATORY", "OPTIONAL", "Table", "join_name", "require_together"]
