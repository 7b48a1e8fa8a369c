"""Shared fixtures: a participator and its API client, merchants, terminals.

`api` posts form-encoded bodies (as the spec's clients do) with the caller's bearer token and
entity fields filled in; pass `entity_id`/`entity_type`/`token` to act as someone else.
"""

import itertools
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.factories import MerchantFactory, ParticipatorFactory, TerminalFactory

_mtid = itertools.count(1)


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """Tests marked `long` first: pytest-xdist hands out tests in this order, so the longest
    start at once on a worker of their own instead of ending the run alone (docs/testing.md)."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):  # type: ignore[no-untyped-def]
    """Each test its own cache keys (a fresh KEY_PREFIX), so no test sees another's cached values
    (requestors' JWK sets, rate-limit counters). Nothing is cleared: on the PostgreSQL run the
    cache is a Redis database the suite's workers share, and a FLUSHDB there would drop what a
    test running beside this one has cached."""
    settings.CACHES = {
        name: {**conf, "KEY_PREFIX": uuid.uuid4().hex} for name, conf in settings.CACHES.items()
    }


@pytest.fixture(autouse=True)
def _issuer_accounts_forgotten():  # type: ignore[no-untyped-def]
    """The issuer's own ledger accounts a process keeps once read (issuer.cards.money.movement):
    each test's database is rolled back, so no test may see another's."""
    from django.apps import apps

    if apps.is_installed("issuer"):  # not in the acquirer-alone run (config.settings_acquirer)
        from issuer.cards.money.movement import issuer_accounts_forget

        issuer_accounts_forget()


def next_mtid() -> str:
    return f"mtid{next(_mtid):08d}"


class SpecClient:
    """Calls the API as one entity. `post(path, **fields)` with dotted names as keys via dict."""

    def __init__(self, token: str, entity_id: str, entity_type: str):
        self.client = APIClient()
        self.token, self.entity_id, self.entity_type = token, entity_id, entity_type

    def _fields(self, data: dict[str, Any], mtid: bool) -> dict[str, Any]:
        fields = {"entityId": self.entity_id, "entityType": self.entity_type}
        if mtid:
            fields["merchantTransactionId"] = next_mtid()
        fields.update(data)
        return {k: v for k, v in fields.items() if v is not None}

    def post(
        self,
        path: str,
        data: dict[str, Any] | None = None,
        *,
        mtid: bool = True,
        token: str | None = None,
        **kwargs: Any,
    ):  # type: ignore[no-untyped-def]
        return self.client.post(
            path,
            urlencode(self._fields(data or {}, mtid)),
            content_type="application/x-www-form-urlencoded",
            HTTP_AUTHORIZATION=f"Bearer {token or self.token}",
            **kwargs,
        )

    def get(self, path: str, data: dict[str, Any] | None = None, *, token: str | None = None):  # type: ignore[no-untyped-def]
        return self.client.get(
            path,
            self._fields(data or {}, False),
            HTTP_AUTHORIZATION=f"Bearer {token or self.token}",
        )

    def delete(self, path: str, data: dict[str, Any] | None = None, *, token: str | None = None):  # type: ignore[no-untyped-def]
        return self.client.delete(
            f"{path}?{urlencode(self._fields(data or {}, False))}",
            HTTP_AUTHORIZATION=f"Bearer {token or self.token}",
        )


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):  # type: ignore[no-untyped-def]
    """pytest-django's hook before the test database is set up (its xdist suffix kept): the test
    process's pool (config/settings.py, DB_POOL) lends a connection to each of the fifty
    threads a race test starts at once, and closes what they leave within seconds, so that
    three workers' pools never sit on PostgreSQL's 100 connections (docs/operations.md, "The
    database connections"). Servers a test starts keep the production sizes."""
    from django.conf import settings as django_settings

    options = django_settings.DATABASES["default"].get("OPTIONS", {})
    if options.get("pool"):
        options["pool"] = {**options["pool"], "max_size": 60, "max_idle": 2.0}


@pytest.fixture(scope="session", autouse=True)
def _quick_password_hashing():  # type: ignore[no-untyped-def]
    """Passwords hashed with 1,000 PBKDF2 iterations (tests/hashers.py), PINs likewise."""
    from django.test import override_settings

    with override_settings(
        PASSWORD_HASHERS=["tests.hashers.QuickPBKDF2PasswordHasher"],
        ISSUER_PIN_HASH_ITERATIONS=1_000,
    ):
        yield


# What migrations make and no test changes: kept by the flush after a transactional test, so the
# post_migrate signal that follows finds its content types and permissions instead of writing
# some 400 rows again.
_KEPT_BY_FLUSH = {"django_content_type", "auth_permission"}


@pytest.fixture(scope="session", autouse=True)
def _quick_flush():  # type: ignore[no-untyped-def]
    """The database is emptied after each transactional test (live servers, other processes,
    commit-time behaviour): content types and permissions stay, and on PostgreSQL the rest goes
    by DELETE in one transaction, its foreign keys deferred (Django makes them DEFERRABLE),
    instead of Django's TRUNCATE of every table, which costs 1 to 4 s a test where DELETE of a
    few rows costs 0.1 s (docs/testing.md). Sequences are not reset either way; a test that asks
    for that (reset_sequences) keeps Django's statements."""
    from django.db import connection

    operations = type(connection.ops)
    original = operations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):  # type: ignore[no-untyped-def]
        kept = [table for table in tables if table not in _KEPT_BY_FLUSH]
        if reset_sequences or not kept or connection.vendor != "postgresql":
            return original(
                self, style, kept, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        deletes = [f"DELETE FROM {style.SQL_FIELD(self.quote_name(table))};" for table in kept]
        return ["SET CONSTRAINTS ALL DEFERRED;", *deletes]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(operations, "sql_flush", sql_flush)
        yield


@pytest.fixture(autouse=True)
def _demo_files_in_tmp(settings, tmp_path):  # type: ignore[no-untyped-def]
    """seed_demo and issuer_demo keep the demo's credentials and requestor keys in var/; a test
    gets files of its own, never the checkout's (those belong to `make run`)."""
    settings.DEMO_CREDENTIALS_FILE = tmp_path / "var" / "demo-credentials.json"
    settings.DEMO_REQUESTOR_KEY_FILE = tmp_path / "var" / "demo-requestor" / "oob-client.json"
    # and reconciliation files of its own, fetched on the test's connection (other threads'
    # connections do not see the test's uncommitted rows; test_recon_file.py tries them)
    settings.RECON_FILE_WORKERS = 1
    settings.STORAGES = {
        **settings.STORAGES,
        "recon": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "var" / "recon")},
        },
    }


