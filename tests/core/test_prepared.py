"""core.prepared: a hot look-up compiled once per process answers what the ORM would, with each
call's own arguments (issue 21)."""

from datetime import timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.prepared import INTEGER, MOMENT, TEXT, PreparedInsert, PreparedRead
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


# --- inserts ------------------------------------------------------------------------------------


def test_a_prepared_insert_writes_the_row_save_would():
    """Each field's pre_save runs (DOT's token checksum, auto_now_add, a JSON default), the auto
    primary key comes back, and the instance is saved as far as Django knows."""
    from oauth2_provider.models import AccessToken, Application

    application = Application.objects.create(
        client_id="prepared",
        client_type="confidential",
        authorization_grant_type="client-credentials",
    )
    inserting = PreparedInsert(AccessToken)
    expires = timezone.now() + timedelta(minutes=5)
    made = inserting.insert(
        AccessToken(application=application, token="jti-1", expires=expires, scope="A B")
    )
    assert made.pk is not None and not made._state.adding and made._state.db == "default"
    saved = AccessToken(application=application, token="jti-2", expires=expires, scope="A B")
    saved.save(force_insert=True)
    rows = {row.token: row for row in AccessToken.objects.filter(application=application)}
    ours, theirs = rows["jti-1"], rows["jti-2"]
    assert ours.pk == made.pk and ours.token_checksum and ours.resource == theirs.resource == []
    assert (ours.expires, ours.scope, ours.application_id) == (
        theirs.expires,
        theirs.scope,
        theirs.application_id,
    )
    assert abs(ours.created - theirs.created) < timedelta(seconds=5)
    with (
        mock.patch.object(SQLCompiler, "as_sql", side_effect=AssertionError("compiled again")),
        CaptureQueriesContext(connection) as queries,
    ):
        inserting.insert(
            AccessToken(application=application, token="jti-3", expires=expires, scope="A")
        )
    assert len(queries.captured_queries) == 1
    assert AccessToken.objects.filter(token="jti-3").exists()


def test_a_prepared_insert_refuses_a_duplicate_and_spoils_the_transaction():
    from django.db import IntegrityError, transaction

    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    later = timezone.now() + timedelta(minutes=5)
    inserting.insert(UsedAssertion(client_id="c", jti="j", expires_at=later))
    with pytest.raises(IntegrityError), transaction.atomic():
        try:
            inserting.insert(UsedAssertion(client_id="c", jti="j", expires_at=later))
        finally:
            assert transaction.get_connection().needs_rollback
    assert UsedAssertion.objects.filter(client_id="c").count() == 1


