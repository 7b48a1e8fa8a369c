"""The curl examples of docs/api.md work, in the order the document gives them."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from core.results import PENDING, SUCCESS
from tests.curl import curl_commands, run_all

API_MD = Path(__file__).resolve().parent.parent / "docs" / "api.md"


@pytest.mark.django_db
def test_every_curl_in_api_md_succeeds(client):
    out = StringIO()
    call_command("seed_demo", stdout=out)

    seed = out.getvalue()
    kept = json.loads(settings.DEMO_CREDENTIALS_FILE.read_text())
    variables = {
        "BASE": "http://127.0.0.1:8000",
        "BANK": seed.split("PARTICIPATOR token=")[1].split()[0],
        "MERCHANT": seed.split("entityType=MERCHANT token=")[1].split()[0],
        "FIRST": kept["historyDays"][0],
        "DAY": kept["historyDays"][-1],
    }
    commands = curl_commands(API_MD.read_text())
    assert len(commands) >= 20
    reports = []
    for command, response in run_all(client, commands, variables):
        if response.get("Content-Type", "").startswith("text/csv"):  # a report as CSV
            assert response.status_code == 200, command
            text = b"".join(response.streaming_content).decode()
            assert len(text.splitlines()) > 1, command  # not only the header line
            continue
        assert response.status_code == 200, (command, response.json())
        result = response.json()["result"]["code"]
        assert SUCCESS.match(result) or PENDING.match(result), (command, response.json())
        if "/merch-web/download/" in command:
            reports.append(response.json())
    # On a fresh demo the report examples show its days, with fees (issue 32).
    summary, transactions = reports[0], reports[1]
    assert summary["summary"] and float(summary["summary"][0]["feesAmount"]) > 0, summary
    assert transactions["records"], transactions
