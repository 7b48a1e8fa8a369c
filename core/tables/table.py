"""Resource tables: one row per dotted field name; requests are validated against them and
answers are rendered from them.

A `Table` is the single place that says `merchant.postcode` is AN10 of letters, digits and
hyphen and is Mandatory. `Table.validate` checks a parsed request against the rows and returns
the parsed values by dotted name; it refuses parameters the table does not name, so a misspelt
field is an error, not silently dropped. `Table.render` goes the other way: an object's
attributes under the rows' dotted names, formatted by the rows' types. The same rows give the
OpenAPI schema (core.schema) and the generated format tests.

A row may accept other spellings (`aliases`: the specification's `token.Type` and its samples'
`paymentType`); the value is returned under the row's name, and sending two spellings of one
row is refused. A `secret` row's value is never echoed in an error.

Repeated groups and maps are rows too: `[n]` marks an index (`cart.items[n].name`; the indexes
sent must run from 0 without gaps, up to the group's limit) and `[*]` a map key
(`customParameters[*]`, whose keys are checked by the row's `key` type). A mandatory row inside
a repeated group is required in every item that is sent. Conditional rules that involve several
fields are plain functions over the flat values (core.tables.rules), declared with the group of
rows they belong to, and run after every field is valid; tables add up with `+`, rows, rules and
limits together.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MASKED, ParameterError
from ..fields import FieldType
from ..nesting import flatten, join_name, key_of, lookup, split_name

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
    attr: str = ""  # the model attribute; a dotted path renders a related object's
    meaning: str = ""
    key: FieldType | None = None  # the key type of a `[*]` map row
    aliases: tuple[str, ...] = ()  # other spellings a request may use
    secret: bool = False  # never echoed in an error (card data, codes)
    source: Callable[[Any], Any] | None = None  # renders a value no attribute holds

    @property
    def attribute(self) -> str:
        return self.attr or snake(key_of(split_name(self.name)[-1]))

    def value_of(self, obj: Any) -> Any:
        """The value this row renders from `obj` (None when a related object is missing)."""
        if self.source is not None:
            return self.source(obj)
        for part in self.attribute.split("."):
            if obj is None:
                return None
            obj = getattr(obj, part)
        return obj

    def safe(self, value: Any) -> Any:
        return MASKED if self.secret and value not in (None, "") else value

    @property
    def mandatory(self) -> bool:
        return self.req == MANDATORY


@dataclass
class Table:
    """The fields of one request (or resource), with its cross-field rules and group limits."""

    fields: list[F]
    rules: list[Rule] = field(default_factory=list)
    # Maximum items of a repeated group, by its pattern name ("cart.items": 1000).
    limits: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {f.name: f for f in self.fields}
        self._exact = {f.name: f for f in self.fields if "[" not in f.name}
        for row in self.fields:
            for alias in row.aliases:
                assert alias not in self._exact, f"{alias} names two rows"
                self._exact[alias] = row
        # Literal bracket keys (customParameters[ReqAuthMethod]) before indexes, indexes before
        # open maps (customParameters[*]): the most specific row names a field.
        bracketed = [f for f in self.fields if "[" in f.name]
        bracketed.sort(key=lambda f: ("[*]" in f.name, "[n]" in f.name))
        self._patterns = [(_pattern(f.name), f) for f in bracketed]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.fields)

    def names(self) -> set[str]:
        return set(self.by_name)

    def __add__(self, other: "Table") -> "Table":
        return Table(
            [*self.fields, *other.fields],
            [*self.rules, *other.rules],
            {**self.limits, **other.limits},
        )

    def match(self, name: str) -> F | None:
        spec = self._exact.get(name)
        if spec is not None:
            return spec
        for regex, candidate in self._patterns:
            if regex.fullmatch(name):
                return candidate
        return None

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
        Blank optional values are returned as "" (not applicable; clears on update).
        """
        errors: list[tuple[str, Any, str]] = []
        flat: dict[str, Any] = {}
        failed: set[str] = set()
        instances: dict[str, set[str]] = {}  # group pattern -> concrete prefixes sent
        spelled: dict[str, str] = {}  # row name -> the spelling sent (aliases)
        for sent, raw in flatten(data):
            spec = self.match(sent)
            if spec is None:
                errors.append((sent, raw, "unknown parameter"))
                continue
            name = spec.name if spec.aliases else _canonical(spec.name, sent)
            if name in spelled:
                errors.append((sent, spec.safe(raw), f"given twice: as {spelled[name]} and {sent}"))
                failed.add(name)
                continue
            spelled[name] = sent
            shown = spec.safe(raw)
            self._note_instances(spec.name, name, instances)
            problem = self._key_problem(spec, name)
            if problem:
                errors.append((name, shown, problem))
                failed.add(name)
                continue
            text = raw.strip() if isinstance(raw, str) else raw
            if not isinstance(text, str):
                errors.append((name, shown, f"must be {spec.type.describe()}"))
                failed.add(name)
            elif text == "":
                if spec.mandatory or (partial and spec.name in required):
                    errors.append((name, shown, f"may not be blank ({spec.type.describe()})"))
                    failed.add(name)
                else:
                    flat[name] = ""
            else:
                try:
                    flat[name] = spec.type.parse(text)
                except ValueError as exc:
                    errors.append((name, shown, str(exc)))
                    failed.add(name)
        errors += self._missing(flat, failed, instances, partial, frozenset(required))
        errors += self._group_problems(instances)
        if errors:
            raise ParameterError(_dedupe(errors))
        if run_rules:
            self.check_rules(flat, data)
        return flat

    def _note_instances(self, pattern: str, name: str, instances: dict[str, set[str]]) -> None:
        """Record each concrete item prefix (`cart.items[3]`) under its concrete group name."""
        pattern_parts, name_parts = split_name(pattern), split_name(name)
        for depth, part in enumerate(pattern_parts):
            if part == "[n]":
                group = join_name(name_parts[:depth])
                instances.setdefault(group, set()).add(join_name(name_parts[: depth + 1]))

    def _key_problem(self, spec: F, name: str) -> str:
        if spec.key is None:
            return ""
        key = key_of(split_name(name)[-1])
        try:
            spec.key.parse(key)
        except ValueError:
            return f"has an invalid name: the key must be {spec.key.describe()}"
        return ""

    def _missing(
        self,
        flat: Mapping[str, Any],
        failed: set[str],
        instances: dict[str, set[str]],
        partial: bool,
        required: frozenset[str],
    ) -> list[tuple[str, Any, str]]:
        errors = []
        for spec in self.fields:
            if not (spec.name in required if partial else spec.mandatory) or "[*]" in spec.name:
                continue
            for name in self._concrete_names(spec.name, instances):
                if name not in flat and name not in failed:
                    errors.append((name, None, f"is required ({spec.type.describe()})"))
        return errors

    def _concrete_names(self, pattern: str, instances: dict[str, set[str]]) -> list[str]:
        """The names a mandatory row stands for: itself, or one per item of its groups sent."""
        if "[n]" not in pattern:
            return [pattern]
        parts = split_name(pattern)
        depth = parts.index("[n]")
        group = join_name(parts[:depth])
        rest = join_name(["x", *parts[depth + 1 :]])[1:]
        names = []
        for prefix in sorted(instances.get(group, ())):
            names += self._concrete_names(prefix + rest, instances)
        return names

    def _group_problems(self, instances: dict[str, set[str]]) -> list[tuple[str, Any, str]]:
        errors: list[tuple[str, Any, str]] = []
        for group, prefixes in sorted(instances.items()):
            indexes = sorted(int(prefix.rpartition("[")[2].rstrip("]")) for prefix in prefixes)
            if indexes != list(range(len(indexes))):
                errors.append((group, None, "indexes must run from 0 without gaps"))
            limit = self.limits.get(re.sub(r"\[[0-9]+\]", "[n]", group))
            if limit is not None and len(indexes) > limit:
                errors.append((group, None, f"at most {limit} items"))
        return errors

    def check_rules(self, flat: Mapping[str, Any], data: Mapping[str, Any]) -> None:
        """Cross-field rules over flat values (for updates: stored values merged with changes)."""
        errors = []
        for rule in self.rules:
            for name, message in rule(dict(flat)):
                row = self.match(name)
                value = lookup(data, name)
                errors.append((name, row.safe(value) if row is not None else value, message))
        if errors:
            raise ParameterError(errors)

    def render(self, obj: Any, *, names: Iterable[str] | None = None) -> dict[str, Any]:
        """{dotted name: value} of `obj` for every plain row (or those named), formatted by the
        rows' types; blank and missing values are left out."""
        rows = self.fields if names is None else [self.by_name[name] for name in names]
        out: dict[str, Any] = {}
        for row in rows:
            if "[" in row.name:
                continue
            value = row.value_of(obj)
            if value is None or value == "":
                continue
            out[row.name] = (
                value if isinstance(value, str | list | dict) else row.type.format(value)
            )
        return out

    def values(self, flat: Mapping[str, Any]) -> dict[str, Any]:
        """{model attribute: value} of the rows that were sent (for a service's `values`)."""
        return model_values(self.fields, flat)


