"""JSON Schemas of field types, rows and tables: what core.fields and core.tables say, in the
language of OpenAPI.

Every pattern comes from a field type's `shape()`: anchored here, once (`^(?:...)$`, so an
alternation such as `0[1-9]|1[0-2]` stays one group), and spelt for ECMA 262, which JSON Schema
patterns follow (Python's letter class becomes Unicode properties). Request bodies are flat:
one property per row, named as on the wire (`merchant.postcode`); a row of a repeated group or a
map is documented by a concrete name the API accepts (`cart.items[0].name`,
`customParameters[ref]`) and a `patternProperties` entry for every name it stands for. No other
name is accepted (`additionalProperties: false`), as the tables refuse unknown parameters.
Answers are nested (`{"merchant": {"id": ...}}`), built from the answer tables' rows.
"""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..fields import LETTER, FieldType
from ..nesting import key_of, split_name
from ..tables import F, Table
from ..tables.table import concrete_name, name_regex, syntax_escaped

REQUIREMENT = {"M": "Mandatory", "O": "Optional", "C": "Conditional"}

# core.fields.LETTER (Python cannot name a Unicode category) as ECMA 262 names it: a letter.
ECMA_LETTER = r"\p{L}"
# What Python reads and ECMA 262 does not (or reads otherwise): refused in a shape's pattern.
PYTHON_ONLY = re.compile(r"\\[dwWAZ]|\(\?P|\(\?[aiLmsux]|\(\?#")


def ecma(regex: str) -> str:
    """A shape's Python regular expression, as a JSON Schema pattern reads it."""
    regex = regex.replace(LETTER, ECMA_LETTER)
    found = PYTHON_ONLY.search(regex)
    if found:
        raise ValueError(
            f"pattern {regex!r} uses {found.group()!r}, which ECMA 262 reads otherwise"
        )
    return regex


def anchored(regex: str) -> str:
    """The whole value matches: `^(?:...)$` (an alternation stays inside the group)."""
    return f"^(?:{ecma(regex)})$"


def type_schema(ftype: FieldType) -> dict[str, Any]:
    """The JSON Schema of the text a type accepts (without example and description)."""
    shape = ftype.shape()
    schema: dict[str, Any] = {"type": "string"}
    if shape.enum is not None:
        schema["enum"] = list(shape.enum)
    if shape.pattern is not None:
        schema["pattern"] = anchored(shape.pattern)
    if shape.min_length is not None:
        schema["minLength"] = shape.min_length
    if shape.max_length is not None:
        schema["maxLength"] = shape.max_length
    return schema


def key_regex(ftype: FieldType) -> str:
    """A map key's type as part of a name's pattern (no anchors). A pattern that is one
    character class repeated (`[A-Za-z0-9._]+`) takes the type's lengths too."""
    shape = ftype.shape()
    if shape.enum is not None:
        return "|".join(syntax_escaped(value) for value in shape.enum)
    regex = ecma(shape.pattern or r"[^\]]+")
    single_class = re.fullmatch(r"(\[(?:\\.|[^\]\\])+\])[+*]", regex)
    if single_class:
        low, high = shape.min_length or 0, "" if shape.max_length is None else shape.max_length
        regex = f"{single_class.group(1)}{{{low},{high}}}"
    return regex


def description(spec: F) -> str:
    text = f"{REQUIREMENT.get(spec.req, spec.req)}. {spec.type.describe()}."
    if spec.meaning:
        text += f" {spec.meaning[:1].upper()}{spec.meaning[1:]}."
    return text


def property_schema(spec: F) -> dict[str, Any]:
    """One row: its type's schema, what it means and an example value."""
    schema = type_schema(spec.type)
    text = description(spec)
    if spec.key is not None:
        text += f" The key in brackets: {spec.key.describe()}."
    if spec.aliases:
        text += " Also accepted as " + ", ".join(f"`{alias}`" for alias in spec.aliases) + "."
    schema["description"] = text
    schema["example"] = spec.type.valid()
    return schema


