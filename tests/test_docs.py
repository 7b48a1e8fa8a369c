"""The curl examples of docs/api.md work, in the order the document gives them."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from core.results import PENDING, SUCCESS
from tests.curl import curl_commands, run_all

API_MD = Path(__file__).resolve().parent.parent / "docs" / "api.md"


@pytest.mark.django_db
def test_every_curl_in_api_md_succeeds(client):
    out = StringIO()
    call_command("seed_demo", stdout=out)

    seed = out.getvalue()
    variables = {
        "BASE": "http://127.0.0.1:8000",
        "BANK": seed.split("PARTICIPATOR token=")[1].split()[0],
        "MERCHANT": seed.split("entityType=MERCHANT token=")[1].split()[0],
    }
    commands = curl_commands(API_MD.read_text())
    assert len(commands) >= 20
    for command, response in run_all(client, commands, variables):
        if response.get("Content-Type", "").startswith("text/csv"):  # a report as CSV
            assert response.status_code == 200, command
            continue
        assert response.status_code == 200, (command, response.json())
        result = response.json()["result"]["code"]
        assert SUCCESS.match(result) or PENDING.match(result), (command, response.json())
