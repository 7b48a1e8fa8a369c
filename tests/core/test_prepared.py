"""core.prepared: a hot look-up compiled once per process answers what the ORM would, with each
call's own arguments (issue 21)."""

from datetime import timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import Count, OuterRef, Subquery
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.prepared import INTEGER, MOMENT, TEXT, PreparedRead
from issuer import demo
from issuer.cards import selectors
from issuer.ledger.models import Hold
from tests.factories import MerchantFactory

pytestmark = pytest.mark.django_db


def _permission(codename: str, app_label: str):  # type: ignore[no-untyped-def]
    groups = Group.objects.filter(permissions=OuterRef("pk")).values("permissions")
    return (
        Permission.objects.select_related("content_type")
        .filter(codename=codename, content_type__app_label=app_label)
        .annotate(groups=Subquery(groups.annotate(n=Count("pk")).values("n")[:1]))
    )


PERMISSION = PreparedRead(_permission, codename=TEXT, app_label=TEXT)


def test_a_prepared_read_answers_as_the_orm_with_related_rows_and_annotations():
    group = Group.objects.create(name="staff")
    wanted = Permission.objects.get(codename="change_user", content_type__app_label="auth")
    group.permissions.add(wanted)
    for codename, app_label in (("change_user", "auth"), ("view_group", "auth")):
        expected = _permission(codename, app_label).get()
        found = PERMISSION.one(codename=codename, app_label=app_label)
        assert found is not None
        assert (found.pk, found.codename, found.name, found.groups) == (
            expected.pk,
            expected.codename,
            expected.name,
            expected.groups,  # type: ignore[attr-defined]
        )
        # The content type came with it, as select_related's would: no second query.
        with CaptureQueriesContext(connection) as queries:
            assert found.content_type.app_label == "auth"
            assert found.content_type == expected.content_type
        assert not queries.captured_queries
        assert found._state.db == "default" and not found._state.adding
    assert PERMISSION.one(codename="change_user", app_label="nobody") is None


def test_it_compiles_once_and_sends_one_statement_a_call():
    PERMISSION.one(codename="add_user", app_label="auth")  # compiled (if not yet) here
    with (
        mock.patch.object(SQLCompiler, "as_sql", side_effect=AssertionError("compiled again")),
        CaptureQueriesContext(connection) as queries,
    ):
        for codename in ("add_user", "delete_user", "view_user"):
            found = PERMISSION.one(codename=codename, app_label="auth")
            assert found is not None and found.codename == codename
    assert len(queries.captured_queries) == 3
    assert len({q["sql"].split(" WHERE ")[0] for q in queries.captured_queries}) == 1


def test_a_moment_argument_is_each_calls_own():
    joined = PreparedRead(
        lambda name, after: User.objects.filter(username=name, date_joined__gt=after),
        name=TEXT,
        after=MOMENT,
    )
    user = User.objects.create(username="ada", date_joined=timezone.now())
    assert joined.one(name="ada", after=user.date_joined - timedelta(seconds=1)) == user
    assert joined.one(name="ada", after=user.date_joined + timedelta(seconds=1)) is None
    with pytest.raises(TypeError, match="timezone-aware"):
        joined.one(name="ada", after=user.date_joined.replace(tzinfo=None))


def test_a_value_read_inside_the_builder_is_refused_not_frozen():
    frozen = PreparedRead(
        lambda name: User.objects.filter(username=name, date_joined__lte=timezone.now()),
        name=TEXT,
    )
    with pytest.raises(ImproperlyConfigured, match="changes between calls"):
        frozen.one(name="ada")


def test_arguments_are_checked():
    by_pk = PreparedRead(lambda pk: User.objects.filter(pk=pk), pk=INTEGER)
    with pytest.raises(TypeError, match="expected"):
        by_pk.one(id=1)
    with pytest.raises(TypeError, match="must be int"):
        by_pk.one(pk="1")
    with pytest.raises(TypeError, match="must be int"):
        by_pk.one(pk=True)
    unused = PreparedRead(lambda pk, name: User.objects.filter(pk=pk), pk=INTEGER, name=TEXT)
    with pytest.raises(ImproperlyConfigured, match="not in the statement"):
        unused.one(pk=1, name="x")
    with pytest.raises(ImproperlyConfigured, match="unknown argument kinds"):
        PreparedRead(lambda pk: User.objects.filter(pk=pk), pk="float")


