"""ISO 8583 response codes -> result codes: payments' one table (payments/connectors/
responses.py), read by the simulator and the on-us connector alike, and listed in docs/api.md."""

from pathlib import Path

import pytest
from django.conf import settings

from payments.connectors import responses
from tests.payments.conftest import BAD_CVV, INVALID_CARD, NO_FUNDS, TIMEOUT


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("00", "000.000.000"),
        ("05", "800.100.152"),
        ("41", "800.100.165"),
        ("51", "800.100.203"),
        ("N7", "800.100.153"),
        ("25", "800.100.152"),  # no row of its own: do not honour
        ("", "800.100.152"),
    ],
)
def test_a_response_code_gives_the_merchants_result_code(response, expected):
    assert responses.result_for(response).code == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("number", "response", "expected"),
    [
        (INVALID_CARD, "14", "800.100.151"),
        (NO_FUNDS, "51", "800.100.203"),
        (BAD_CVV, "N7", "800.100.153"),
        (TIMEOUT, "91", "900.100.300"),
    ],
)
def test_the_simulators_declines_go_through_the_same_table(payer, number, response, expected):
    answer = payer.pay("DB", number=number).json()
    assert answer["result"]["code"] == expected, answer
    assert answer["resultDetails"]["AcquirerResponse"] == response


def test_the_table_is_documented_in_api_md():
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    section = text.split("### ISO 8583 response codes", 1)[1].split("\n### ", 1)[0]
    for code, (result, meaning) in responses.RESPONSES.items():
        assert f"| `{code}` | {meaning} | `{result.code}` {result.description} |" in section
