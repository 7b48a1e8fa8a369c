"""The hot writes as plain SQL (issue 33): a payment's claim and answer, a journal and its
entries, an issuer transaction's row, a used client assertion.

Each statement is a constant in the module that owns its rows, written out as PostgreSQL and
SQLite both read it, and wrapped here once, at import, in an `Insert` or an `Update` that reads
its column names and matches them to the model's concrete fields: a statement that names a
column the model does not have, or (an INSERT) leaves out one it has, fails at import, and
tests/core/test_rows.py shows it. Each call sends the SQL as written with the values Django's
own save() would send, through the public Field API (`pre_save`, `get_db_prep_save`) and the
connection's cursor (statement counts, `execute_wrapper` and the query log see it); psycopg
prepares it once a connection has run it often enough (config/settings.py).

No save signals are sent: a model with pre_save or post_save receivers is refused, as it must be
written by save().
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction
from django.db.models import Model
from django.db.models.signals import post_save, pre_save

M = TypeVar("M", bound=Model)

_INSERT = re.compile(
    r'^INSERT INTO "(?P<table>\w+)" \((?P<columns>[^)]*)\) VALUES \((?P<values>[^)]*)\)'
    r'(?: RETURNING "(?P<returning>\w+)")?$'
)
_UPDATE = re.compile(r'^UPDATE "(?P<table>\w+)" SET (?P<set>.*?) WHERE (?P<where>.*)$', re.S)
_COLUMN = re.compile(r'^"(\w+)"$')
_ASSIGNMENT = re.compile(r'^"(\w+)" = %s$')


def _kept_in_psycopgs_query_cache(sql: str) -> None:
    """psycopg 3 converts a statement's `%s` placeholders to `$n` once and keeps the result,
    unless the statement has more than 50 parameters or 4096 characters: then it parses the
    statement again on every execution (about 0.2 ms for the payment's 62-column claim, measured
    in bench/README.md, issue 33). Our statements are constants, so their conversion may always
    be kept: the limits are raised to admit each one. psycopg's module constants
    (`psycopg._queries.MAX_CACHED_STATEMENT_PARAMS`, `MAX_CACHED_STATEMENT_LENGTH`) are not
    public API; tests/core/test_rows.py::test_psycopg_converts_each_statement_once breaks when
    they change (docs/decisions.md)."""
    try:
        from psycopg import _queries
    except ImportError:  # SQLite only: no psycopg installed
        return
    parameters = sql.count("%s")
    _queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, parameters)
    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, len(sql))


def _columns(model: type[Model], names: list[str]) -> tuple[Any, ...]:
    by_column = {field.column: field for field in model._meta.concrete_fields}
    unknown = [name for name in names if name not in by_column]
    if unknown:
        raise ImproperlyConfigured(f"{model._meta.label} has no columns {unknown}")
    return tuple(by_column[name] for name in names)


def _quoted(text: str) -> list[str]:
    names = []
    for part in text.split(","):
        found = _COLUMN.match(part.strip())
        if found is None:
            raise ImproperlyConfigured(f"not a quoted column name: {part.strip()!r}")
        names.append(found.group(1))
    return names


class Insert(Generic[M]):
    """An INSERT of one `model` row: `INSERT INTO "table" ("a", "b", ...) VALUES (%s, %s, ...)`,
    every concrete column the model has but an auto primary key, which it reads back with
    `RETURNING "id"`. `insert(instance)` writes as `save(force_insert=True)` would; and
    `insert_many(instances)` several rows in one statement, as bulk_create would."""

    def __init__(self, model: type[M], sql: str) -> None:
        found = _INSERT.match(sql)
        meta = model._meta
        if found is None or found.group("table") != meta.db_table:
            raise ImproperlyConfigured(f"{meta.label}: not an INSERT into {meta.db_table}: {sql}")
        self.fields = _columns(model, _quoted(found.group("columns")))
        auto = meta.auto_field
        expected = [f for f in meta.concrete_fields if not f.generated and f is not auto]
        if set(self.fields) != set(expected) or len(self.fields) != len(expected):
            missing = sorted(str(f.column) for f in set(expected) - set(self.fields))
            raise ImproperlyConfigured(f"{meta.label}: the INSERT leaves out {missing}")
        values = [v.strip() for v in found.group("values").split(",")]
        if values != ["%s"] * len(self.fields):
            raise ImproperlyConfigured(f"{meta.label}: one %s a column")
        returning = found.group("returning")
        if (returning is None) != (auto is None) or (auto and returning != auto.column):
            raise ImproperlyConfigured(f"{meta.label}: RETURNING its auto primary key, only it")
        self.model, self.sql, self.auto = model, sql, auto
        self._row = f"({found.group('values')})"
        _kept_in_psycopgs_query_cache(sql)

    def insert(self, instance: M, *, using: str = "default") -> M:
        self.insert_many([instance], using=using)
        return instance

    def insert_many(self, instances: Sequence[M], *, using: str = "default") -> list[M]:
        rows = list(instances)
        if not rows:
            return rows
        _refuse_receivers(self.model)
        if any(type(i) is not self.model or not i._state.adding for i in rows):
            raise TypeError(f"insert takes new {self.model.__name__} instances")
        connection = connections[using]
        params = []
        for instance in rows:
            for field in self.fields:
                value = field.pre_save(instance, True)
                if hasattr(value, "resolve_expression"):
                    raise TypeError(f"{field.name}: a plain insert takes values, not expressions")
                params.append(field.get_db_prep_save(value, connection=connection))
        sql = self.sql
        if len(rows) > 1:
            head, tail = sql.split(self._row, 1)
            sql = head + ", ".join([self._row] * len(rows)) + tail
        with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
            cursor.execute(sql, params)
            if self.auto is not None:
                for instance, (pk,) in zip(rows, cursor.fetchall(), strict=True):
                    setattr(instance, self.auto.attname, pk)
        for instance in rows:
            instance._state.adding = False
            instance._state.db = using
        return rows


class Update(Generic[M]):
    """An UPDATE of `model` rows: `UPDATE "table" SET "a" = %s, "b" = %s WHERE ...`, each
    assigned column a field's; `update(instance, *where)` sets them to the instance's values
    (get_db_prep_save, no pre_save: no auto_now field) and answers how many rows it wrote. The
    WHERE clause's parameters are given as the database takes them."""

    def __init__(self, model: type[M], sql: str) -> None:
        found = _UPDATE.match(sql)
        meta = model._meta
        if found is None or found.group("table") != meta.db_table:
            raise ImproperlyConfigured(f"{meta.label}: not an UPDATE of {meta.db_table}: {sql}")
        names = []
        for part in found.group("set").split(","):
            assigned = _ASSIGNMENT.match(part.strip())
            if assigned is None:
                raise ImproperlyConfigured(f"{meta.label}: not a column = %s: {part.strip()!r}")
            names.append(assigned.group(1))
        self.fields = _columns(model, names)
        own = [f.name for f in self.fields if f.primary_key or getattr(f, "auto_now", False)]
        if own:
            raise ImproperlyConfigured(f"{meta.label}: {own} cannot be written as given")
        self.model, self.sql = model, sql
        _kept_in_psycopgs_query_cache(sql)

    def update(self, instance: M, *where: Any, using: str = "default") -> int:
        if type(instance) is not self.model:
            raise TypeError(f"update takes a {self.model.__name__}")
        _refuse_receivers(self.model)
        connection = connections[using]
        params = []
        for field in self.fields:
            value = getattr(instance, field.attname)
            if hasattr(value, "resolve_expression"):
                raise TypeError(f"{field.name}: a plain update takes values, not expressions")
            params.append(field.get_db_prep_save(value, connection=connection))
        with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
            cursor.execute(self.sql, [*params, *where])
            return int(cursor.rowcount)


def _refuse_receivers(model: type[Model]) -> None:
    """No save signal is sent: a model with receivers is written by save()."""
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
        raise ImproperlyConfigured(f"{model._meta.label} has save receivers: use save()")
