"""buildNumber: the commit id followed by the build date-time, for support."""

import subprocess
from functools import lru_cache
from pathlib import Path

from django.conf import settings


@lru_cache(maxsize=1)
def build_number() -> str:
    commit, built = settings.BUILD_COMMIT, settings.BUILD_TIME
    if not commit or not built:
        git_commit, git_time = _from_git()
        commit = commit or git_commit
        built = built or git_time
    return f"{commit or 'unknown'}@{built or 'unknown'}"


def _from_git() -> tuple[str, str]:
    root = Path(settings.BASE_DIR)
    try:
        out = subprocess.run(  # noqa: S603 - fixed arguments, no user input
            ["git", "log", "-1", "--format=%H %cd", "--date=format-local:%Y-%m-%d %H:%M:%S +0000"],  # noqa: S607
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
            env={"TZ": "UTC", "PATH": "/usr/bin:/bin:/usr/local/bin"},
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "", ""
    if not out:
        return "", ""
    commit, _, when = out.partition(" ")
    return commit, when
