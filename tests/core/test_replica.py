"""Reads that may go to a replica (issue 36, part 2): only inside `replica_reads`, only for the
listed apps, never a locking read, never sessions, users or portal memberships; without
DATABASE_REPLICA_URL everything reads the primary. Here the replica is an alias of the test
database; the pages against a real streaming replica, while a lock on the primary holds their
reads there: tests/core/test_replica_streaming.py."""

import pytest
from django.contrib.auth.models import User

from core.replica import reads_from_replica, replica_reads
from merchants.models import PortalUser
from payments.models import Payment
from reconciliation.models import SettlementRun


@pytest.fixture
def with_replica(settings):
    settings.DATABASES = {**settings.DATABASES, "replica": dict(settings.DATABASES["default"])}


def test_without_a_replica_everything_reads_the_primary():
    with replica_reads():
        assert Payment.objects.all().db == "default"


def test_inside_the_block_the_listed_apps_read_the_replica(with_replica):
    assert Payment.objects.all().db == "default"  # outside: the primary
    with replica_reads():
        assert Payment.objects.all().db == "replica"
        assert SettlementRun.objects.all().db == "replica"
        # Never a sign-in's, a role's or a lock's: the primary, however fresh the replica.
        assert User.objects.all().db == "default"
        assert PortalUser.objects.all().db == "default"
        assert Payment.objects.select_for_update().db == "default"
    assert reads_from_replica(lambda: Payment.objects.all().db)() == "replica"


def test_writes_and_migrations_stay_on_the_primary(with_replica):
    from core.replica import ReplicaRouter

    router = ReplicaRouter()
    with replica_reads():
        assert router.db_for_write(Payment) is None
    assert router.allow_migrate("replica", "payments") is False
    assert router.allow_migrate("default", "payments") is True


def test_a_streamed_answer_reads_the_replica_as_it_streams(with_replica):
    """A CSV download's rows are read after the view has returned, as the server sends them:
    still from the replica (found by tests/core/test_replica_streaming.py, where they waited on
    the primary's lock)."""
    from django.http import StreamingHttpResponse

    def rows():
        yield Payment.objects.all().db

    response = reads_from_replica(lambda: StreamingHttpResponse(rows()))()
    assert Payment.objects.all().db == "default"  # the view has returned
    assert b"".join(response.streaming_content) == b"replica"
    assert Payment.objects.all().db == "default"  # and nothing stays routed after it
