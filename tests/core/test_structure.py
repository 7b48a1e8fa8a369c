"""The layering: core is the only shared layer. Core imports no app, every app imports only
the apps below it (no two apps import each other, none imports demo), no view, admin or task
module writes a model or a status itself, and row locks are taken in lock modules only."""

import ast
import re
from itertools import combinations
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPS = (
    "core",
    "merchants",
    "terminals",
    "tokenization",
    "payments",
    "issuer",
    "reconciliation",
    "demo",
)
# The arrows each app may have (docs/architecture.md, "Layers"): an app imports the apps below
# it and nothing else. demo imports every app; no app imports demo.
LAYERS = {
    "core": set(),
    "merchants": {"core"},
    "terminals": {"core", "merchants"},
    "tokenization": {"core", "merchants"},
    "payments": {"core", "merchants", "terminals", "tokenization"},
    # issuer -> payments: its on-us port only (test_the_issuer_reaches_payments_only_through_...)
    "issuer": {"core", "merchants", "tokenization", "payments"},
    "reconciliation": {"core", "merchants", "terminals", "payments"},
    "demo": {
        "core",
        "merchants",
        "terminals",
        "tokenization",
        "payments",
        "issuer",
        "reconciliation",
    },
}


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


def test_every_app_imports_only_the_apps_below_it():
    beyond = {app: sorted(imported_apps(app) - LAYERS[app]) for app in APPS}
    assert {app: found for app, found in beyond.items() if found} == {}
    assert not any("demo" in allowed for allowed in LAYERS.values())


def module_imports(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            found.add(base)
    return found


def test_reconciliation_reaches_payments_through_its_selectors_and_locks():
    """Chargebacks and the daily file read and lock payments through what payments offers:
    its selectors and its lock module, never its models or tables."""
    offered = {"payments.selectors", "payments.services.lock_objects"}
    modules = [
        ROOT / "reconciliation" / "services.py",
        *(ROOT / "reconciliation/recon").glob("*.py"),
    ]
    reached = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules
        for name in module_imports(path)
        if name.split(".")[0] == "payments" and name not in offered
    }
    assert reached == set()


def imports_of(app: str) -> list[tuple[str, str]]:
    """(module path, imported dotted name) for every absolute import under `app`, migrations
    and imports inside functions included: `from a.b import c` names `a.b.c`."""
    found = []
    for path in sorted((ROOT / app).rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(where, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found += [(where, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_no_module_under_payments_imports_issuer():
    """The seam between acquirer and issuer (issue 24): the acquirer sees the platform's own
    issuer only through its port (payments/connectors/onus_port.py), which the issuer
    implements and registers; the acquirer runs without it (tests/payments/
    test_acquirer_alone.py)."""
    found = imports_of("payments")
    offenders = [f"{where}: {name}" for where, name in found if name.split(".")[0] == "issuer"]
    assert offenders == []


def test_the_issuer_reaches_payments_only_through_its_port():
    reached = {name for _, name in imports_of("issuer") if name.split(".")[0] == "payments"}
    assert reached <= {"payments.connectors.onus_port"}


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


def core_module_imports() -> dict[str, set[str]]:
    """Every module of core (dotted name) and the modules of core it imports, at any depth of
    its code (an import inside a function counts: it is still an arrow)."""
    modules = {}
    for path in (ROOT / "core").rglob("*.py"):
        if "migrations" not in path.parts:
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str:
        while name not in modules:  # an attribute of a module: the module
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        arrows = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            arrows |= {module_of(t) for t in targets if t.split(".")[0] == "core"}
        graph[name] = arrows - {name}
    return graph


def test_no_import_cycle_within_core():
    """The outbox is a library and core.tasks its adapter (core.apps registers the task queue
    as the outbox's dispatcher): core.outbox does not import core.tasks, nor any module of core
    one that imports it back."""
    graph = core_module_imports()
    assert "core.tasks" not in graph["core.outbox"]

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for after in graph[todo.pop()] - seen:
                if after == goal:
                    return True
                seen.add(after)
                todo.append(after)
        return False

    cycles = sorted(name for name in graph if reaches(name, name))
    assert cycles == []


# The modules a row lock may be taken in: every app's lock_objects.py (none is an exception).
LOCK_MODULES = ("lock_objects.py",)


def test_row_locks_are_taken_in_lock_modules_only():
    """`select_for_update` is called in an app's lock module only (payments/services/,
    payments/registrations/, payments/checkouts/, merchants/, terminals/, tokenization/,
    reconciliation/, issuer/, issuer/cards/, issuer/ledger/ and core/ each have a
    lock_objects.py): the locks a use case takes, and their order, are read in one place.
    Core's outbox and vault lock through core's."""
    found = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            relative = str(path.relative_to(ROOT))
            if "migrations" in path.parts or path.name in LOCK_MODULES:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                # A call (or a reference to the method); core.prepared reads the compiled
                # query's flag of the same name to refuse a lock outside a transaction.
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr == "select_for_update"
                    and relative != "core/prepared.py"
                ):
                    found.append(relative)
    assert sorted(set(found)) == []
