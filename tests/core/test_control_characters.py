"""Control characters in text (issue 9, item 11): every text type is a single line, so C0
controls (tab, CR and LF included), DEL, C1 controls and the Unicode line and paragraph
separators are refused: `descriptor`, `card.holder` and `merchant.name` reach statement and
clearing files, where a line break starts a new record."""

import pytest

from core.fields import AN, IPAddress, Truncated
from merchants.models import Merchant
from tests.conftest import code, param_errors
from tests.spec_requests import project_tables, valid_body

CONTROLS = ["\n", "\r", "\r\n", "\t", "\x00", "\x1b", "\x7f", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("control", CONTROLS, ids=[hex(ord(c[0])) for c in CONTROLS])
@pytest.mark.parametrize("ftype", [AN(20), AN(20, pattern=r"[^<>]+"), Truncated(10)])
def test_text_types_refuse_control_characters(ftype, control):
    with pytest.raises(ValueError, match="must be"):
        ftype.parse(f"ACME{control}ORDER")


def test_ip_addresses_refuse_control_characters():
    with pytest.raises(ValueError):
        IPAddress().parse("fe80::1%eth\n0")


def _rows() -> list:  # type: ignore[type-arg]
    found: dict[str, object] = {}
    for table in project_tables():
        for row in table:
            found.setdefault(repr(row.type), (row.name, row.type))
    return list(found.values())


ROWS = _rows()


@pytest.mark.parametrize("control", ["\n", "\r", "\t", "\u2028"], ids=["lf", "cr", "tab", "ls"])
@pytest.mark.parametrize(("name", "ftype"), ROWS, ids=[name for name, _ in ROWS])
def test_every_field_refuses_a_line_break_inside_its_value(name, ftype, control):
    valid = ftype.valid()
    if len(valid) < 2:
        valid = valid * 2
    with pytest.raises(ValueError):
        ftype.parse(valid[:1] + control + valid[1:])


def test_a_merchant_name_with_a_line_break_is_refused(api):
    from merchants.api.tables import MERCHANT_CREATE

    fields = valid_body(MERCHANT_CREATE, **{"merchant.name": "Example\r\nBooks Ltd"})
    response = api.post("/pay/v3/merchant/create", fields)
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert "merchant.name" in param_errors(response)
    assert not Merchant.objects.exists()
