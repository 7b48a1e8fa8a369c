"""core/rows.py: the hot writes as plain SQL write what Django's save() and update() would, and
a statement that disagrees with its model's columns fails at import (issue 33). The assertions
of the earlier compiled inserts and updates (tests/core/test_prepared.py until issue 33) are kept
where they still apply."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.rows import Insert, Update
from issuer.cards.lock_objects import TRANSACTION_RECORD
from issuer.ledger.lock_objects import ENTRIES, JOURNAL
from issuer.models import Journal, UsedAssertion
from issuer.protocol.assertions import _USED
from payments.models import Payment
from payments.services.engine import FINISH_FIELDS
from payments.services.lock_objects import ANSWERED, ANSWERED_IF_IN_FLIGHT, CLAIM

pytestmark = pytest.mark.django_db

USED = 'INSERT INTO "issuer_usedassertion" ("client_id", "jti", "expires_at") VALUES (%s, %s, %s)'
GROUP = 'INSERT INTO "auth_group" ("name") VALUES (%s) RETURNING "id"'


def _later():  # type: ignore[no-untyped-def]
    return timezone.now() + timedelta(minutes=5)


# --- the statements and their models ------------------------------------------------------------


def test_every_hot_statement_names_its_models_columns():
    """Built at import: the platform's statements match their models today."""
    from issuer.protocol.oauth import ISSUED

    for insert in (CLAIM, JOURNAL, ENTRIES, TRANSACTION_RECORD, _USED, ISSUED):
        meta = insert.model._meta
        written = {f for f in meta.concrete_fields if f is not meta.auto_field}
        assert set(insert.fields) == written, meta.label
    # The answer's UPDATE writes what the engine says a finish changes, nothing else.
    for update in (ANSWERED, ANSWERED_IF_IN_FLIGHT):
        assert {f.name for f in update.fields} == set(FINISH_FIELDS)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_psycopg_converts_each_statement_once(monkeypatch):
    """psycopg parses a statement with more than 50 parameters on every execution unless its
    limits admit it (core.rows._kept_in_psycopgs_query_cache): the claim, with 62, is parsed
    once and then found in psycopg's cache. Breaks when psycopg renames its cache or limits."""
    from psycopg import _queries
    from psycopg.adapt import Transformer

    assert CLAIM.sql.count("%s") > 50  # what the limits had to be raised for
    assert CLAIM.sql.count("%s") <= _queries.MAX_CACHED_STATEMENT_PARAMS
    parsed = []
    original = _queries._query2pg_nocache
    monkeypatch.setattr(
        _queries, "_query2pg_nocache", lambda *args: parsed.append(1) or original(*args)
    )
    params = ["x"] * CLAIM.sql.count("%s")
    for _ in range(3):
        connection.ensure_connection()
        query = _queries.PostgresQuery(Transformer(connection.connection))
        query.convert(CLAIM.sql, params)
    assert parsed == []  # every conversion came from the cache (lru_cache of the original)
    assert _queries._query2pg.cache_info().hits >= 2


def test_a_statement_that_leaves_out_or_invents_a_column_is_refused():
    """What a migration that adds a column, or a rename, would do to a statement."""
    with pytest.raises(ImproperlyConfigured, match=r"leaves out \['description'\]"):
        Insert(
            Journal,
            'INSERT INTO "issuer_journal" ("kind", "created_at") VALUES (%s, %s) RETURNING "id"',
        )
    with pytest.raises(ImproperlyConfigured, match="no columns"):
        Insert(Group, 'INSERT INTO "auth_group" ("title") VALUES (%s) RETURNING "id"')
    with pytest.raises(ImproperlyConfigured, match="RETURNING"):
        Insert(UsedAssertion, USED)  # its auto primary key is not read back
    with pytest.raises(ImproperlyConfigured, match="not an INSERT into auth_group"):
        Insert(Group, USED)
    with pytest.raises(ImproperlyConfigured, match="one %s a column"):
        Insert(Group, 'INSERT INTO "auth_group" ("name") VALUES (DEFAULT) RETURNING "id"')
    with pytest.raises(ImproperlyConfigured, match="no columns"):
        Update(Group, 'UPDATE "auth_group" SET "title" = %s WHERE "id" = %s')
    with pytest.raises(ImproperlyConfigured, match="cannot be written"):
        Update(Group, 'UPDATE "auth_group" SET "id" = %s WHERE "id" = %s')


# --- inserts ------------------------------------------------------------------------------------


