"""The acquirer runs with the issuer app removed from INSTALLED_APPS (issue 24, "The seam
between acquirer and issuer"): acquirer_alone.py's tests, in a fresh process under
config.settings_acquirer, on their own SQLite test database (this process may hold the
PostgreSQL one)."""

import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from issuer import demo
from tests.payments.acquirer_alone import ISSUER_RANGE_CARD

ROOT = Path(settings.BASE_DIR)


def test_the_acquirer_runs_without_the_issuer_app():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings_acquirer"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--ds=config.settings_acquirer",
            "tests/payments/acquirer_alone.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert re.search(r"\b5 passed\b", output), output[-3000:]
    assert "skipped" not in output, output[-3000:]


def test_its_card_is_in_the_issuers_range():
    """The card the acquirer alone pays with is one the issuer would own (its demo BIN)."""
    assert ISSUER_RANGE_CARD.startswith(demo.PREPAID_BIN)
