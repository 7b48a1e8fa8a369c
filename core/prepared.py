"""Hot look-ups, inserts and updates whose SQL the ORM compiles once per process, not once per
request (issue 21).

A queryset is rebuilt and compiled on every call: for a card read with its product, customer,
account, ledger and an annotated subquery, Django's compiler spends more CPU than PostgreSQL
spends answering. `PreparedRead` asks the ORM for the statement once per database alias, with
sentinel arguments, and afterwards sends the same SQL with each call's arguments through the
connection's cursor (so `execute_wrapper`, the debug log and statement counts see it as before),
building the instances as Django's `ModelIterable` does: `from_db`, the select_related
populators and the annotations. `PreparedInsert` and `PreparedUpdate` do the same for a new row
(as `save(force_insert=True)`) and for fields of the rows a filter names (as `QuerySet.update`);
`PreparedInsert.insert_many` for a few new rows at once (as `bulk_create`), `PreparedChange` for
an UPDATE whose values are expressions of its arguments (a journal's balances).
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, get_related_populators
from django.db.models.signals import post_save, pre_save
from django.db.models.sql.subqueries import InsertQuery, UpdateQuery
from django.db.transaction import TransactionManagementError
from django.utils import timezone

M = TypeVar("M", bound=Model)
# Django 5.2's signature (klass_info, select, db); django-stubs describe a later one.
_populators: Callable[[Any, Any, str], list[Any]] = get_related_populators  # type: ignore[assignment]

# The kinds of argument a prepared statement takes. Each argument gets two sentinels of its kind
# (`_sentinel`), told apart from every other parameter of the statement and from each other.
TEXT, INTEGER, MOMENT, DECIMAL = "text", "integer", "moment", "decimal"
_EPOCH = datetime(2001, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)


def _sentinel(kind: str, index: int, which: int) -> Any:
    if kind == TEXT:
        return f"\x1fprepared-{index}-{which}\x1f"
    if kind == INTEGER:
        # Within every integer column's range but the small ones': the ORM turns a look-up
        # outside the column's range into "no rows" without a statement.
        return 1_987_654_000 + 2 * index + which
    if kind == DECIMAL:
        return Decimal(f"-1987.{index:04d}{which}7")
    return _EPOCH + timedelta(days=400 * index + which, microseconds=index + 1)


_TYPES: dict[str, type] = {TEXT: str, INTEGER: int, MOMENT: datetime, DECIMAL: Decimal}
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
            if isinstance(value, Decimal) and not value.is_finite():
                raise TypeError(f"{name} must be a finite Decimal, not {value}")
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


@dataclass(frozen=True)
class _Insert(_Sql):
    fields: tuple[Any, ...]  # the concrete fields written, in the statement's order
    returning: tuple[Any, ...]  # the fields the database fills in (an auto primary key)
    returning_params: tuple[Any, ...]
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]
    by_column: bool  # one array parameter per column (PostgreSQL's UNNEST of several rows)


# The most rows insert_many writes through one compiled statement of its count; more go through
# bulk_create (a statement per count is kept, so counts stay few: a journal's lines, say).
MANY_ROWS = 8


class PreparedInsert(Generic[M]):
    """`insert(instance)` writes one new row of `model` as `instance.save(force_insert=True)`
    would (each field's pre_save: defaults, auto_now_add, checksums; get_db_prep_save; an
    auto primary key read back), with the INSERT's SQL compiled once per database. No save
    signals are sent: a model with pre_save or post_save receivers is refused.

    `insert_many(instances)` writes up to MANY_ROWS new rows in one statement as
    `bulk_create(instances)` would (each field's pre_save, primary keys read back, no
    signals), compiled once per database and number of rows."""

    def __init__(self, model: type[M]) -> None:
        meta = model._meta
        if meta.parents or meta.proxy or meta.order_with_respect_to:
            raise ImproperlyConfigured(f"{meta.label}: a prepared insert takes a plain model")
        self._model = model
        self._compiled: _PerDatabase[_Insert] = _PerDatabase()  # one row
        self._many: dict[int, _PerDatabase[_Insert]] = {
            count: _PerDatabase() for count in range(2, MANY_ROWS + 1)
        }

    def insert(self, instance: M, *, using: str = "default") -> M:
        connection = connections[using]
        if not connection.features.can_return_columns_from_insert:
            self._check_new([instance])
            instance.save(force_insert=True, using=using)  # the ORM's own way on this database
            return instance
        _refuse_receivers(self._model)
        self._write([instance], using, "save")
        return instance

    def insert_many(self, instances: Sequence[M], *, using: str = "default") -> list[M]:
        rows = list(instances)
        connection = connections[using]
        if (
            not 0 < len(rows) <= MANY_ROWS
            or not connection.features.can_return_rows_from_bulk_insert
        ):
            self._check_new(rows)
            return self._model._default_manager.using(using).bulk_create(rows)
        self._write(rows, using, "bulk_create")
        return rows

    def _check_new(self, instances: list[M]) -> None:
        if any(type(i) is not self._model or not i._state.adding for i in instances):
            raise TypeError(f"insert takes new {self._model.__name__} instances")

    def _write(self, instances: list[M], using: str, operation: str) -> None:
        self._check_new(instances)
        connection = connections[using]
        fields = _insert_fields(instances[0])
        rows = []
        for instance in instances:
            unsaved: Any = instance  # Model's check that every related object is saved
            unsaved._prepare_related_fields_for_save(operation_name=operation)
            values = [field.pre_save(instance, True) for field in fields]
            expressions = [
                f.name
                for f, v in zip(fields, values, strict=True)
                if hasattr(v, "resolve_expression")
            ]
            if expressions:
                raise TypeError(f"{expressions}: a prepared insert takes values, not expressions")
            if _insert_fields(instance) != fields:
                raise TypeError("every instance sets its primary key, or none does")
            rows.append(values)
        prepared = [
            [
                field.get_db_prep_save(value, connection=connection)
                for field, value in zip(fields, values, strict=True)
            ]
            for values in rows
        ]
        compiling = self._many[len(instances)] if len(instances) > 1 else self._compiled
        compiled = compiling.made(using, lambda: self._compile(using, instances))
        if fields != compiled.fields:
            raise TypeError("every instance sets its primary key, or none does")
        params = _insert_params(prepared, compiled.by_column)
        with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            if compiled.returning:
                ops: Any = connection.ops  # PostgreSQL's and SQLite's (can_return_rows...)
                if len(instances) == 1:
                    returned = [
                        ops.fetch_returned_insert_columns(cursor, compiled.returning_params)
                    ]
                else:
                    returned = ops.fetch_returned_insert_rows(cursor)
                converted = _converted(returned, compiled.converters, connection)
                for instance, values in zip(instances, converted, strict=True):
                    for field, value in zip(compiled.returning, values, strict=True):
                        setattr(instance, field.attname, value)
        for instance in instances:
            instance._state.adding = False
            instance._state.db = using

    def _compile(self, using: str, instances: list[M]) -> _Insert:
        """The INSERT of the instances' fields, from the instances whose values were just
        checked (plain values: each a placeholder, counted)."""
        model, meta = self._model, self._model._meta
        fields = _insert_fields(instances[0])
        placeholders = [f.name for f in fields if hasattr(f, "get_placeholder")]
        if placeholders:
            raise ImproperlyConfigured(f"{placeholders}: placeholders that depend on values")
        returning = list(meta.db_returning_fields)
        query = InsertQuery(model)
        rows: list[Model] = list(instances)
        query.insert_values(fields, rows, raw=True)  # as read: pre_save ran already
        compiler = query.get_compiler(using=using)
        compiler.returning_fields = returning
        [(sql, sent)] = compiler.as_sql()
        # Several rows go as one array a column (PostgreSQL's UNNEST) or as a value each.
        by_column = len(instances) > 1 and len(sent) == len(fields)
        expected = len(fields) * (1 if by_column else len(instances))
        if len(sent) != expected or sql.count("%s") != expected:
            raise ImproperlyConfigured(f"{meta.label}: a value is not a plain parameter")
        columns = [field.get_col(meta.db_table) for field in returning]
        return _Insert(
            sql=sql,
            fields=fields,
            returning=tuple(returning),
            returning_params=tuple(compiler.returning_params),
            converters=_converters(compiler, columns),
            by_column=by_column,
        )


def _insert_params(rows: list[list[Any]], by_column: bool) -> list[Any]:
    """An INSERT's parameters: each row's values in turn, or one list a column."""
    if by_column:
        return [list(column) for column in zip(*rows, strict=True)]
    return [value for row in rows for value in row]


@dataclass(frozen=True)
class _Update(_Sql):
    fields: tuple[Any, ...]  # the fields set, in the statement's order
    where_params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]  # argument -> positions in where_params


class PreparedUpdate(Generic[M]):
    """`update(instance, **values)` sets `fields` of the rows that `build(**values)` filters to
    the instance's values, as `build(...).update(field=getattr(instance, field), ...)` would
    (each field's get_db_prep_save; no pre_save, no signals), and answers how many rows it
    wrote. Its SQL is compiled once per database; the filter's arguments are checked as a
    PreparedRead's are."""

    def __init__(
        self,
        model: type[M],
        fields: Sequence[str],
        build: Callable[..., QuerySet[M]],
        **arguments: str,
    ) -> None:
        self._model = model
        self._fields: tuple[Any, ...] = tuple(model._meta.get_field(name) for name in fields)
        self._field_set = frozenset(self._fields)
        if any(not f.concrete or f.primary_key or f.generated for f in self._fields):
            raise ImproperlyConfigured("a prepared update sets concrete, non-key fields")
        # What save(update_fields=...) would do differently: a value of its own (auto_now), a
        # placeholder that depends on the value.
        own = [
            f.name
            for f in self._fields
            if getattr(f, "auto_now", False) or hasattr(f, "get_placeholder")
        ]
        if own:
            raise ImproperlyConfigured(f"fields a prepared update cannot write as given: {own}")
        self._build = build
        self._arguments = _Arguments(arguments)
        self._compiled: _PerDatabase[_Update] = _PerDatabase()

    def update(self, instance: M, *, using: str = "default", **values: Any) -> int:
        if type(instance) is not self._model:
            raise TypeError(f"update takes a {self._model.__name__}")
        _refuse_receivers(self._model)
        unsaved: Any = instance  # Model's check that every related object is saved (as save())
        # A set, not the tuple: Django tests each of the model's fields for membership, which
        # in a tuple of fifteen compares up to fifteen times (900 Field.__eq__ for a payment).
        unsaved._prepare_related_fields_for_save(operation_name="save", fields=self._field_set)
        connection = connections[using]
        compiled = self._compiled.made(using, lambda: self._compile(using))
        params = []
        for field in compiled.fields:
            value = getattr(instance, field.attname)
            if hasattr(value, "resolve_expression"):
                raise TypeError(f"{field.name}: a prepared update takes values, not expressions")
            params.append(field.get_db_prep_save(value, connection=connection))
        params += self._arguments.fill(connection, compiled.where_params, compiled.slots, values)
        with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            return int(cursor.rowcount)

    def _compile(self, using: str) -> _Update:
        connection = connections[using]
        where, params, slots, _ = self._arguments.compile(
            connection, lambda which: (*self._where(using, which), None)
        )
        quote = connection.ops.quote_name
        assignments = ", ".join(f"{quote(str(field.column))} = %s" for field in self._fields)
        table = quote(self._model._meta.db_table)
        return _Update(
            # Quoted names of the model's own and the ORM's compiled filter: no input here.
            sql=f"UPDATE {table} SET {assignments} WHERE {where}",  # noqa: S608
            fields=self._fields,
            where_params=params,
            slots=slots,
        )

    def _where(self, using: str, which: int) -> tuple[str, tuple[Any, ...]]:
        """The filter's WHERE clause as the ORM's UPDATE writes it (the table's own columns)."""
        queryset: Any = self._build(**self._arguments.sentinels(which))
        query = queryset.query.chain(UpdateQuery)
        if len(query.alias_map) != 1:
            raise ImproperlyConfigured("a prepared update filters on its table's own columns")
        sql, params = query.get_compiler(using=using).compile(query.where)
        return sql, tuple(params)


class PreparedChange:
    """`change(**values)` runs the UPDATE that `build(**values)` describes, as `queryset.update(
    **assignments)` would, and answers how many rows it wrote: `build` returns the queryset (on
    its table's own columns) and the assignments, which may be expressions of the arguments
    (`F("balance") + delta`, a `Case` by primary key). No pre_save, no signals, as
    `QuerySet.update`. The whole statement is compiled once per database and its arguments
    checked as a PreparedRead's are."""

    def __init__(
        self, build: Callable[..., tuple[QuerySet[Any], dict[str, Any]]], **arguments: str
    ) -> None:
        self._build = build
        self._arguments = _Arguments(arguments)
        self._compiled: _PerDatabase[_Change] = _PerDatabase()

    def change(self, *, using: str = "default", **values: Any) -> int:
        connection = connections[using]
        compiled = self._compiled.made(using, lambda: self._compile(using))
        params = self._arguments.fill(connection, compiled.params, compiled.slots, values)
        with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            return int(cursor.rowcount)

    def _compile(self, using: str) -> _Change:
        sql, params, slots, _ = self._arguments.compile(
            connections[using], lambda which: (*self._as_sql(using, which), None)
        )
        return _Change(sql=sql, params=params, slots=slots)

    def _as_sql(self, using: str, which: int) -> tuple[str, tuple[Any, ...]]:
        queryset, assignments = self._build(**self._arguments.sentinels(which))
        query: Any = queryset.query.chain(UpdateQuery)
        query.add_update_values(assignments)
        query.annotations = {}  # as QuerySet.update
        if len(query.alias_map) != 1 or query.related_updates:
            raise ImproperlyConfigured("a prepared change updates its table's own columns")
        sql, params = query.get_compiler(using=using).as_sql()
        return sql, tuple(params)


@dataclass(frozen=True)
class _Change(_Sql):
    params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]


def _one_database() -> None:
    """Statements go to the alias asked for (`using`, "default"): no router decides."""
    if settings.DATABASE_ROUTERS:
        raise ImproperlyConfigured("core.prepared does not consult DATABASE_ROUTERS")


def _refuse_receivers(model: type[Model]) -> None:
    """No save signal is sent: a model with receivers is written by save()."""
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
        raise ImproperlyConfigured(f"{model._meta.label} has save receivers: use save()")


def _insert_fields(instance: Model) -> tuple[Any, ...]:
    """The fields save() inserts: every concrete one, the primary key when it is set (given, or
    its field's default, a new id) rather than the database's."""
    meta = instance._meta
    pk_set = instance.pk is not None
    return tuple(
        f
        for f in meta.local_concrete_fields
        if not f.generated and (pk_set or f is not meta.auto_field)
    )


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
    if kind == DECIMAL:
        return connection.ops.adapt_decimalfield_value(value)  # as Value(Decimal) sends it
    return value
