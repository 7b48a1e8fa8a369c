"""A process that serves no page (a Celery worker, the daily file's command) loads only what it
uses: the daily file's target is at most 100 MiB of resident memory for the whole process
(bench/README.md, Daily reconciliation file), and Django's setup was most of it. Pillow (card
art checks) and the OpenAPI schema's helpers (drf-spectacular's plumbing, Django's and DRF's
test modules with it) come with the code that uses them, not with `django.setup()`."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("PIL", "core.schema", "drf_spectacular.plumbing", "django.test", "rest_framework.test")

PROBE = """
import json, sys
import django
django.setup()
heavy = %r
loaded = [m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy)]
print(json.dumps(sorted(loaded)))
"""


def test_django_setup_loads_neither_pillow_nor_the_schema_helpers():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert json.loads(out.splitlines()[-1]) == []
