"""The result-code registry: each app declares its codes, core refuses duplicates and codes
outside the families, and docs/api.md's table is generated from it."""

from pathlib import Path

import pytest
from django.conf import settings

from core import results
from core.management.commands.result_codes import END, START, replaced, table


def test_a_code_declared_twice_is_refused():
    with pytest.raises(results.DuplicateCode):
        results.declare("000.000.000", "again", owner="tests")


def test_a_code_outside_every_family_is_refused():
    with pytest.raises(ValueError, match="families"):
        results.declare("123.456.789", "nobody's", owner="tests")
    assert "123.456.789" not in results.catalogue()


def test_each_app_declares_its_own_codes():
    owners = {entry.result.code: entry.owner for entry in results.entries()}
    assert owners["700.100.101"] == "merchants"
    assert owners["700.100.102"] == "terminals"
    assert owners["700.400.100"] == "payments"
    assert owners["100.380.410"] == "issuer"
    assert owners["800.110.100"] == "core"


def test_docs_api_md_lists_every_code_of_the_registry():
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    fix = "run: .venv/bin/python manage.py result_codes --write docs/api.md"
    assert replaced(text) == text, fix
    documented = text.split(START, 1)[1].split(END, 1)[0]
    for code in results.catalogue():
        assert f"`{code}`" in documented
    assert table() in documented


def test_every_family_has_a_name_and_the_declines_are_the_issuers_and_risks():
    assert {name for name, _ in results.FAMILIES} | {"unclassified"} == set(results.FAMILY_NAMES)
    assert set(results.DECLINE_FAMILIES) <= set(results.FAMILY_NAMES)
    assert results.is_decline("800.100.203") and results.is_decline("100.400.311")
    for code in ("000.200.000", "700.400.100", "200.300.404", "900.100.300", "100.100.303"):
        assert not results.is_decline(code), code
    assert results.family_name("800.100.203") == "external bank declines"
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    assert "| external bank declines | `^(800" in text and "| risk | `^(100" in text