def test_the_cards_balances_leave_out_a_hold_once_it_expired():
    """The issuer's prepared balance read takes `now` per call: a hold stops counting the moment
    it expires, however long the process has run."""
    MerchantFactory()
    cards = demo.demo_cards("prepared-client")
    card = selectors.card_of(client_id="prepared-client", reference=cards.prepaid.reference)
    before = selectors.balances(card=card)
    hold = Hold.objects.create(
        account_id=card.account.ledger_id,
        amount=Decimal("5.00"),
        expires_at=timezone.now() + timedelta(hours=1),
    )
    held = selectors.balances(card=card)
    assert Decimal(held["availableBalance"]) == Decimal(before["availableBalance"]) - 5
    assert Decimal(held["heldAmount"]) == Decimal(before["heldAmount"]) + 5
    Hold.objects.filter(pk=hold.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert selectors.balances(card=card) == before


def test_a_prepared_lock_refuses_to_run_outside_a_transaction_as_the_orm_does():
    from django.db import transaction
    from django.db.transaction import TransactionManagementError

    locking = PreparedRead(lambda pk: User.objects.select_for_update().filter(pk=pk), pk=INTEGER)
    user = User.objects.create(username="grace")
    with transaction.atomic():
        assert locking.one(pk=user.pk) == user
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in locking._compiled["default"].sql
        with (
            mock.patch.object(connection, "get_autocommit", return_value=True),
            pytest.raises(TransactionManagementError, match="outside of a transaction"),
        ):
            locking.one(pk=user.pk)


def test_text_arguments_are_sent_as_their_string_value_for_any_str_enum():
    import enum

    class Name(str, enum.Enum):  # noqa: UP042 - str() of this member is "Name.ADA", not "ada"
        ADA = "ada"

    by_name = PreparedRead(lambda name: User.objects.filter(username=name), name=TEXT)
    user = User.objects.create(username="ada")
    assert by_name.one(name=Name.ADA) == user


class NoRouter:
    """A router with no opinion: its presence alone is refused."""


def test_a_prepared_statement_refuses_routers_and_a_values_builder(settings):
    values = PreparedRead(lambda name: User.objects.filter(username=name).values("pk"), name=TEXT)
    with pytest.raises(ImproperlyConfigured, match="model instances"):
        values.one(name="x")
    settings.DATABASE_ROUTERS = [f"{__name__}.NoRouter"]
    routed = PreparedRead(lambda name: User.objects.filter(username=name), name=TEXT)
    with pytest.raises(ImproperlyConfigured, match="DATABASE_ROUTERS"):
        routed.one(name="x")


# --- prepared on the PostgreSQL server, by psycopg ---------------------------------------------

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="prepared statements: PostgreSQL's"
)
BY_NAME = PreparedRead(lambda name: User.objects.filter(username=name), name=TEXT)


def _sent(call):  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as queries:
        found = call()
    return found, [q["sql"] for q in queries.captured_queries]


def _prepared_on_the_server(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE %s",
            [f"%{table}%"],
        )
        return int(cursor.fetchone()[0])


@on_postgresql
def test_on_postgresql_psycopg_prepares_a_statement_the_connection_runs_again():
    """The same SQL on every call: psycopg prepares it at the protocol level once the connection
    has run it prepare_threshold times (config/settings.py), and the query log shows the SQL."""
    User.objects.create(username="ada")
    threshold = connection.connection.prepare_threshold
    assert threshold is not None
    for _ in range(threshold + 1):
        found, [statement] = _sent(lambda: BY_NAME.one(name="ada"))
        assert found is not None and found.username == "ada"
        assert statement.startswith('SELECT "auth_user"."id"')
    assert _prepared_on_the_server("auth_user") >= 1


@on_postgresql
def test_with_no_threshold_nothing_is_prepared():
    """DB_PREPARE_THRESHOLD=0 (behind PgBouncer before 1.21 in transaction mode): psycopg's
    prepare_threshold None, and the statements are sent as they are."""
    connection.ensure_connection()
    raw = connection.connection
    previous = raw.prepare_threshold
    raw.prepare_threshold = None
    try:
        Group.objects.create(name="unprepared")
        fresh = PreparedRead(lambda name: Group.objects.filter(name=name), name=TEXT)
        for _ in range(8):
            assert fresh.one(name="unprepared") is not None
        assert _prepared_on_the_server("auth_group") == 0
    finally:
        raw.prepare_threshold = previous


def test_transaction_pooling_prepares_nothing_and_holds_no_cursor():
    """DB_TRANSACTION_POOLING=true (PgBouncer in transaction mode, issue 36; the cluster test
    runs its nodes so): psycopg prepares nothing unless DB_PREPARE_THRESHOLD says (PgBouncer
    1.21 and later keep prepared statements), and Django opens no server-side cursor, which
    would not outlive the transaction PgBouncer lends a server connection for. The settings
    module read afresh under each environment, in a process of its own."""
    import json
    import os
    import subprocess
    import sys

    cases = {
        "direct": ({}, [5, False]),
        "behind PgBouncer 1.18": ({"DB_TRANSACTION_POOLING": "true"}, [None, True]),
        "behind PgBouncer 1.21+": (
            {"DB_TRANSACTION_POOLING": "true", "DB_PREPARE_THRESHOLD": "5"},
            [5, True],
        ),
    }
    probe = (
        "import importlib, json, os, sys\n"
        "out = {}\n"
        "for name, environment in json.loads(sys.argv[1]).items():\n"
        "    for key in ('DB_TRANSACTION_POOLING', 'DB_PREPARE_THRESHOLD'):\n"
        "        os.environ.pop(key, None)\n"
        "    os.environ.update(environment)\n"
        "    sys.modules.pop('config.settings', None)\n"
        "    db = importlib.import_module('config.settings').DATABASES['default']\n"
        "    out[name] = [db['OPTIONS']['prepare_threshold'], db['DISABLE_SERVER_SIDE_CURSORS']]\n"
        "print(json.dumps(out))\n"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DB_")},
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused",
    }
    arguments = json.dumps({name: environment for name, (environment, _) in cases.items()})
    out = subprocess.run(
        [sys.executable, "-c", probe, arguments],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen == {name: expected for name, (_, expected) in cases.items()}