@pytest.fixture
def participator(db):  # type: ignore[no-untyped-def]
    return ParticipatorFactory()


@pytest.fixture
def other_participator(db):  # type: ignore[no-untyped-def]
    return ParticipatorFactory()


@pytest.fixture
def api(participator) -> SpecClient:  # type: ignore[no-untyped-def]
    return SpecClient(participator.plain_token, participator.entity_id, "PARTICIPATOR")


@pytest.fixture
def other_api(other_participator) -> SpecClient:  # type: ignore[no-untyped-def]
    return SpecClient(other_participator.plain_token, other_participator.entity_id, "PARTICIPATOR")


@pytest.fixture
def merchant(participator):  # type: ignore[no-untyped-def]
    return MerchantFactory(participator=participator)


@pytest.fixture
def merchant_api(merchant) -> SpecClient:  # type: ignore[no-untyped-def]
    return SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT")


@pytest.fixture
def terminal(merchant):  # type: ignore[no-untyped-def]
    return TerminalFactory(merchant=merchant)


@pytest.fixture
def server_keys(settings) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Keys for a server a test starts with DJANGO_DEBUG=false (which refuses the public
    development keys, config/settings.py): made for this test, shared by this process and the
    server, so both read what the other encrypted. Returns them as the server's environment."""
    import base64
    import os
    import secrets

    settings.SECRET_KEY = secrets.token_urlsafe(50)
    settings.VAULT_KEYS = f"test1:{base64.b64encode(os.urandom(32)).decode()}"
    settings.VAULT_ACTIVE_KEY_ID = "test1"
    settings.CARD_FINGERPRINT_KEY = secrets.token_urlsafe(32)
    settings.ISSUER_CARD_VERIFICATION_KEY = base64.b64encode(os.urandom(32)).decode()
    return {
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "VAULT_KEYS": settings.VAULT_KEYS,
        "VAULT_ACTIVE_KEY_ID": settings.VAULT_ACTIVE_KEY_ID,
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        "ISSUER_CARD_VERIFICATION_KEY": settings.ISSUER_CARD_VERIFICATION_KEY,
    }


def url_of_test_database() -> str:
    """A DATABASE_URL for the test database this session created (settings name it by now), for
    servers the tests start in other processes."""
    from urllib.parse import quote

    from django.conf import settings

    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "", safe="")
    password = quote(db.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = quote(db.get("HOST") or "127.0.0.1", safe="")  # a socket directory is %-encoded
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


def code(response) -> str:  # type: ignore[no-untyped-def]
    return response.json()["result"]["code"]


def param_errors(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {e["name"]: e["message"] for e in response.json()["result"].get("parameterErrors", [])}
