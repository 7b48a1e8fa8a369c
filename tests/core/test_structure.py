"""The layering: core is the only shared layer. Core imports no app, every app imports only
the apps below it (no two apps import each other, none imports demo), no view, admin or task
module writes a model or a status itself, and row locks are taken in lock modules only."""

import ast
import functools
import re
from itertools import combinations
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per process (every rule reads every module)."""
    return ast.parse(path.read_text())


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
        for node in ast.walk(_tree(path)):
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
    for node in ast.walk(_tree(path)):
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
        for node in ast.walk(_tree(path)):
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


def test_the_issuer_domain_does_not_import_its_api_layer():
    """The cards and the ledger are the issuer's domain; operations/ (the catalogue groups'
    handlers) and protocol/ are its API layer, which imports them and is imported by neither
    (the catalogue, data both read, is issuer/catalogue.py)."""
    api = ("issuer.operations", "issuer.protocol")
    reached = {
        f"{name}: {target}"
        for name, targets in module_graph(("issuer",)).items()
        if name.startswith(("issuer.cards", "issuer.ledger"))
        for target in targets
        if target in api or target.startswith(tuple(f"{layer}." for layer in api))
    }
    assert reached == set()


def test_no_app_imports_another_apps_admin_or_api_tables():
    """An app's admin and its API tables are its own: another app builds on the modules meant
    for it (merchants.fields for the merchant's field rows, merchants.extensions for the
    merchant page's inlines), its services and its selectors. Core's admin building blocks are
    the shared layer's."""
    offenders = []
    for app in APPS:
        for where, name in imports_of(app):
            parts = name.split(".")
            owner, inner = parts[0], parts[1:]
            if owner not in APPS or owner in (app, "core"):
                continue
            pairs = list(zip(inner, inner[1:], strict=False))
            if "admin" in inner or ("api", "tables") in pairs:
                offenders.append(f"{where}: {name}")
    assert offenders == []


# The modules that read another app's rows through that app's selectors only (issue 33): they
# name no other app's `Model.objects`.
THROUGH_SELECTORS = ("reconciliation", "issuer/cards/tokens.py")


def imported_names(path: Path) -> dict[str, str]:
    """What each name bound by an import in `path` stands for, absolute and dotted."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = {}
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                names[bound] = alias.name if alias.asname else bound
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
    return names


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` for an expression of names and attributes, else None."""
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else None


def test_reconciliation_and_the_issuers_tokens_read_other_apps_through_selectors():
    """Settlement, the reports, the daily file, the commands and tasks of reconciliation, and
    the issuer's Token group read payments, merchants and tokens through payments.selectors,
    merchants.selectors and tokenization.selectors: no `Model.objects` of another app."""
    found = []
    for scope in THROUGH_SELECTORS:
        top = ROOT / scope
        paths = [top] if top.suffix == ".py" else sorted(top.rglob("*.py"))
        for path in paths:
            if "migrations" in path.parts:
                continue
            app = path.relative_to(ROOT).parts[0]
            names = imported_names(path)
            for node in ast.walk(_tree(path)):
                if not (isinstance(node, ast.Attribute) and node.attr == "objects"):
                    continue
                head, _, rest = (dotted(node.value) or "").partition(".")
                model = ".".join(filter(None, [names.get(head, ""), rest]))
                if model.split(".")[0] in APPS and model.split(".")[0] != app:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {model}.objects")
    assert found == []


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


# The project's own top-level packages: the apps and config.
PROJECT = (*APPS, "config")


@functools.cache
def module_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Every module of `packages` (dotted name; migrations left out) and the modules of them it
    imports, at any depth of its code (an import inside a function or under TYPE_CHECKING
    counts: it is still an arrow). Importing `a.b.c` runs the packages `a` and `a.b` first, so
    it is an arrow to each of them as well, but for the packages the importer is inside (they
    have begun running before any of their modules does); a name taken from a package's
    __init__ is an arrow to it wherever the importer is."""
    modules = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                parts = path.relative_to(ROOT).with_suffix("").parts
                modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str:
        while name and name not in modules:  # an attribute of a module: the module
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        arrows = set()
        for node in ast.walk(_tree(path)):
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
            for target in filter(None, map(module_of, targets)):
                parts = target.split(".")
                arrows.add(target)
                arrows |= {
                    outer
                    for outer in (".".join(parts[:depth]) for depth in range(1, len(parts)))
                    if not name.startswith(outer + ".")
                }
        graph[name] = arrows - {name}
    return graph


def core_module_imports() -> dict[str, set[str]]:
    """Every module of core and the modules of core it imports (module_graph)."""
    return module_graph(("core",))


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules that reach themselves, in groups of those that reach each other."""

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for after in graph[todo.pop()] - seen:
                seen.add(after)
                todo.append(after)
        return seen

    reach = {name: reachable(name) for name in graph}
    groups = {
        frozenset(other for other in reach[name] if name in reach[other])
        for name in graph
        if name in reach[name]
    }
    return sorted(sorted(group) for group in groups)


def test_no_import_cycle_among_the_project_modules():
    """No module of any app (or of config) reaches itself through imports, those inside
    functions included: an import moved into a function hides a cycle from the reader, not
    from Python, which fails on whichever module of it is imported first (issue 33). A cycle
    is broken where it starts: the shared piece moves down into a module both sides import,
    or the dependency is passed in."""
    assert import_cycles(module_graph(PROJECT)) == []


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
            for node in ast.walk(_tree(path)):
                # A call (or a reference to the method); core.prepared reads the compiled
                # query's flag of the same name to refuse a lock outside a transaction.
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr == "select_for_update"
                    and relative != "core/prepared.py"
                ):
                    found.append(relative)
    assert sorted(set(found)) == []
