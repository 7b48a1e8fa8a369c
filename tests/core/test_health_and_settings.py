"""The production shape: /healthz, the request id on every response, and the process files
(Procfile, docker-compose.yml, Dockerfile, gunicorn settings) naming commands that exist."""

import gc
import json
import logging
import re
import runpy
import shlex
import sys
from importlib import import_module
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db.utils import OperationalError
from django.test import Client

from core import probes
from core.context import get_ndc
from core.logging import NdcFilter

ROOT = Path(__file__).resolve().parents[2]
NDC = re.compile(r"^[0-9a-f]{32}-[0-9a-f]{8}$")
BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"


# --- /healthz ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_says_the_process_is_alive():
    response = Client().get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["ndc"] == response["X-Request-Id"]


def test_healthz_stays_200_when_the_database_is_down(monkeypatch):
    """Liveness asks nothing of the database (a node whose database is down is alive: /readyz
    takes it out of the load balancer; restarting it would not help). tests/core/test_probes.py
    has /readyz."""

    def dead(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(probes, "database_state", dead)

    response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"


# --- X-Request-Id / ndc -----------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_carries_a_request_id_that_is_the_ndc_of_its_log_lines():
    response = Client().get("/healthz")

    request_id = response["X-Request-Id"]
    assert NDC.match(request_id)
    # The ndc the logging filter stamps on this request's lines is the one in the header.
    assert get_ndc() == request_id
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "msg", None, None)
    NdcFilter().filter(record)
    assert record.ndc == request_id


@pytest.mark.django_db
def test_api_error_envelope_ndc_equals_the_request_id_header():
    response = Client().post(
        "/pay/v3/merchant/create", {"entityId": "BANK0001", "entityType": "PARTICIPATOR"}
    )

    assert response.status_code == 401
    body = response.json()
    assert body["result"]["code"] == "800.900.300"
    assert NDC.match(body["ndc"])
    assert response["X-Request-Id"] == body["ndc"]


@pytest.mark.django_db
def test_not_found_envelope_ndc_equals_the_request_id_header():
    response = Client().get("/no/such/path")

    assert response.status_code == 404
    assert response["X-Request-Id"] == response.json()["ndc"]


def test_each_request_gets_a_fresh_request_id(db):
    client = Client()
    ids = {client.get("/healthz")["X-Request-Id"] for _ in range(3)}
    assert len(ids) == 3


# --- Procfile and docker-compose.yml ----------------------------------------------------------


def procfile() -> dict[str, str]:
    entries: dict[str, str] = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, command = line.partition(":")
        assert sep and re.fullmatch(r"[a-z][a-z0-9_-]*", name), f"bad Procfile line: {line!r}"
        assert name not in entries, f"duplicate Procfile process {name!r}"
        entries[name] = command.strip()
    return entries


def test_procfile_names_web_worker_beat_and_release():
    entries = procfile()

    assert set(entries) >= {"web", "worker", "beat", "release"}
    assert entries["web"] == "gunicorn -c config/gunicorn.conf.py config.wsgi"
    assert entries["worker"].startswith("celery -A config worker")
    assert entries["beat"].startswith("celery -A config beat")
    assert f"--scheduler {BEAT_SCHEDULER}" in entries["beat"]
    assert entries["release"] == "python manage.py migrate --noinput"


def test_procfile_commands_point_at_things_that_exist():
    entries = procfile()

    web = shlex.split(entries["web"])
    assert (ROOT / web[web.index("-c") + 1]).is_file()
    module, _, attr = "config.wsgi:application".partition(":")
    assert web[-1] == module and hasattr(import_module(module), attr)
    assert (ROOT / "manage.py").is_file()
    scheduler_module, _, scheduler_class = BEAT_SCHEDULER.partition(":")
    assert hasattr(import_module(scheduler_module), scheduler_class)
    assert import_module("config.celery").app.main == "cardplatform"


