"""With DEBUG off, the public development keys of config/settings.py are refused at start.

Each case starts a fresh process (settings are read once per process) with DJANGO_DEBUG=false and
a chosen set of keys, as production, a benchmark or gunicorn would.
"""

import base64
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY_VARIABLES = (
    "DJANGO_SECRET_KEY",
    "VAULT_KEYS",
    "VAULT_ACTIVE_KEY_ID",
    "CARD_FINGERPRINT_KEY",
    "ISSUER_CARD_VERIFICATION_KEY",
)
DEV_KEY_NAMES = (
    "DJANGO_SECRET_KEY",
    "VAULT_KEYS",
    "CARD_FINGERPRINT_KEY",
    "ISSUER_CARD_VERIFICATION_KEY",
)
DEV_VAULT_KEY = "ZGV2LW9ubHktdmF1bHQta2V5LWRvLW5vdC11c2UtISE="  # config/settings.py's default


def own_keys() -> dict[str, str]:
    return {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "VAULT_KEYS": f"t1:{base64.b64encode(os.urandom(32)).decode()}",
        "VAULT_ACTIVE_KEY_ID": "t1",
        "CARD_FINGERPRINT_KEY": secrets.token_urlsafe(32),
        "ISSUER_CARD_VERIFICATION_KEY": base64.b64encode(os.urandom(32)).decode(),
    }


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES and k != "DJANGO_DEBUG"}
    return subprocess.run(
        args,
        cwd=ROOT,
        env={**base, "LOG_LEVEL": "WARNING", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "manage.py", *args], **env)


def refusal(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0, done.stdout
    [line] = [ln for ln in done.stderr.splitlines() if ln.startswith("django.core.exceptions")]
    assert "ImproperlyConfigured: DJANGO_DEBUG is false but the public development keys" in line
    return line


def test_every_development_key_is_named():
    line = refusal(manage("check", DJANGO_DEBUG="false"))

    for name in DEV_KEY_NAMES:
        assert name in line


@pytest.mark.parametrize("left_out", DEV_KEY_NAMES)
def test_only_the_missing_key_is_named(left_out):
    keys = own_keys()
    del keys[left_out]
    if left_out == "VAULT_KEYS":
        del keys["VAULT_ACTIVE_KEY_ID"]

    line = refusal(manage("check", DJANGO_DEBUG="false", **keys))

    named = {n for n in DEV_KEY_NAMES if n in line}
    assert named == {left_out}


def test_the_development_vault_key_is_refused_beside_other_keys():
    keys = own_keys()
    keys["VAULT_KEYS"] += f",dev1:{DEV_VAULT_KEY}"

    line = refusal(manage("check", DJANGO_DEBUG="false", **keys))

    assert "VAULT_KEYS" in line and "DJANGO_SECRET_KEY" not in line


def test_gunicorn_refuses_to_start_with_them():
    done = run(
        [sys.executable, "-m", "gunicorn", "--check-config", "-c", "config/gunicorn.conf.py",
         "config.wsgi"],
        DJANGO_DEBUG="false",
    )  # fmt: skip

    assert done.returncode != 0
    assert "public development keys are in use" in done.stderr + done.stdout


def test_own_keys_start():
    done = manage("check", DJANGO_DEBUG="false", **own_keys())

    assert done.returncode == 0, done.stderr


def test_the_demo_keeps_its_development_keys():
    done = manage("check")  # DJANGO_DEBUG defaults to true: `make run`

    assert done.returncode == 0, done.stderr


def test_collectstatic_runs_without_secrets_as_the_docker_build_does():
    done = manage("collectstatic", "--noinput", "--dry-run", DJANGO_DEBUG="false")

    assert done.returncode == 0, done.stderr
    assert "static files copied" in done.stdout
