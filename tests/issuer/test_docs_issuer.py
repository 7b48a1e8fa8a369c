"""docs/issuer.md's issuer_client lines work as written, against an issuer set up as `make run`
sets it up (issuer_demo with the address it serves on).

The block is run in bash, as a reader pastes it; only the interpreter and the key file's place
are this test's (a fresh clone has .venv/bin/python and var/demo-requestor/oob-client.json).
"""

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
ISSUER_MD = ROOT / "docs" / "issuer.md"
KEY_FILE = "var/demo-requestor/oob-client.json"


def quick_start_block() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", ISSUER_MD.read_text(), re.S)
    [block] = [b for b in blocks if f"issuer_client --key-file {KEY_FILE}" in b]
    return block


@pytest.mark.django_db(transaction=True)
def test_the_quick_start_lines_work_as_written(live_server, issuer_keys, settings):
    settings.ISSUER_BASE_URL = live_server.url  # make run: ISSUER_BASE_URL=<its address>
    call_command("issuer_demo", "--base-url", live_server.url, stdout=StringIO())
    assert " " not in sys.executable
    script = (
        quick_start_block()
        .replace(".venv/bin/python", sys.executable)
        .replace(KEY_FILE, str(settings.DEMO_REQUESTOR_KEY_FILE))
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
    assert '"token_type": "Bearer"' in done.stdout
    assert f'"cardholderUrl": "{live_server.url}/issuer/oob/' in done.stdout
    assert done.stdout.count('"status": "PENDING"') == 2  # the start, then the inquiry
    assert '"verified": true' in done.stdout


def test_keys_of_your_own_requestor_go_under_var():
    text = ISSUER_MD.read_text()

    written = re.findall(r"--(?:public-)?out\s+(\S+)", text)
    assert written and all(path.startswith("var/") for path in written), written
    assert not settings.BASE_DIR.joinpath("requestor-private.json").exists()


def test_the_catalogue_in_docs_issuer_md_is_the_operations_own():
    from issuer.management.commands.issuer_catalogue import replaced

    text = ISSUER_MD.read_text()
    assert replaced(text) == text, (
        "run: .venv/bin/python manage.py issuer_catalogue --write docs/issuer.md"
    )
    for group in (
        "application",
        "customer",
        "account",
        "card",
        "transaction",
        "token",
        "parameter",
    ):
        assert f"### The {group.capitalize()} group (scope `{group.upper()}`)" in text


def test_every_group_says_the_scope_its_operations_need():
    """The scope of every catalogue group (issue 23), from the scope table the API checks: the
    table at the head of the catalogue and each group's own line; the Authentication group's
    three scopes name their operations."""
    from issuer.catalogue import CATALOGUE

    text = ISSUER_MD.read_text()
    groups: dict[str, dict[str, list[str]]] = {}
    for (group, name), entry in CATALOGUE.items():
        groups.setdefault(group, {}).setdefault(entry.scope, []).append(name)
    for group, scopes in groups.items():
        for scope, names in scopes.items():
            assert f"| {group} | `{scope}` | {', '.join(names)} |" in text
        section = text.split(f"### The {group.capitalize()} group (scope")[1].split("\n### ")[0]
        for scope in scopes:
            assert f"`{scope}`" in section.split("\n####")[0], (group, scope)
    assert (
        "`START_OOB` for StartOOBAuthen; `CHECK_OOB` for OOBResultInquiry; `OTP` for SendOTP, "
        "VerifyOTP" in text
    )


def test_every_operation_has_a_json_example_oob_result_inquiry_too():
    text = ISSUER_MD.read_text()
    sections = re.split(r"\n#### ", text.split("<!-- catalogue:start")[1])[1:]
    assert len(sections) == len(re.findall(r"\n#### ", text))
    for section in sections:
        assert "\n```json\n{" in section, section.splitlines()[0]
    [inquiry] = [s for s in sections if s.startswith("authentication/OOBResultInquiry")]
    assert '"authenticationId": "<authentication>"' in inquiry


@pytest.mark.django_db(transaction=True)
def test_the_catalogue_lines_work_as_written(live_server, issuer_keys, settings):
    """The catalogue section's issuer_client lines (the Card and the Token group: `token` with an
    operation is the group, not the token command), with `$C` of the quick start."""
    settings.ISSUER_BASE_URL = live_server.url
    call_command("issuer_demo", "--base-url", live_server.url, stdout=StringIO())
    [block] = [
        b
        for b in re.findall(r"```sh\n(.*?)```", ISSUER_MD.read_text(), re.S)
        if "--scopes TOKEN token TokenInquiry" in b
    ]
    command = (
        f"{sys.executable} manage.py issuer_client --key-file {settings.DEMO_REQUESTOR_KEY_FILE}"
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'C="{command}"\n{block}'],
        cwd=ROOT,
        env={**os.environ, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stderr
    assert '"cardReference": "crd_demo_prepaid"' in done.stdout
    assert '"tokens": []' in done.stdout  # no merchant here, so no token of the demo card
