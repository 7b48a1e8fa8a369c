"""Hot look-ups whose SQL the ORM compiles once per process, not once per request (issue 21).

A queryset is rebuilt and compiled on every call: for a card read with its product, customer,
account, ledger and an annotated subquery, Django's compiler spends more CPU than PostgreSQL
spends answering. `PreparedRead` asks the ORM for the statement once per database alias, with
sentinel arguments, and afterwards sends the same SQL with each call's arguments through the
connection's cursor (so `execute_wrapper`, the debug log and statement counts see it as before),
building the instances as Django's `ModelIterable` does: `from_db`, the select_related
populators and the annotations. (The hot writes are plain SQL: core/rows.py.)
Only SQL is kept, never data: nothing read can be stale. On PostgreSQL the same SQL on every
call is also what lets psycopg 3 prepare it (server-side binding, `prepare_threshold`), so the
server plans it once per connection rather than on every call (config/settings.py).

The queryset must depend on its named arguments only. At its first use the statement is compiled
twice with two different sets of sentinels: the SQL must be the same, and the parameters must
differ exactly where the sentinels are (a `timezone.now()` read inside the builder, say, is
refused as ImproperlyConfigured rather than frozen into the statement).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, get_related_populators
from django.db.transaction import TransactionManagementError
from django.utils import timezone

M = TypeVar("M", bound=Model)
# Django 5.2's signature (klass_info, select, db); django-stubs describe a later one.
_populators: Callable[[Any, Any, str], list[Any]] = get_related_populators  # type: ignore[assignment]

# The kinds of argument a prepared statement takes. Each argument gets two sentinels of its kind
# (`_sentinel`), told apart from every other parameter of the statement and from each other.
TEXT, INTEGER, MOMENT = "text", "integer", "moment"
_EPOCH = datetime(2001, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)


def _sentinel(kind: str, index: int, which: int) -> Any:
    if kind == TEXT:
        return f"\x1fprepared-{index}-{which}\x1f"
    if kind == INTEGER:
        # Within every integer column's range but the small ones': the ORM turns a look-up
        # outside the column's range into "no rows" without a statement.
        return 1_987_654_000 + 2 * index + which
    return _EPOCH + timedelta(days=400 * index + which, microseconds=index + 1)


_TYPES: dict[str, type] = {TEXT: str, INTEGER: int, MOMENT: datetime}
T = TypeVar("T")


class _PerDatabase(dict[str, T]):
    """What a prepared statement compiled, by database alias: made once, under a lock, by the
    first call that needs it."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def made(self, using: str, make: Callable[[], T]) -> T:
        found = self.get(using)
        if found is None:
            with self._lock:
                found = self.get(using)
                if found is None:
                    _one_database()
                    found = self[using] = make()
        return found


@dataclass(frozen=True)
class _Sql:
    """What every compiled statement has: its SQL."""

    sql: str


@dataclass(frozen=True)
class _Compiled(_Sql):
    params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]  # argument -> positions in params
    compiler: Any  # the SQLCompiler after as_sql(): select, klass_info, annotations, converters
    init_list: tuple[str, ...]
    fields_start: int
    fields_end: int
    populators: tuple[Any, ...]
    locks: bool  # SELECT ... FOR UPDATE on this database
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]  # (position, converters, expression)