def compose_services() -> dict[str, str]:
    """Top-level service names of docker-compose.yml and each one's block, without a YAML parser:
    service keys sit two spaces in under `services:`, until the next top-level key."""
    text = (ROOT / "docker-compose.yml").read_text()
    section = re.search(r"^services:[ \t]*\n(.*?)(?=^\S|\Z)", text, re.M | re.S)
    assert section, "docker-compose.yml has no top-level services:"
    parts = re.split(r"^  ([A-Za-z0-9._-]+):[ \t]*\n", section.group(1), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_compose_defines_the_platform_services():
    services = compose_services()

    assert set(services) >= {"web", "worker", "beat", "postgres", "redis"}
    assert "gunicorn" in services["web"] and "config/gunicorn.conf.py" in services["web"]
    assert re.search(r"celery.*-A.*config.*worker", services["worker"], re.S)
    assert re.search(r"celery.*-A.*config.*beat", services["beat"], re.S)
    assert BEAT_SCHEDULER in services["beat"]
    assert "image: postgres:16" in services["postgres"] and "pg_isready" in services["postgres"]
    assert "image: redis:7" in services["redis"] and "redis-cli" in services["redis"]


def test_compose_migrates_before_the_app_starts_and_requires_the_secrets():
    text = (ROOT / "docker-compose.yml").read_text()
    services = compose_services()

    assert "manage.py" in services["migrate"] and "migrate" in services["migrate"]
    for name in ("web", "worker", "beat"):
        assert re.search(
            r"migrate:\s*\n\s*condition: service_completed_successfully", services[name]
        ), name
    # Production settings, and no silent fallback to the demo secret or vault key.
    assert "DATABASE_URL: postgres://postgres:" in text
    assert "@postgres:5432/cardplatform" in text
    assert "REDIS_URL: redis://redis:6379/0" in text
    assert 'DJANGO_DEBUG: "false"' in text
    for name in ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "VAULT_KEYS", "VAULT_ACTIVE_KEY_ID"):
        assert re.search(rf"{name}: \$\{{{name}:\?", text), name


def test_dockerfile_runs_as_non_root_with_the_procfile_web_command():
    text = (ROOT / "Dockerfile").read_text()

    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert re.search(r"^USER (?!root)\w+", text, re.M)
    assert "pip install ." in text
    assert "DJANGO_DEBUG=false python manage.py collectstatic --noinput" in text
    assert re.search(r"^ARG BUILD_COMMIT", text, re.M) and re.search(r"^ARG BUILD_TIME", text, re.M)
    assert "/healthz" in re.search(r"^HEALTHCHECK .*?(?=^\S)", text, re.M | re.S).group(0)
    cmd = re.search(r"^CMD (\[.*\])$", text, re.M)
    assert cmd and " ".join(json.loads(cmd.group(1))) == procfile()["web"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".git", ".venv"} <= set(ignored)


def test_pyproject_brings_in_what_the_redis_broker_imports():
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.match(r"(celery|kombu)\[[^\]]*\bredis\b", dep) for dep in deps)


# --- gunicorn settings ------------------------------------------------------------------------


def test_gunicorn_conf_is_threaded_preloaded_and_freezes_the_heap_after_fork():
    conf = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))

    assert (conf["worker_class"], conf["threads"]) == ("gthread", 16)  # docs/decisions.md
    assert conf["preload_app"] is True
    interval = sys.getswitchinterval()
    try:
        conf["post_fork"](None, None)
        assert gc.get_freeze_count() > 0
        assert sys.getswitchinterval() == pytest.approx(0.020)  # GUNICORN_SWITCH_INTERVAL_MS
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)


def test_build_number_comes_from_settings(settings):
    from core import build

    settings.BUILD_COMMIT, settings.BUILD_TIME = "abc123", "2026-01-01 00:00:00 +0000"
    build.build_number.cache_clear()
    try:
        assert build.build_number() == "abc123@2026-01-01 00:00:00 +0000"
    finally:
        build.build_number.cache_clear()


def test_settings_default_to_the_embedded_demo_without_redis():
    if django_settings.REDIS_URL:
        pytest.skip("REDIS_URL is set (CI with Redis): Celery uses the broker")
    assert django_settings.CELERY_TASK_ALWAYS_EAGER is True
    assert django_settings.CELERY_BROKER_URL == "memory://"


def test_the_cache_is_on_a_redis_database_of_its_own():
    """A FLUSHDB of the cache (cache.clear()) must never drop the broker's queued tasks: the
    cache defaults to the broker's URL with the next database number (CI saw workers wait for
    ever on tasks a test's cache.clear() had flushed)."""
    from config.settings import _next_database

    assert _next_database("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/1"
    assert _next_database("redis://127.0.0.1:6379") == "redis://127.0.0.1:6379/1"
    assert _next_database("redis://:secret@redis.internal:6380/4") == (
        "redis://:secret@redis.internal:6380/5"
    )
