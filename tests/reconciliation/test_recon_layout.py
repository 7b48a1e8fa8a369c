"""The daily file's layout: every record 257 bytes and a newline, every field where the
specification puts it (read back here by slicing positions written out independently of the
layout table), amounts in minor units (EUR, JPY, BHD), the parser's faults by line and column
(one byte moved is caught), and docs/recon-file.md up to date."""

from datetime import date
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from reconciliation.recon.docs import SAMPLE_DETAILS, markdown
from reconciliation.recon.layout import DETAIL, FormatError, format_record
from reconciliation.recon.parse import parse_lines, read
from reconciliation.recon.write import file_name, lines, minor

ROOT = Path(__file__).resolve().parents[2]
DAY = date(2026, 11, 24)


def detail(**overrides):
    return {**SAMPLE_DETAILS[0], **overrides}


def test_every_record_is_257_bytes_and_a_newline():
    written = list(lines("10000001", DAY, [detail(), detail(id="b" * 32)]))
    assert len(written) == 4
    assert all(len(line) == 258 and line.endswith(b"\n") for line in written)


def test_fields_are_where_the_specification_puts_them():
    header, record, trailer = (
        line.decode() for line in lines("10000001", DAY, [detail(terminal_id="T0000001", eci="")])
    )
    # Positions from the specification's tables (1-based, inclusive), not from the layout.
    assert header[0:32] == "HRECONDT_300001".ljust(32)
    assert header[32:40] == "10000001" and header[40:48] == "20261124"
    assert header[48:257] == " " * 209
    assert record[0] == "D"
    assert record[1:33] == "order000000000000000000000000042"
    assert record[33:65] == "8ac7a4a0817e8d2d01817f2a33a21c44"
    assert record[65:85] == "DB".ljust(20)
    assert record[85:104] == "4200000000".ljust(19)  # first six and last four (DESIGN)
    assert record[104:116] == "000000002500" and record[116:128] == "000000002500"
    assert record[128:131] == "978" and record[131:134] == "978"
    assert record[134:146] == "261124101502"
    assert record[146:161] == "10000001".ljust(15) and record[161:169] == "T0000001"
    assert record[169:180] == "000.000.000" and record[180:186] == "K7Q2ZP"
    assert record[186:209] == "74938201938475610293847" and record[209:224] == "SIM123456789012"
    assert record[224:227] == "000"  # the ECI, zero-filled when blank
    assert record[227:230] == "   " and record[230:236] == "604213"
    assert record[236:238] == "81" and record[238:240] == "59"
    assert record[240:257] == " " * 17
    assert trailer[0:32] == "TRECON-D-T-30001".ljust(32)
    assert trailer[32:48] == "1000000120261124" and trailer[48:60] == "000000000001"
    assert trailer[60:257] == " " * 197


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        ("12.34", "EUR", "1234"),
        ("1500", "JPY", "1500"),
        ("1.234", "BHD", "1234"),
        ("0.10", "BHD", "100"),
    ],
)
def test_amounts_are_in_minor_units(amount, currency, expected):
    assert minor(Decimal(amount), currency) == expected
    line = format_record(DETAIL, detail(amount=expected)).decode()
    assert line[104:116] == expected.rjust(12, "0")


def test_a_fraction_finer_than_the_currency_is_refused():
    with pytest.raises(ValueError):
        minor(Decimal("100.50"), "JPY")


@pytest.mark.parametrize(
    ("field", "value"),
    [("amount", "12.34"), ("id", "x" * 33), ("type", "ÜBERWEISUNG"), ("entry_mode", "8A")],
)
def test_the_writer_refuses_what_does_not_fit(field, value):
    with pytest.raises(FormatError):
        format_record(DETAIL, detail(**{field: value}))


def test_file_names():
    assert file_name("10000001", DAY, production=True) == "RECONDTP100000012026112401"
    assert file_name("BANK0001", DAY, production=False) == "RECONDTTBANK00012026112401"


def test_a_written_file_parses_clean():
    parsed = parse_lines(lines("10000001", DAY, [detail(), detail(id="c" * 32)]))
    assert parsed.valid and parsed.details == 2
    assert parsed.header == {"entity_id": "10000001", "settlement_date": "20261124"}


def test_one_byte_moved_is_caught_with_its_line_and_column():
    written = list(lines("10000001", DAY, [detail()]))
    record = bytearray(written[1])
    moved = record.pop(1)  # the first character of merchantTransactionId ...
    record.insert(110, moved)  # ... into the amount: same length, the fields between shifted
    written[1] = bytes(record)
    parsed = parse_lines(written)
    assert not parsed.valid
    fault = parsed.faults[0]
    assert fault.line == 2 and 66 <= fault.column <= 117, str(fault)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda w: w[:-1], "no trailer"),
        (lambda w: [w[0], w[1], w[1], w[2]], "Total Records 1, but 2 detail records"),
        (lambda w: [w[0], w[1][:100] + w[1][101:], w[2]], "256 bytes, not 257"),
        (lambda w: [w[1], w[0], w[2]], "not a header"),
    ],
)
def test_the_parser_refuses_broken_files(change, message):
    written = list(lines("10000001", DAY, [detail()]))
    parsed = parse_lines(change(written))
    assert not parsed.valid and any(message in f.message for f in parsed.faults), parsed.faults


def test_recon_validate_command(tmp_path):
    good = tmp_path / "good"
    good.write_bytes(b"".join(lines("10000001", DAY, [detail()])))
    out = StringIO()
    call_command("recon_validate", str(good), stdout=out)
    assert "valid, 1 detail records" in out.getvalue()
    bad = tmp_path / "bad"
    bad.write_bytes(good.read_bytes().replace(b"000000002500", b"00000000250X", 1))
    out = StringIO()
    with pytest.raises(Exception, match="fault"):
        call_command("recon_validate", str(bad), stdout=out)
    assert "line 2, column 105" in out.getvalue()
    assert read(str(bad)).faults


def test_the_docs_page_is_generated_from_the_layout():
    assert (ROOT / "docs" / "recon-file.md").read_text() == markdown()