class _Arguments:
    """The named arguments of a prepared statement: their sentinels, where they sit among the
    statement's parameters, and each call's values put there."""

    def __init__(self, arguments: dict[str, str]) -> None:
        unknown = {kind for kind in arguments.values() if kind not in _TYPES}
        if unknown:
            raise ImproperlyConfigured(f"unknown argument kinds {sorted(unknown)}")
        self.kinds = arguments

    def sentinels(self, which: int) -> dict[str, Any]:
        return {
            name: _sentinel(kind, index, which)
            for index, (name, kind) in enumerate(self.kinds.items())
        }

    def compile(
        self, connection: Any, write: Callable[[int], tuple[str, tuple[Any, ...], T]]
    ) -> tuple[str, tuple[Any, ...], dict[str, tuple[int, ...]], T]:
        """The statement `write(which)` writes with the first sentinels, then the second: its
        SQL, the first's parameters, where each argument sits among them and what the first
        `write` kept beside them; refused when the SQL depends on the arguments."""
        sql, params, kept = write(0)
        second_sql, second_params, _ = write(1)
        if sql != second_sql:
            raise ImproperlyConfigured("the prepared queryset's SQL depends on its arguments")
        return sql, params, self.slots(connection, params, second_params), kept

    def slots(
        self, connection: Any, first: tuple[Any, ...], second: tuple[Any, ...]
    ) -> dict[str, tuple[int, ...]]:
        """Where each argument sits, from the parameters of the two compilations; refused when
        another parameter differs between them or an argument is missing."""
        if len(first) != len(second):
            raise ImproperlyConfigured("the prepared queryset's SQL depends on its arguments")
        first_sentinels, second_sentinels = self.sentinels(0), self.sentinels(1)
        expected = {
            name: (
                _prepare(connection, kind, first_sentinels[name]),
                _prepare(connection, kind, second_sentinels[name]),
            )
            for name, kind in self.kinds.items()
        }
        slots: dict[str, list[int]] = {name: [] for name in self.kinds}
        for position, pair in enumerate(zip(first, second, strict=True)):
            owner = [name for name, values in expected.items() if pair == values]
            if owner:
                slots[owner[0]].append(position)
            elif pair[0] != pair[1]:
                raise ImproperlyConfigured(
                    f"parameter {position} of the prepared queryset changes between calls "
                    "(a value read inside the builder?): make it an argument"
                )
        missing = [name for name, positions in slots.items() if not positions]
        if missing:
            raise ImproperlyConfigured(f"arguments {missing} are not in the statement")
        return {name: tuple(positions) for name, positions in slots.items()}

    def fill(
        self,
        connection: Any,
        template: tuple[Any, ...],
        slots: dict[str, tuple[int, ...]],
        values: dict[str, Any],
    ) -> list[Any]:
        if values.keys() != self.kinds.keys():
            raise TypeError(f"arguments {sorted(values)}, expected {sorted(self.kinds)}")
        params = list(template)
        for name, kind in self.kinds.items():
            value = values[name]
            if not isinstance(value, _TYPES[kind]) or isinstance(value, bool):
                raise TypeError(f"{name} must be {_TYPES[kind].__name__}, not {type(value)}")
            prepared = _prepare(connection, kind, value)
            for position in slots[name]:
                params[position] = prepared
        return params


