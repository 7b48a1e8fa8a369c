"""docs/closed-loop.md's "Try it" block works as written against a demo set up as `make run`
sets it up (seed_demo, issuer_demo with the address it serves on), with the on-us card line
seed_demo prints."""

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "closed-loop.md"


@pytest.mark.django_db(transaction=True)
def test_the_try_it_block_pays_on_us_and_the_issuer_sees_it(live_server, issuer_keys, settings):
    settings.ISSUER_BASE_URL = live_server.url
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000
    out = StringIO()
    call_command("seed_demo", "--base-url", live_server.url, stdout=out)
    call_command("issuer_demo", "--base-url", live_server.url, stdout=StringIO())
    [line] = [ln for ln in out.getvalue().splitlines() if "on-us card:" in ln]
    number, expiry, cvv = re.search(r"on-us card: (\d+) (\S+) cvv (\d+)", line).groups()
    month, year = expiry.split("/")
    [block] = [b for b in re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S) if "CARD=" in b]
    script = (
        re.sub(
            r"^CARD=\S+ MM=\S+ YYYY=\S+ CVV=\S+",
            f"CARD={number} MM={month} YYYY={year} CVV={cvv}",
            block,
            flags=re.M,
        )
        .replace("BASE=http://127.0.0.1:8000", f"BASE={live_server.url}")
        .replace("var/demo-credentials.json", str(settings.DEMO_CREDENTIALS_FILE))
        .replace("var/demo-requestor/oob-client.json", str(settings.DEMO_REQUESTOR_KEY_FILE))
        .replace(".venv/bin/python", sys.executable)
    )

    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=ROOT,
        env={**os.environ, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stderr
    assert '"code":"000.000.000"' in done.stdout.replace(" ", ""), done.stdout[:1500]
    assert '"ledgerBalance": "487.50"' in done.stdout
    assert '"type": "PURCHASE"' in done.stdout and '"amount": "12.50"' in done.stdout
