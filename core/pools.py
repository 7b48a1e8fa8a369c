"""Django's PostgreSQL connection pools across a fork (config/settings.py, DB_POOL).

A pool is a process's own: its connections are sockets and its maintenance runs in threads,
neither of which a forked child may share with its parent. gunicorn's master preloads the
application and Celery's parent process sets Django up without querying, so no pool exists when
they fork; `forget_inherited_pools` makes that a rule rather than luck: a child called from
gunicorn's `post_fork` and Celery's `worker_process_init` drops whatever pool it inherited,
without closing it (closing would end the parent's connections, on the sockets both share), and
opens its own at its first query.
"""

from typing import Any

from django.db import connections


def open_pools() -> int:
    """How many pools this process holds (one a PostgreSQL alias with OPTIONS["pool"])."""
    return len(_pools())


def forget_inherited_pools() -> int:
    """Drop the pools a forked child inherited, and the connections that came from them,
    without a word to the server; answers how many there were."""
    pools = _pools()
    forgotten = len(pools)
    for alias in list(pools):
        connections[alias].connection = None  # the parent's socket: never closed from here
    pools.clear()
    return forgotten


def _pools() -> dict[str, Any]:
    # Django 5.2 keeps the pools in a class attribute of the PostgreSQL wrapper, by alias
    # (django/db/backends/postgresql/base.py, DatabaseWrapper._connection_pools);
    # tests/core/test_pools.py breaks when that changes.
    from django.db.backends.postgresql.base import DatabaseWrapper

    pools: dict[str, Any] = DatabaseWrapper._connection_pools  # type: ignore[attr-defined]
    return pools


def give_back_for_a_wait() -> bool:
    """Before a wait on something outside the database (the card network): hand the default
    connection back to its pool, so that a thread waiting holds no PostgreSQL connection; the
    next query borrows one again. Only a pooled connection outside any transaction is given back
    (a connection without a pool would be closed and opened anew, which costs more than it
    saves); answers whether it was."""
    connection = connections["default"]
    pooled = connection.vendor == "postgresql" and getattr(connection, "pool", None) is not None
    if not pooled or connection.connection is None or connection.in_atomic_block:
        return False
    connection.close()
    return True