class PreparedRead(Generic[M]):
    """`build(**arguments)` returns the queryset; `arguments` names each argument's kind
    (TEXT, INTEGER or MOMENT). `one(**values)` is the row or None, for a look-up by a unique
    key: the statement has no ORDER BY and reads one row (as core.lookups.one)."""

    def __init__(self, build: Callable[..., QuerySet[M]], **arguments: str) -> None:
        self._build = build
        self._arguments = _Arguments(arguments)
        self._compiled: _PerDatabase[_Compiled] = _PerDatabase()

    def one(self, *, using: str = "default", **values: Any) -> M | None:
        return next(self._rows(using, values), None)

    def get(self, *, using: str = "default", **values: Any) -> M:
        """The row, or the model's DoesNotExist (as `QuerySet.get`)."""
        found = self.one(using=using, **values)
        if found is None:
            model = self._compiled[using].compiler.klass_info["model"]
            raise model.DoesNotExist(f"{model.__name__} matching {values} does not exist.")
        return found

    def _rows(self, using: str, values: dict[str, Any]) -> Iterator[M]:
        connection = connections[using]
        compiled = self._compiled.made(using, lambda: self._compile(using))
        params = self._arguments.fill(connection, compiled.params, compiled.slots, values)
        if compiled.locks and connection.get_autocommit():
            # What the ORM's compiler says of a select_for_update outside a transaction.
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        compiler = compiled.compiler
        if compiler.has_extra_select:
            rows = [row[: compiler.col_count] for row in rows]
        annotations = compiler.annotation_col_map
        model = compiler.klass_info["model"]
        for row in _converted(rows, compiled.converters, connection):
            instance = model.from_db(
                using, compiled.init_list, row[compiled.fields_start : compiled.fields_end]
            )
            for populator in compiled.populators:
                populator.populate(row, instance)
            for attribute, position in (annotations or {}).items():
                setattr(instance, attribute, row[position])
            yield instance

    def _compile(self, using: str) -> _Compiled:
        connection = connections[using]
        sql, params, slots, compiler = self._arguments.compile(
            connection, lambda which: self._as_sql(using, which)
        )
        select, klass_info = compiler.select, compiler.klass_info
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        columns = [column[0] for column in select[: compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise ImproperlyConfigured("a prepared read takes no composite primary key")
        return _Compiled(
            sql=sql,
            params=params,
            slots=slots,
            compiler=compiler,
            init_list=tuple(f[0].target.attname for f in select[start:end]),
            fields_start=start,
            fields_end=end,
            populators=tuple(_populators(klass_info, select, using)),
            converters=_converters(compiler, columns),
            locks=bool(
                compiler.query.select_for_update and connection.features.has_select_for_update
            ),
        )

    def _as_sql(self, using: str, which: int) -> tuple[str, tuple[Any, ...], Any]:
        # order_by() and the slice: one row by a unique key, no ORDER BY to build.
        queryset: Any = self._build(**self._arguments.sentinels(which)).order_by()[:1]
        if queryset._iterable_class is not ModelIterable:
            raise ImproperlyConfigured("a prepared read returns model instances (no values())")
        if queryset._known_related_objects or queryset._prefetch_related_lookups:
            raise ImproperlyConfigured("a prepared read takes no related managers or prefetches")
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        return sql, tuple(params), compiler


# core.replica's router only lets some pages' reads go to a replica; a prepared statement reads
# the primary, which is never wrong (the hot paths' statements are money's, never a page's).
PRIMARY_ONLY_ROUTERS = frozenset({"core.replica.ReplicaRouter"})


def _one_database() -> None:
    """Statements go to the alias asked for (`using`, "default"): no router decides."""
    if set(settings.DATABASE_ROUTERS) - PRIMARY_ONLY_ROUTERS:
        raise ImproperlyConfigured("core.prepared does not consult DATABASE_ROUTERS")


def _converters(compiler: Any, columns: list[Any]) -> tuple[tuple[int, tuple[Any, ...], Any], ...]:
    """(position, converters, expression) of each column that has any, looked up once."""
    found = compiler.get_converters(columns)
    return tuple(
        (position, tuple(functions), expr) for position, (functions, expr) in found.items()
    )


def _converted(
    rows: list[Any], converters: tuple[tuple[int, tuple[Any, ...], Any], ...], connection: Any
) -> Iterator[Any]:
    """The rows with the backend's and the fields' converters applied (SQLCompiler's
    apply_converters, with the converters looked up once)."""
    if not converters:
        yield from rows
        return
    for row in rows:
        values = list(row)
        for position, functions, expression in converters:
            value = values[position]
            for function in functions:
                value = function(value, expression, connection)
            values[position] = value
        yield values


def _prepare(connection: Any, kind: str, value: Any) -> Any:
    """The parameter the ORM would send for `value` (DateTimeField.get_db_prep_value's way)."""
    if kind == MOMENT:
        if timezone.is_naive(value):
            raise TypeError("a moment must be timezone-aware")
        return connection.ops.adapt_datetimefield_value(value)
    if kind == TEXT:
        return str.__str__(value)  # a str enum's member (TextChoices) as its value
    return value