def _canonical(pattern: str, name: str) -> str:
    """The name with map keys and indexes in brackets (`customParameters[X]`)."""
    parts = split_name(name)
    for depth, part in enumerate(split_name(pattern)):
        if part.startswith("[") and not parts[depth].startswith("["):
            parts[depth] = f"[{parts[depth]}]"
    return join_name(parts)


# An index of a repeated group: 0, or ASCII digits without a leading zero.
INDEX = r"(?:0|[1-9][0-9]{0,5})"


def _pattern(name: str) -> re.Pattern[str]:
    out = ""
    for part in split_name(name):
        if part == "[n]":
            out += rf"\[{INDEX}\]"
        elif part == "[*]":
            # customParameters[X] nests to the same data as customParameters.X; both match.
            out += r"(?:\[[^\]]+\]|\.[^.\[\]]+)"
        elif part.startswith("["):
            key = re.escape(part[1:-1])
            out += rf"(?:\[{key}\]|\.{key})"
        else:
            out += ("\\." if out else "") + re.escape(part)
    return re.compile(out)


def name_regex(name: str, key: str) -> str:
    """The names a `[n]` or `[*]` row stands for, as the schema documents them (core.schema):
    bracketed, `[n]` any index, `[*]` a key matching the regular expression `key`. (The
    validator also takes `customParameters.X` for `customParameters[X]`: `_pattern`.)"""
    out = ""
    for part in split_name(name):
        if part == "[n]":
            out += rf"\[{INDEX}\]"
        elif part == "[*]":
            out += rf"\[(?:{key})\]"
        else:
            out += ("" if part.startswith("[") or not out else r"\.") + syntax_escaped(part)
    return out


def syntax_escaped(text: str) -> str:
    """`text` matched literally, escaping only the syntax characters (a portable regex: ECMA
    262, which JSON Schema patterns follow, refuses escapes such as `\\#`)."""
    return re.sub(r"([\\^$.*+?()[\]{}|/])", r"\\\1", text)


def concrete_name(name: str, key: str) -> str:
    """A name a `[n]` or `[*]` row stands for: index 0, and `key` for a map key."""
    return name.replace("[n]", "[0]").replace("[*]", f"[{key}]")


def model_values(fields: Iterable[F], flat: Mapping[str, Any]) -> dict[str, Any]:
    """{dotted name: value} -> {model attribute: value}, for the given fields that were sent."""
    return {spec.attribute: flat[spec.name] for spec in fields if spec.name in flat}


def _dedupe(errors: list[tuple[str, Any, str]]) -> list[tuple[str, Any, str]]:
    seen, out = set(), []
    for name, value, message in errors:
        if (name, message) not in seen:
            seen.add((name, message))
            out.append((name, value, message))
    return out
