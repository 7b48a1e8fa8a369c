"""Django's deployment checklist passes with the production environment docs/operations.md gives.

The test runs the document's own block ("A production environment file") in bash, as a reader
would, and `manage.py check --deploy --fail-level WARNING` with exactly the values it wrote: a
warning, or a variable the document forgot, fails here instead of in production.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS_MD = ROOT / "docs" / "operations.md"


def documented_env_block() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", OPERATIONS_MD.read_text(), re.S)
    [block] = [b for b in blocks if "cat > .env.production <<EOF" in b]
    return block


def read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value
    return values


def documented_production_env(tmp_path: Path) -> dict[str, str]:
    subprocess.run(
        ["bash", "-euo", "pipefail", "-c", documented_env_block()],
        cwd=tmp_path,
        check=True,
        timeout=60,
    )
    written = tmp_path / ".env.production"
    assert written.stat().st_mode & 0o077 == 0, "the file with the secrets is readable by others"
    return read_env_file(written)


def test_the_documented_production_env_names_every_required_setting(tmp_path):
    values = documented_production_env(tmp_path)

    assert values["DJANGO_DEBUG"] == "false"
    for name in (
        "DJANGO_SECRET_KEY",
        "DJANGO_ALLOWED_HOSTS",
        "DATABASE_URL",
        "REDIS_URL",
        "VAULT_KEYS",
        "VAULT_ACTIVE_KEY_ID",
        "CARD_FINGERPRINT_KEY",
        "ISSUER_CARD_VERIFICATION_KEY",
        "ISSUER_BASE_URL",
    ):
        assert values.get(name), name
    assert values["ISSUER_BASE_URL"].startswith("https://")


def test_check_deploy_passes_without_a_warning_on_the_documented_production_env(tmp_path):
    values = documented_production_env(tmp_path)
    # Only the documented values: nothing from the environment the tests run in.
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LANG": "C.UTF-8", **values}

    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr + done.stdout
    assert "System check identified no issues (0 silenced)." in done.stdout
