"""The commands of README.md and docs/*.md work from a fresh clone after `make run` or
`make install`, and write secrets only where git ignores them.

Outside the virtualenv there is no `python` with Django (often no `python` at all): the docs call
`.venv/bin/python manage.py ...`, `.venv/bin/gunicorn`, `.venv/bin/celery`; `python3` only for
the standard library. Lines that run inside the Docker image (`docker ...`) use its PATH.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A program the virtualenv provides, called by its bare name.
BARE = re.compile(r"(?<![\w/.-])(python|python3\.11|gunicorn|gunicornc|celery) (manage\.py|-[cmA])")
# Files a documented command writes a secret to (or reads one from).
SECRET_PATHS = re.compile(r"(?:--out|--public-out|--key-file|--env-file|cat >)\s+([^\s`'\"]+)")


def lines_of_docs() -> list[tuple[str, int, str]]:
    return [
        (doc.name, number, line)
        for doc in DOCS
        for number, line in enumerate(doc.read_text().splitlines(), 1)
    ]


def test_no_docs_command_needs_an_activated_virtualenv():
    bare = [
        f"{name}:{number}: {line.strip()}"
        for name, number, line in lines_of_docs()
        if BARE.search(line) and "docker" not in line
    ]
    assert bare == []


def test_the_docs_name_the_virtualenv_programs():
    text = "\n".join(line for _, _, line in lines_of_docs())
    assert ".venv/bin/python manage.py" in text


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
def test_every_file_the_docs_write_secrets_to_is_ignored_by_git():
    paths = sorted(
        {match for _, _, line in lines_of_docs() for match in SECRET_PATHS.findall(line)}
    )
    assert "var/demo-requestor/oob-client.json" in paths and ".env.production" in paths

    tracked = [
        path
        for path in paths
        if subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode != 0
    ]
    assert tracked == [], f"not ignored by git: {tracked}"
