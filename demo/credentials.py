"""Where the embedded demo keeps its credentials (seed_demo): one file per database, so that
seeding a PostgreSQL database never overwrites the SQLite demo's file, and the file says which
database it belongs to. Imported by the settings: nothing of Django's here."""

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def database_label(database: Mapping[str, Any]) -> str:
    """The database as one line, without its password: `sqlite:/path/db.sqlite3`,
    `postgresql://127.0.0.1:5432/cardplatform`."""
    engine = str(database.get("ENGINE", "")).rsplit(".", 1)[-1]
    name = str(database.get("NAME", ""))
    if engine == "sqlite3":
        return f"sqlite:{name}"
    host, port = database.get("HOST") or "localhost", database.get("PORT") or ""
    return f"{engine}://{host}{':' if port else ''}{port}/{name}"


def demo_credentials_file(base_dir: Path, database: Mapping[str, Any], *, default: bool) -> Path:
    """var/demo-credentials.json for the embedded default database; for another one, a file of
    its own named after it (var/demo-credentials-postgresql-127.0.0.1-5432-cardplatform.json)."""
    if default:
        return base_dir / "var" / "demo-credentials.json"
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", database_label(database).split(":", 1)[1]).strip("-")
    engine = database_label(database).split(":", 1)[0]
    return base_dir / "var" / f"demo-credentials-{engine}-{slug}.json"[:200]
