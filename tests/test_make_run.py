"""`make run HOST=... PORT=...`: the address reaches ISSUER_BASE_URL and everything printed.

`make -n` prints the recipe without running it. A demo served on 8101 that expected client
assertions for http://127.0.0.1:8000/oauth2/token, or printed 8000 in its curl, refused every
token request and sent the reader to the wrong port.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def recipe(*variables: str) -> list[str]:
    done = subprocess.run(
        ["make", "-n", "--always-make", "run", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if "manage.py" in line or "Serving" in line]


def line_of(lines: list[str], word: str) -> str:
    [line] = [ln for ln in lines if word in ln]
    return line


def test_the_port_reaches_the_issuer_and_everything_printed():
    lines = recipe("PORT=8101")

    assert "--base-url 'http://127.0.0.1:8101'" in line_of(lines, "seed_demo")
    assert "--base-url 'http://127.0.0.1:8101'" in line_of(lines, "issuer_demo")
    runserver = line_of(lines, "runserver")
    assert runserver.startswith("ISSUER_BASE_URL='http://127.0.0.1:8101' ")
    assert runserver.endswith("runserver 127.0.0.1:8101")
    assert "http://127.0.0.1:8101/" in line_of(lines, "Serving on")
    assert not [ln for ln in lines if "8000" in ln]


def test_the_default_address_is_8000():
    lines = recipe()

    assert "--base-url 'http://127.0.0.1:8000'" in line_of(lines, "seed_demo")
    assert line_of(lines, "runserver").endswith("runserver 127.0.0.1:8000")


def test_listening_everywhere_still_prints_an_address_to_call():
    lines = recipe("HOST=0.0.0.0", "PORT=8102")

    assert line_of(lines, "runserver").endswith("runserver 0.0.0.0:8102")
    assert "ISSUER_BASE_URL='http://127.0.0.1:8102'" in line_of(lines, "runserver")
    assert "--base-url 'http://127.0.0.1:8102'" in line_of(lines, "seed_demo")