def test_a_prepared_insert_takes_new_plain_instances_of_its_model_only():
    from django.db.models import F
    from django.db.models.signals import post_save

    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    later = timezone.now() + timedelta(minutes=5)
    row = inserting.insert(UsedAssertion(client_id="c", jti="k", expires_at=later))
    with pytest.raises(TypeError, match="new UsedAssertion"):
        inserting.insert(row)
    with pytest.raises(TypeError, match="new UsedAssertion"):
        inserting.insert(User(username="x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not expressions"):
        inserting.insert(UsedAssertion(client_id="c", jti=F("client_id"), expires_at=later))

    def receiver(**kwargs):  # type: ignore[no-untyped-def]
        pass

    post_save.connect(receiver, sender=Group, weak=False)
    try:
        with pytest.raises(ImproperlyConfigured, match="save receivers"):
            PreparedInsert(Group).insert(Group(name="g"))
    finally:
        post_save.disconnect(receiver, sender=Group)


# --- updates ------------------------------------------------------------------------------------


def test_a_prepared_update_writes_what_queryset_update_would_and_counts_the_rows():
    from core.prepared import PreparedUpdate

    setting = PreparedUpdate(
        User,
        ["first_name", "last_login", "is_staff"],
        lambda name, email: User.objects.filter(username=name, email=email, is_active=True),
        name=TEXT,
        email=TEXT,
    )
    ours = User.objects.create(username="ours", last_login=timezone.now())
    theirs = User.objects.create(username="theirs", last_login=timezone.now())
    for user in (ours, theirs):
        user.first_name, user.last_login, user.is_staff = "Ada", None, True
    assert setting.update(ours, name="ours", email="") == 1
    User.objects.filter(username="theirs").update(first_name="Ada", last_login=None, is_staff=True)
    rows = {u.username: u for u in User.objects.all()}
    assert (
        (rows["ours"].first_name, rows["ours"].last_login, rows["ours"].is_staff)
        == (
            rows["theirs"].first_name,
            rows["theirs"].last_login,
            rows["theirs"].is_staff,
        )
        == ("Ada", None, True)
    )
    when = timezone.now()
    ours.last_login, ours.first_name = when, "Grace"
    with (
        mock.patch.object(SQLCompiler, "compile", side_effect=AssertionError("compiled again")),
        CaptureQueriesContext(connection) as queries,
    ):
        assert setting.update(ours, name="ours", email="") == 1
        assert setting.update(ours, name="nobody", email="") == 0
    assert len(queries.captured_queries) == 2
    ours.refresh_from_db()
    assert (ours.first_name, ours.last_login) == ("Grace", when)


def test_a_prepared_update_refuses_what_it_cannot_write_as_the_orm_would():
    from django.db.models import F

    from core.prepared import PreparedUpdate

    with pytest.raises(ImproperlyConfigured, match="non-key"):
        PreparedUpdate(User, ["id"], lambda pk: User.objects.filter(pk=pk), pk=INTEGER)
    joined = PreparedUpdate(
        User, ["first_name"], lambda name: User.objects.filter(groups__name=name), name=TEXT
    )
    user = User.objects.create(username="x")
    with pytest.raises(ImproperlyConfigured, match="own columns"):
        joined.update(user, name="staff")
    by_pk = PreparedUpdate(User, ["first_name"], lambda pk: User.objects.filter(pk=pk), pk=INTEGER)
    user.first_name = F("last_name")  # type: ignore[assignment]
    with pytest.raises(TypeError, match="not expressions"):
        by_pk.update(user, pk=user.pk)
    with pytest.raises(TypeError, match="update takes a User"):
        by_pk.update(Group(name="g"), pk=1)  # type: ignore[arg-type]


def test_a_prepared_insert_keeps_to_one_way_of_setting_the_primary_key():
    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    later = timezone.now() + timedelta(minutes=5)
    inserting.insert(UsedAssertion(client_id="c", jti="m", expires_at=later))  # the database's
    with pytest.raises(TypeError, match="primary key"):
        inserting.insert(UsedAssertion(pk=10_000, client_id="c", jti="n", expires_at=later))
    assert not UsedAssertion.objects.filter(jti="n").exists()


# --- what a review of the first version found -----------------------------------------------------


def test_an_expression_in_the_first_insert_is_refused_and_leaves_nothing_compiled():
    from django.db.models.functions import Now

    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    with pytest.raises(TypeError, match="not expressions"):
        inserting.insert(UsedAssertion(client_id="c", jti="e", expires_at=Now()))
    assert inserting._compiled == {}
    later = timezone.now() + timedelta(minutes=5)
    inserting.insert(UsedAssertion(client_id="c", jti="f", expires_at=later))
    assert UsedAssertion.objects.filter(jti="f").exists()


def test_a_receiver_connected_after_the_first_insert_or_update_is_not_skipped():
    from django.db.models.signals import pre_save

    from core.prepared import PreparedUpdate

    inserting = PreparedInsert(Group)
    group = inserting.insert(Group(name="before"))
    setting = PreparedUpdate(Group, ["name"], lambda pk: Group.objects.filter(pk=pk), pk=INTEGER)
    assert setting.update(group, pk=group.pk) == 1

    def receiver(**kwargs):  # type: ignore[no-untyped-def]
        pass

    pre_save.connect(receiver, sender=Group, weak=False)
    try:
        with pytest.raises(ImproperlyConfigured, match="save receivers"):
            inserting.insert(Group(name="after"))
        with pytest.raises(ImproperlyConfigured, match="save receivers"):
            setting.update(group, pk=group.pk)
    finally:
        pre_save.disconnect(receiver, sender=Group)
    assert not Group.objects.filter(name="after").exists()


def test_a_prepared_update_refuses_a_field_save_would_change_and_an_unsaved_relation():
    from oauth2_provider.models import AccessToken, Application

    from core.prepared import PreparedUpdate

    with pytest.raises(ImproperlyConfigured, match="cannot write as given"):
        PreparedUpdate(
            AccessToken, ["updated"], lambda pk: AccessToken.objects.filter(pk=pk), pk=INTEGER
        )
    setting = PreparedUpdate(
        AccessToken, ["application"], lambda pk: AccessToken.objects.filter(pk=pk), pk=INTEGER
    )
    token = AccessToken.objects.create(token="t", expires=timezone.now(), scope="A")
    token.application = Application(client_id="unsaved")
    with pytest.raises(ValueError, match="unsaved related object"):
        setting.update(token, pk=token.pk)


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


# --- several rows, and updates by expressions ---------------------------------------------------


def _assertions(*jtis: str, pk: int | None = None):  # type: ignore[no-untyped-def]
    from issuer.models import UsedAssertion

    later = timezone.now() + timedelta(minutes=5)
    return [UsedAssertion(pk=pk, client_id="many", jti=jti, expires_at=later) for jti in jtis]


def test_insert_many_writes_the_rows_bulk_create_would_in_one_statement():
    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    made = inserting.insert_many(_assertions("a", "b", "c"))
    theirs = UsedAssertion.objects.bulk_create(_assertions("d", "e", "f"))
    rows = {row.jti: row for row in UsedAssertion.objects.filter(client_id="many")}
    assert [m.pk for m in made] == [rows[j].pk for j in "abc"]
    assert all(not m._state.adding and m._state.db == "default" for m in made)
    assert [(r.client_id, r.expires_at) for r in made] == [
        (rows[j].client_id, rows[j].expires_at) for j in "abc"
    ]
    assert all(rows[t.jti].pk == t.pk for t in theirs)
    with (
        mock.patch.object(SQLCompiler, "as_sql", side_effect=AssertionError("compiled again")),
        CaptureQueriesContext(connection) as queries,
    ):
        again = inserting.insert_many(_assertions("g", "h", "i"))
    assert len(queries.captured_queries) == 1
    assert {r.pk for r in again} == set(
        UsedAssertion.objects.filter(jti__in="ghi").values_list("pk", flat=True)
    )


def test_insert_many_beyond_its_counts_is_bulk_create_and_refuses_what_insert_does():
    from django.db.models import F

    from core.prepared import MANY_ROWS
    from issuer.models import UsedAssertion

    inserting = PreparedInsert(UsedAssertion)
    many = [f"x{i}" for i in range(MANY_ROWS + 1)]
    with CaptureQueriesContext(connection) as queries:
        made = inserting.insert_many(_assertions(*many))
    assert len(queries.captured_queries) == 1 and all(m.pk for m in made)
    assert UsedAssertion.objects.filter(jti__in=many).count() == MANY_ROWS + 1
    assert inserting._many[2] == {}  # nothing compiled for it
    with pytest.raises(TypeError, match="new UsedAssertion"):
        inserting.insert_many([*_assertions("y"), made[0]])
    with pytest.raises(TypeError, match="primary key"):
        inserting.insert_many([*_assertions("z1"), *_assertions("z2", pk=10_000)])
    [expression] = _assertions("z3")
    expression.jti = F("client_id")  # type: ignore[assignment]
    with pytest.raises(TypeError, match="not expressions"):
        inserting.insert_many([*_assertions("z4"), expression])
    assert not UsedAssertion.objects.filter(jti__startswith="z").exists()


def _accounts(*balances: str):  # type: ignore[no-untyped-def]
    from issuer.ledger.models import LedgerAccount

    return [
        LedgerAccount.objects.create(
            name=f"a{i}", kind="ISSUER", currency="EUR", balance=Decimal(b), allow_negative=True
        )
        for i, b in enumerate(balances)
    ]


def test_a_prepared_change_writes_what_queryset_update_would_with_each_calls_values():
    from django.db.models import Case, F, When

    from core.prepared import DECIMAL, PreparedChange
    from issuer.ledger.models import LedgerAccount

    def build(first, second, d1, d2):  # type: ignore[no-untyped-def]
        balance = Case(
            When(pk=first, then=F("balance") + d1),
            When(pk=second, then=F("balance") + d2),
            output_field=LedgerAccount._meta.get_field("balance"),
        )
        return LedgerAccount.objects.filter(pk__in=[first, second]), {"balance": balance}

    moving = PreparedChange(build, first=INTEGER, second=INTEGER, d1=DECIMAL, d2=DECIMAL)
    ours, other, theirs, untouched = _accounts("0.100", "5.000", "0.100", "1.000")
    assert moving.change(first=ours.pk, second=other.pk, d1=Decimal("0.2"), d2=Decimal("-7.5"))
    queryset, assignments = build(theirs.pk, untouched.pk + 10_000, Decimal("0.2"), Decimal(0))
    queryset.update(**assignments)
    balances = dict(LedgerAccount.objects.values_list("pk", "balance"))
    # Exact decimals on every database (SQLite included): 0.1 + 0.2 is 0.3.
    assert balances[ours.pk] == balances[theirs.pk] == Decimal("0.300")
    assert (balances[other.pk], balances[untouched.pk]) == (Decimal("-2.500"), Decimal("1.000"))
    with (
        mock.patch.object(SQLCompiler, "compile", side_effect=AssertionError("compiled again")),
        CaptureQueriesContext(connection) as queries,
    ):
        assert moving.change(first=ours.pk, second=0, d1=Decimal("1"), d2=Decimal("1")) == 1
    assert len(queries.captured_queries) == 1
    assert LedgerAccount.objects.get(pk=ours.pk).balance == Decimal("1.300")
    with pytest.raises(TypeError, match="d1 must be Decimal"):
        moving.change(first=ours.pk, second=other.pk, d1=1.5, d2=Decimal(1))


def test_a_prepared_change_refuses_frozen_values_and_other_tables():
    from django.db.models import F

    from core.prepared import DECIMAL, PreparedChange
    from issuer.ledger.models import LedgerAccount

    [account] = _accounts("1.000")
    frozen = PreparedChange(
        lambda pk: (
            LedgerAccount.objects.filter(pk=pk),
            {"balance": F("balance") + Decimal(timezone.now().microsecond + 1)},
        ),
        pk=INTEGER,
    )
    with pytest.raises(ImproperlyConfigured, match="changes between calls"):
        frozen.change(pk=account.pk)
    joined = PreparedChange(
        lambda name, delta: (
            LedgerAccount.objects.filter(entries__journal__kind=name),
            {"balance": F("balance") + delta},
        ),
        name=TEXT,
        delta=DECIMAL,
    )
    with pytest.raises(ImproperlyConfigured, match="own columns"):
        joined.change(name="x", delta=Decimal(1))
    assert LedgerAccount.objects.get(pk=account.pk).balance == Decimal("1.000")


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


def test_a_decimal_argument_is_finite():
    from core.prepared import DECIMAL, PreparedChange
    from issuer.ledger.models import LedgerAccount

    moving = PreparedChange(
        lambda pk, delta: (LedgerAccount.objects.filter(pk=pk), {"balance": F("balance") + delta}),
        pk=INTEGER,
        delta=DECIMAL,
    )
    [account] = _accounts("1.000")
    for bad in ("NaN", "Infinity"):
        with pytest.raises(TypeError, match="finite"):
            moving.change(pk=account.pk, delta=Decimal(bad))
    assert LedgerAccount.objects.get(pk=account.pk).balance == Decimal("1.000")


def test_an_empty_checked_journal_is_written_and_moves_no_balance():
    from django.db import transaction

    from issuer.ledger import services
    from issuer.ledger.models import Journal, LedgerAccount

    [account] = _accounts("2.000")
    account.held_total = Decimal(0)  # type: ignore[attr-defined]  # as account_lock_with_held
    with transaction.atomic():
        journal = services.post(kind="PURCHASE", lines=[], locked=[account])
    assert Journal.objects.filter(pk=journal.pk, entries__isnull=True).exists()
    assert LedgerAccount.objects.get(pk=account.pk).balance == Decimal("2.000")


def test_a_checked_journal_longer_than_the_prepared_counts_moves_every_balance():
    from django.db import transaction

    from core.prepared import MANY_ROWS
    from issuer.ledger import services
    from issuer.ledger.models import LedgerAccount

    accounts = _accounts(*["1.000"] * (MANY_ROWS + 2))
    deltas = [Decimal("0.1")] * (len(accounts) - 1)
    lines = [*zip(accounts, deltas, strict=False), (accounts[-1], -sum(deltas))]
    accounts[0].held_total = Decimal(0)  # type: ignore[attr-defined]
    with transaction.atomic():
        services.post(kind="TRANSFER", lines=lines, locked=[accounts[0]])
    balances = dict(LedgerAccount.objects.values_list("pk", "balance"))
    assert [balances[a.pk] for a in accounts] == [Decimal("1.100")] * (len(accounts) - 1) + [
        Decimal("1.000") - sum(deltas)
    ]
