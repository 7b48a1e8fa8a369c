"""The layering: core is the only shared layer. Core imports no app, no two apps import each
other, and no view, admin or task module writes a model or a status itself."""

import ast
import re
from itertools import combinations
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPS = ("core", "merchants", "terminals", "payments", "issuer")


def imported_apps(app: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / app).rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found |= {name.split(".")[0] for name in names} & set(APPS)
    return found - {app}


def test_core_imports_no_app():
    assert imported_apps("core") == set()


def test_no_two_apps_import_each_other():
    graph = {app: imported_apps(app) for app in APPS}
    cycles = [(a, b) for a, b in combinations(APPS, 2) if b in graph[a] and a in graph[b]]
    assert cycles == []


# A model method or manager call that writes (dictionaries' own .update() calls are not).
WRITES = re.compile(
    r"(?<!kwargs)(?<!data)\.(save|update|create|delete|bulk_create|bulk_update)\(|select_for_update"
)


def test_views_admin_and_tasks_do_not_write_models():
    """Every write goes through a service (admin actions, pages, API views and Celery tasks
    call services; only `adopt` in core.admin copies a created row onto the admin's form)."""
    offenders = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            name = path.name
            if not (name in ("views.py", "tasks.py", "admin.py") or path.parent.name == "admin"):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if WRITES.search(line) and "super()" not in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
