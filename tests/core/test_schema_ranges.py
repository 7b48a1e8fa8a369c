"""Ranged and enumerated fields in the OpenAPI schema (issue 23): the answers' `card.expiryMonth`
was documented `^(?:[0-9]+)$`, which admits 00 and 13. Every field type with a range or an
enumeration names its edges (`FieldType.boundaries`: a month's 00, 01, 12, 13; each value of an
enumeration and one outside it); at each of them the schema the generator writes and the
validator (the type's `parse`) must agree. Walked twice: over every row of every table the
project's modules hold, and over every field the generated document renders (request bodies,
query and path parameters, answers, the issuer's payloads)."""

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import jsonschema_rs
import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from core.fields import FieldType, Month, Ranged, range_regex
from core.schema import operations as schema_operations
from core.schema import pages as schema_pages
from core.schema import types as schema_types
from core.schema.pages import COMPONENTS, OPERATIONS, url_paths
from core.tables import F, Table

MONTH_PATTERN = "^(?:0[1-9]|1[0-2])$"


def accepts(ftype: FieldType, text: str) -> bool:
    try:
        ftype.parse(text)
    except ValueError:
        return False
    return True


def disagreements(ftype: FieldType, schema: dict[str, Any]) -> list[tuple[str, bool, bool]]:
    """(value, the schema admits it, the validator accepts it) where the two differ."""
    check = jsonschema_rs.Draft202012Validator(schema)
    found = []
    for value in ftype.boundaries():
        admitted, accepted = check.is_valid(value), accepts(ftype, value)
        if admitted != accepted:
            found.append((value, admitted, accepted))
    return found


def table_rows() -> Iterator[tuple[str, F]]:
    """Every row of every Table a module of the project holds (the URL conf imports them all,
    the issuer's operations register theirs on import)."""
    importlib.import_module("config.urls")
    importlib.import_module("issuer.operations.authentication")
    root = Path(settings.BASE_DIR).resolve()
    for name, module in sorted(sys.modules.items()):
        where = getattr(module, "__file__", None)
        if not where or ".venv" in where or not Path(where).resolve().is_relative_to(root):
            continue
        for attribute, value in vars(module).items():
            if isinstance(value, Table):
                for row in value:
                    yield f"{name}.{attribute}: {row.name}", row


@pytest.fixture(scope="module")
def rendered() -> tuple[list[tuple[FieldType, dict[str, Any]]], dict[str, Any]]:
    """Every field type the document renders with the schema the generator gave it, and the
    document (every field's schema is made by `type_schema`: recorded as it is made)."""
    seen: list[tuple[FieldType, dict[str, Any]]] = []
    original = schema_types.type_schema

    def recording(ftype: FieldType) -> dict[str, Any]:
        schema = original(ftype)
        seen.append((ftype, dict(schema)))
        return schema

    def forget_documented_pages() -> None:
        """The pages outside DRF keep their operations once made (core.schema.documented)."""
        for _, callback in url_paths():
            for made in (getattr(callback, name, None) for name in (OPERATIONS, COMPONENTS)):
                if hasattr(made, "cache_clear"):
                    made.cache_clear()

    forget_documented_pages()
    with (
        mock.patch.object(schema_types, "type_schema", recording),
        mock.patch.object(schema_operations, "type_schema", recording),
        mock.patch.object(schema_pages, "type_schema", recording),
    ):
        generated = SchemaGenerator().get_schema(request=None, public=True)
    forget_documented_pages()
    return seen, json.loads(OpenApiJsonRenderer().render(generated))


def walk(node: Any, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


# --- The generator --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "width"),
    [(1, 12, 2), (1900, 2099, 4), (0, 0, None), (0, 9, None), (1, 100, None), (60, 900, None)]
    + [(13, 4587, None), (60, 2592000, None), (7, 7, 3), (0, 999, 3), (1, 9999, None)],
)
def test_range_regex_matches_exactly_the_numbers_of_the_range(low, high, width):
    import re

    regex = re.compile(range_regex(low, high, width))
    digits = width or len(str(high))
    for value in range(min(10**digits, 3_000_000)):
        text = f"{value:0{width}d}" if width else str(value)
        assert bool(regex.fullmatch(text)) == (low <= value <= high), text


def test_a_month_is_01_to_12_in_the_schema_and_the_validator():
    schema = schema_types.type_schema(Month())
    assert schema["pattern"] == MONTH_PATTERN
    assert (schema["minLength"], schema["maxLength"]) == (2, 2)
    check = jsonschema_rs.Draft202012Validator(schema)
    for value, ok in (("00", False), ("01", True), ("12", True), ("13", False), ("1", False)):
        assert check.is_valid(value) is ok, value
        assert accepts(Month(), value) is ok, value