def test_the_access_tokens_row_is_the_one_django_oauth_toolkits_save_writes():
    """Each field's pre_save runs (DOT's token checksum, auto_now_add, a JSON default), the auto
    primary key comes back, and the instance is saved as far as Django knows (issuer/protocol/
    oauth.py writes the token path's row so, compiling nothing)."""
    from oauth2_provider.models import AccessToken, Application

    from issuer.protocol.oauth import ISSUED

    application = Application.objects.create(
        client_id="prepared",
        client_type="confidential",
        authorization_grant_type="client-credentials",
    )
    expires = timezone.now() + timedelta(minutes=5)
    made = ISSUED.insert(
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
    assert AccessToken.objects.get(token_checksum=ours.token_checksum).pk == made.pk


def test_an_insert_writes_the_row_save_would_in_one_statement():
    """Each field's pre_save runs (auto_now_add), the auto primary key comes back, and the
    instance is saved as far as Django knows."""
    with CaptureQueriesContext(connection) as queries:
        made = JOURNAL.insert(Journal(kind="PURCHASE", description="ours"))
    assert len(queries.captured_queries) == 1
    assert made.pk is not None and not made._state.adding and made._state.db == "default"
    theirs = Journal.objects.create(kind="PURCHASE", description="theirs")
    ours = Journal.objects.get(pk=made.pk)
    assert (ours.kind, ours.description) == ("PURCHASE", "ours")
    assert ours.created_at is not None and abs(ours.created_at - theirs.created_at) < timedelta(
        seconds=5
    )


def test_an_insert_refuses_a_duplicate_and_spoils_the_transaction():
    from django.db import IntegrityError, transaction

    _USED.insert(UsedAssertion(client_id="c", jti="j", expires_at=_later()))
    with pytest.raises(IntegrityError), transaction.atomic():
        try:
            _USED.insert(UsedAssertion(client_id="c", jti="j", expires_at=_later()))
        finally:
            assert transaction.get_connection().needs_rollback
    assert UsedAssertion.objects.filter(client_id="c").count() == 1


def test_an_insert_takes_new_plain_instances_of_its_model_only():
    from django.db.models.signals import post_save

    row = _USED.insert(UsedAssertion(client_id="c", jti="k", expires_at=_later()))
    with pytest.raises(TypeError, match="new UsedAssertion"):
        _USED.insert(row)
    with pytest.raises(TypeError, match="new UsedAssertion"):
        _USED.insert(User(username="x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not expressions"):
        _USED.insert(UsedAssertion(client_id="c", jti=F("client_id"), expires_at=_later()))

    def receiver(**kwargs):  # type: ignore[no-untyped-def]
        pass

    post_save.connect(receiver, sender=Group, weak=False)
    try:
        with pytest.raises(ImproperlyConfigured, match="save receivers"):
            Insert(Group, GROUP).insert(Group(name="g"))
    finally:
        post_save.disconnect(receiver, sender=Group)
    assert not Group.objects.filter(name="g").exists()


def _assertions(*jtis: str):  # type: ignore[no-untyped-def]
    return [UsedAssertion(client_id="many", jti=jti, expires_at=_later()) for jti in jtis]


def test_insert_many_writes_the_rows_bulk_create_would_in_one_statement():
    with CaptureQueriesContext(connection) as queries:
        made = _USED.insert_many(_assertions("a", "b", "c"))
    assert len(queries.captured_queries) == 1
    theirs = UsedAssertion.objects.bulk_create(_assertions("d", "e", "f"))
    rows = {row.jti: row for row in UsedAssertion.objects.filter(client_id="many")}
    assert [m.pk for m in made] == [rows[j].pk for j in "abc"]
    assert all(not m._state.adding and m._state.db == "default" for m in made)
    assert [(r.client_id, r.expires_at) for r in made] == [
        (rows[j].client_id, rows[j].expires_at) for j in "abc"
    ]
    assert all(rows[t.jti].pk == t.pk for t in theirs)
    assert _USED.insert_many([]) == []
    with pytest.raises(TypeError, match="new UsedAssertion"):
        _USED.insert_many([*_assertions("y"), made[0]])
    assert not UsedAssertion.objects.filter(jti="y").exists()


# --- updates ------------------------------------------------------------------------------------

SETTING = Update(
    User,
    'UPDATE "auth_user" SET "first_name" = %s, "last_login" = %s, "is_staff" = %s '
    'WHERE "username" = %s AND "email" = %s AND "is_active" = %s',
)


def test_an_update_writes_what_queryset_update_would_and_counts_the_rows():
    ours = User.objects.create(username="ours", last_login=timezone.now())
    theirs = User.objects.create(username="theirs", last_login=timezone.now())
    for user in (ours, theirs):
        user.first_name, user.last_login, user.is_staff = "Ada", None, True
    assert SETTING.update(ours, "ours", "", True) == 1
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
    with CaptureQueriesContext(connection) as queries:
        assert SETTING.update(ours, "ours", "", True) == 1
        assert SETTING.update(ours, "nobody", "", True) == 0
    assert len(queries.captured_queries) == 2
    ours.refresh_from_db()
    assert (ours.first_name, ours.last_login) == ("Grace", when)


def test_an_update_refuses_what_it_cannot_write_as_the_orm_would():
    from django.db.models.signals import pre_save

    user = User.objects.create(username="x")
    user.first_name = F("last_name")  # type: ignore[assignment]
    with pytest.raises(TypeError, match="not expressions"):
        SETTING.update(user, "x", "", True)
    with pytest.raises(TypeError, match="update takes a User"):
        SETTING.update(Group(name="g"), "x", "", True)  # type: ignore[arg-type]

    def receiver(**kwargs):  # type: ignore[no-untyped-def]
        pass

    renaming = Update(Group, 'UPDATE "auth_group" SET "name" = %s WHERE "id" = %s')
    group = Group.objects.create(name="before")
    pre_save.connect(receiver, sender=Group, weak=False)
    try:
        with pytest.raises(ImproperlyConfigured, match="save receivers"):
            renaming.update(group, group.pk)
    finally:
        pre_save.disconnect(receiver, sender=Group)
    assert Group.objects.get(pk=group.pk).name == "before"


def test_the_payments_answer_is_written_only_while_in_flight_when_asked(merchant_api, merchant):
    """The two UPDATEs of engine.finish on a real payment row: the conditional one writes
    nothing once another answer was recorded."""
    from tests.payments.conftest import Payer

    answer = Payer(merchant_api, merchant).pay("DB", "12.00").json()
    payment = Payment.objects.get(pk=answer["id"])
    payment.result_description = "changed"
    assert ANSWERED_IF_IN_FLIGHT.update(payment, payment.pk, "IN_FLIGHT") == 0
    assert ANSWERED.update(payment, payment.pk) == 1
    assert Payment.objects.get(pk=payment.pk).result_description == "changed"
    assert Payment.objects.get(pk=payment.pk).amount == Decimal("12.00")