def example_name(spec: F) -> str:
    """The name a row is documented by: itself, or for `[n]` and `[*]` rows one it stands for."""
    key = spec.key.valid() if spec.key is not None else "key"
    return concrete_name(spec.name, key)


def name_pattern(spec: F) -> str:
    """Every name a `[n]` or `[*]` row stands for, as a pattern of property names."""
    key = key_regex(spec.key) if spec.key is not None else r"[^\]]+"
    return f"^{name_regex(spec.name, key)}$"


def table_schema(
    table: Table,
    *,
    partial: bool = False,
    required: tuple[str, ...] = (),
    overrides: Mapping[str, FieldType] | None = None,
) -> dict[str, Any]:
    """A request body: one property per row, the repeated groups' and maps' names as patterns,
    nothing else. `partial` (updates): only `required` names are required. `overrides` narrow a
    row's type for one path (paymentType on /payments/{id})."""
    overrides = overrides or {}
    properties: dict[str, Any] = {}
    patterns: dict[str, Any] = {}
    must = []
    for spec in table:
        if spec.name in overrides:
            spec = F(spec.name, overrides[spec.name], spec.req, meaning=spec.meaning)
        schema = property_schema(spec)
        if "[" in spec.name and ("[n]" in spec.name or "[*]" in spec.name):
            properties[example_name(spec)] = schema
            general = {k: v for k, v in schema.items() if k != "example"}
            patterns[name_pattern(spec)] = general
        else:
            properties[spec.name] = schema
            for alias in spec.aliases:
                properties[alias] = {**schema, "description": f"Another spelling of {spec.name}."}
        if spec.name in required if partial else spec.mandatory:
            must.append(spec.name)
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if patterns:
        schema["patternProperties"] = patterns
    if must:
        schema["required"] = must
    return schema


def answer_schema(rows: Iterable[F]) -> dict[str, Any]:
    """The nested JSON of an answer's rows (`merchant.threeDSecure.enrolledAt` becomes
    `{"merchant": {"threeDSecure": {"enrolledAt": ...}}}`); every member optional, none other.
    A `[*]` row makes its group a map of such values (literal keys beside it keep their own
    types); a `[n]` row an array of objects."""
    root: dict[str, Any] = _object()
    for spec in rows:
        _place(root, split_name(spec.name), spec)
    return root


def _object() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


def _value(spec: F) -> dict[str, Any]:
    schema = type_schema(spec.type)
    text = spec.type.describe()
    schema["description"] = text + (
        f". {spec.meaning[:1].upper()}{spec.meaning[1:]}." if spec.meaning else "."
    )
    return schema


def _place(node: dict[str, Any], parts: list[str], spec: F) -> None:
    head, rest = parts[0], parts[1:]
    members = node["properties"]
    if not rest:
        members[head] = _value(spec)
    elif rest[0] == "[n]":
        array = members.setdefault(head, {"type": "array", "items": _object()})
        _place(array["items"], rest[1:], spec)
    elif rest[0] == "[*]":
        assert len(rest) == 1, f"{spec.name}: a map's values are plain"
        members.setdefault(head, _object())["additionalProperties"] = _value(spec)
    elif rest[0].startswith("["):  # a literal key of a map
        _place(members.setdefault(head, _object()), [key_of(rest[0]), *rest[1:]], spec)
    else:
        _place(members.setdefault(head, _object()), rest, spec)


# The documented examples of participator operations act as the demo's participator (`make run`);
# merchantTransactionId takes its row's valid example.
PARTICIPATOR_EXAMPLE: dict[str, str | None] = {
    "entityId": "BANK0001",
    "entityType": "PARTICIPATOR",
    "merchantTransactionId": None,
}


def body_example(table: Table, values: Mapping[str, str | None]) -> dict[str, str]:
    """An example body: `values` by name, a name given as None takes its row's valid example.
    Every name must be one the table accepts (a documented example is never refused for a
    name)."""
    body = {}
    for name, value in values.items():
        spec = table.match(name)
        assert spec is not None, f"{name} is not a parameter of this table"
        body[name] = spec.type.valid() if value is None else value
    return body
