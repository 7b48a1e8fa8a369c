"""/readyz: ready while the database answers, every migration is applied and (when required)
the broker answers; 503 naming the part that is not. The database that does not answer is a
connection of the test's own to a port where nothing listens: the suite's database is untouched."""

import pytest
from django.db import connections
from django.db.migrations.recorder import MigrationRecorder
from django.db.utils import load_backend
from django.test import Client

from core import probes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _check_migrations_again(monkeypatch):
    """Each test asks about the migrations afresh (a process remembers once they are applied)."""
    monkeypatch.setattr(probes, "_migrated", set())


@pytest.fixture
def unreachable_database(monkeypatch):
    """/readyz checks a connection alias of its own: a PostgreSQL on port 1 of the loopback
    (nothing listens there), so connecting fails as a database that is down does."""
    settings = {
        **connections["default"].settings_dict,
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "cardplatform",
        "USER": "nobody",
        "PASSWORD": "",
        "HOST": "127.0.0.1",
        "PORT": "1",
        "OPTIONS": {"connect_timeout": 2},
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
    }
    wrapper = load_backend(settings["ENGINE"]).DatabaseWrapper(settings, "unreachable")
    connections["unreachable"] = wrapper
    monkeypatch.setattr(probes, "DATABASE", "unreachable")
    yield
    wrapper.close()
    del connections["unreachable"]


def test_readyz_is_200_with_every_part_reported():
    response = Client().get("/readyz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "up"
    assert body["migrations"] == {"status": "applied"}
    assert body["broker"]["status"] in {"eager", "up"}  # no REDIS_URL / REDIS_URL (CI)
    assert body["ndc"] == response["X-Request-Id"]


def test_readyz_is_503_when_the_database_does_not_answer(unreachable_database):
    response = Client().get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"] == {
        "status": "down",
        "engine": "postgresql",
        "error": "OperationalError",
    }
    assert body["migrations"]["status"] == "unknown"
    # ... while the process is alive: the liveness probe keeps it running.
    assert Client().get("/healthz").status_code == 200


def test_readyz_is_503_while_a_migration_is_not_applied(monkeypatch):
    """The release's `migrate` has not run yet: the database lacks the newest migration of
    core (the recorder's rows say so), and the node is not ready until it has it."""
    applied = MigrationRecorder(connections["default"]).applied_migrations()
    newest = max(key for key in applied if key[0] == "core")
    monkeypatch.setattr(
        MigrationRecorder,
        "applied_migrations",
        lambda self: {key: value for key, value in applied.items() if key != newest},
    )

    response = Client().get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["migrations"] == {"status": "pending", "pending": 1}
    assert body["database"]["status"] == "up"


def test_readyz_once_applied_asks_no_more(monkeypatch):
    assert Client().get("/readyz").json()["migrations"] == {"status": "applied"}

    def fail(*args, **kwargs):
        raise AssertionError("the migrations were asked again")

    monkeypatch.setattr(probes, "MigrationExecutor", fail)
    assert Client().get("/readyz").json()["migrations"] == {"status": "applied"}


def test_a_broker_that_is_down_degrades_the_node_without_taking_it_out(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    response = Client().get("/readyz")

    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["broker"]["status"] == "down"


def test_readyz_requires_the_broker_when_told_to(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    settings.READYZ_REQUIRES_BROKER = True

    response = Client().get("/readyz")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"


@pytest.mark.parametrize("path", ["/readyz", "/metrics"])
def test_probes_answer_get_and_head_only(path):
    client = Client()
    for method in ("post", "put", "delete", "patch"):
        response = getattr(client, method)(path)
        assert response.status_code == 405, (path, method)
        assert response["Allow"] == "GET, HEAD"