def test_a_range_without_a_width_takes_leading_zeros_up_to_its_digits():
    days = Ranged(1, 9999)
    check = jsonschema_rs.Draft202012Validator(schema_types.type_schema(days))
    for value, ok in (("0", False), ("0000", False), ("0028", True), ("9999", True)):
        assert check.is_valid(value) is ok and accepts(days, value) is ok, value
    assert not check.is_valid("00028") and not accepts(days, "00028")


# --- Every table, every rendered field ----------------------------------------------------------


def test_every_ranged_or_enumerated_row_of_every_table_agrees_with_its_schema():
    checked, problems = set(), []
    for where, row in table_rows():
        for ftype in (row.type, row.key):
            if ftype is None or not ftype.boundaries():
                continue
            checked.add(repr(ftype))
            for value, admitted, accepted in disagreements(ftype, schema_types.type_schema(ftype)):
                problems.append(f"{where}: {value!r} schema {admitted}, validator {accepted}")
    assert not problems, "\n".join(problems)
    assert len(checked) > 50  # Choices, months, ranges, dates, ISO codes, lengths


def test_every_ranged_or_enumerated_field_of_the_document_agrees_with_its_validator(rendered):
    seen, document = rendered
    in_document = {
        json.dumps({k: node[k] for k in ("pattern", "enum") if k in node}, sort_keys=True)
        for _, node in walk(document)
        if node.get("type") == "string"
    }
    problems, kinds = [], set()
    for ftype, schema in seen:
        shape = json.dumps(
            {k: schema[k] for k in ("pattern", "enum") if k in schema}, sort_keys=True
        )
        assert shape in in_document, f"{ftype!r}: {shape} is not in the document"
        if "enum" in schema or isinstance(ftype, Ranged):
            # Nothing enumerated or ranged goes unchecked.
            assert ftype.boundaries(), f"{ftype!r} names no boundaries"
        for value, admitted, accepted in disagreements(ftype, schema):
            problems.append(f"{ftype!r}: {value!r} schema {admitted}, validator {accepted}")
        kinds.add(type(ftype).__name__)
    assert not problems, "\n".join(problems)
    expected = {"Choice", "Ranged", "Seconds", "Country", "Currency", "Date", "UtcTimestamp"}
    assert expected | {"Timestamp", "Percent", "CurrencyNumeric", "N"} <= kinds


def test_every_expiry_month_of_the_api_is_01_to_12(rendered):
    """Request bodies, answers (`card.expiryMonth` of a payment or registration) and the
    issuer's payloads alike: not `^(?:[0-9]+)$`. (The hosted checkout's browser form, outside
    the components, takes any text and answers its problems on the page.)"""
    _, document = rendered
    months = string_fields(document, ("expiryMonth", "card.expiryMonth"))
    assert len(months) > 10
    answers = [where for where, _ in months if where.endswith("/card/properties/expiryMonth")]
    assert answers  # the payments' and registrations' answers
    for where, node in months:
        assert node.get("pattern") == MONTH_PATTERN, where
        assert admitted(node, ("00", "01", "12", "13")) == [False, True, True, False]


def test_the_issuers_seconds_reach_the_maximum_they_describe():
    """BlockFund's `expiry` is 60 to 2592000 seconds (30 days); 2592000 has seven digits, and
    six were all the type took."""
    from issuer.operations.transaction import BLOCK

    expiry = BLOCK.by_name["expiry"].type
    assert expiry.parse("2592000") == 2592000
    for refused in ("59", "2592001", "0"):
        with pytest.raises(ValueError, match="from 60 to 2592000"):
            expiry.parse(refused)


def test_every_expiry_year_and_mmyy_of_the_api_is_a_real_date(rendered):
    """The issuer's `expiryYear` (Purchase, Verification, ExpiryDateUpdate) was `N4`, which took
    0000, and a token's `tokenInfo.tokenExpiry` (MMYY) admitted month 13: a year is 1900 to
    2099 like the payments', and MMYY starts with a month."""
    _, document = rendered
    years = string_fields(document, ("expiryYear", "card.expiryYear"))
    assert len(years) > 5
    for where, node in years:
        assert admitted(node, ("0000", "1899", "2030", "2100")) == [False, False, True, False], (
            where
        )
    mmyy = string_fields(document, ("tokenExpiry",))
    assert mmyy
    for _, node in mmyy:
        assert admitted(node, ("0030", "0130", "1230", "1330")) == [False, True, True, False]


def string_fields(document: dict[str, Any], names: tuple[str, ...]) -> list[tuple[str, Any]]:
    """(where, schema) of every string property of the components named one of `names`."""
    return [
        (where, node)
        for where, node in walk(document["components"], "#/components")
        if where.rsplit("/", 1)[-1] in names and node.get("type") == "string"
    ]


def admitted(node: dict[str, Any], values: tuple[str, ...]) -> list[bool]:
    """Which of `values` the property's schema admits."""
    check = jsonschema_rs.Draft202012Validator({"type": "string", **node})
    return [check.is_valid(value) for value in values]
