"""Reads that may go to a streaming replica (DATABASE_REPLICA_URL: the `replica` alias): only
inside `replica_reads()` (a block, or a view decorated with it), only for the apps whose rows
such pages list (payments, reconciliation, tokenization, terminals), and never a write or a read
under a lock (`select_for_update` is a write for the router). Sessions, users, portal
memberships, sign-in throttling and everything outside such a block read the primary, so a
sign-in, a role change or a money decision never sees the replica's lag.

What a page read from the replica shows is as old as the replica's lag (docs/operations.md,
"Reads from a replica")."""

import contextvars
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings

T = TypeVar("T")
REPLICA = "replica"
REPLICA_APPS = frozenset({"payments", "reconciliation", "tokenization", "terminals"})
_reading = contextvars.ContextVar("replica_reads", default=False)


@contextmanager
def replica_reads() -> Iterator[None]:
    token = _reading.set(True)
    try:
        yield
    finally:
        _reading.reset(token)


def read_on_replica(rows: Iterable[T]) -> Iterator[T]:
    """`rows` consumed inside `replica_reads`, whenever they are: a streamed answer's body (a
    CSV download) is read by the server after the view has returned. The block holds from the
    first row to the last, in the thread that reads them (a WSGI server's); an asynchronous
    streaming body would need its own."""
    with replica_reads():
        yield from rows


def reads_from_replica(view: Callable[..., Any]) -> Callable[..., Any]:
    """A view whose listed rows may come from the replica, streamed ones included."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with replica_reads():
            response = view(*args, **kwargs)
        if getattr(response, "streaming", False):
            response.streaming_content = read_on_replica(response.streaming_content)
        return response

    return wrapped


class ReplicaRouter:
    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        if (
            _reading.get()
            and REPLICA in settings.DATABASES
            and model._meta.app_label in REPLICA_APPS
        ):
            return REPLICA
        return None  # the primary

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return None

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return db != REPLICA  # the replica follows the primary's schema by itself
