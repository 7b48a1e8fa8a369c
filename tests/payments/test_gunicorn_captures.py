"""Parallel captures of one PA through gunicorn's sync workers: real processes, real HTTP.

tests/payments/test_concurrency.py races threads inside one process; here four gunicorn workers
(config/gunicorn.conf.py: preload, gc.freeze after fork) each hold their own PostgreSQL
connection, as in production. Sixteen CPs of 10.00 against a PA of 100.00 must capture exactly
100.00: ten succeed, six are refused with 700.400.100 (the PA row lock decides).

Skipped on SQLite (one writer at a time); needs DATABASE_URL pointing at PostgreSQL.
"""

import base64
import contextlib
import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from threading import Barrier
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings
from django.db import connection

from payments.models import Payment
from tests.conftest import SpecClient, code
from tests.factories import MerchantFactory
from tests.payments.conftest import card, mtid

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 4
CAPTURES = 16
HEALTH_TIMEOUT_S = 30.0
REQUEST_TIMEOUT_S = 20.0


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL); SQLite serialises writers")


@pytest.fixture(autouse=True)
def _keys_of_its_own(settings):
    """gunicorn runs with DJANGO_DEBUG=false, which refuses the public development keys
    (config/settings.py); this process and gunicorn share keys made for this test."""
    settings.SECRET_KEY = secrets.token_urlsafe(50)
    settings.VAULT_KEYS = f"test1:{base64.b64encode(os.urandom(32)).decode()}"
    settings.VAULT_ACTIVE_KEY_ID = "test1"
    settings.CARD_FINGERPRINT_KEY = secrets.token_urlsafe(32)


def keys_of_this_process() -> dict[str, str]:
    return {
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "VAULT_KEYS": settings.VAULT_KEYS,
        "VAULT_ACTIVE_KEY_ID": settings.VAULT_ACTIVE_KEY_ID,
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }


def url_of_test_database() -> str:
    """A DATABASE_URL for the test database this session created (settings name it by now)."""
    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "", safe="")
    password = quote(db.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = quote(db.get("HOST") or "127.0.0.1", safe="")  # a socket directory is %-encoded
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_status(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@contextlib.contextmanager
def gunicorn(log_path: Path) -> Iterator[int]:
    """gunicorn with the production conf on a free loopback port, against the test database;
    yields the port once /healthz answers 200, and always stops it."""
    port = free_port()
    env = {
        **os.environ,
        **keys_of_this_process(),  # the same secret, vault and fingerprint keys as this process
        "DATABASE_URL": url_of_test_database(),
        "WEB_CONCURRENCY": str(WORKERS),
        "DJANGO_DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
    }
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "config/gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
        "--access-logfile",
        "/dev/null",
        "config.wsgi",
    ]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        for _ in range(int(HEALTH_TIMEOUT_S / 0.1) + 1):
            assert proc.poll() is None, f"gunicorn exited early:\n{log_path.read_text()[-3000:]}"
            with contextlib.suppress(OSError):
                if get_status(port, "/healthz") == 200:
                    break
            assert time.monotonic() < deadline, (
                f"/healthz did not answer 200 within {HEALTH_TIMEOUT_S:.0f} s:\n"
                f"{log_path.read_text()[-3000:]}"
            )
            time.sleep(0.1)
        yield port
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session: gunicorn's processes only
                proc.wait(timeout=5)


def post_form(port: int, path: str, fields: dict[str, str], token: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    try:
        conn.request(
            "POST",
            path,
            body=urlencode(fields),
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_parallel_captures_through_gunicorn_never_exceed_the_preauthorization(tmp_path):
    merchant = MerchantFactory()
    entity = merchant.entity
    api = SpecClient(entity.plain_token, entity.entity_id, "MERCHANT")
    pa = api.post(
        "/pay/v3/payments",
        {
            "paymentType": "PA",
            "merchant.id": merchant.merchant_id,
            "merchantTransactionId": mtid(),
            "amount": "100.00",
            "currency": "EUR",
            **card(),
        },
        mtid=False,
    )
    assert code(pa) == "000.000.000", pa.content  # committed: transaction=True
    pa_id = pa.json()["id"]

    capture = {
        "entityId": entity.entity_id,
        "entityType": "MERCHANT",
        "merchant.id": merchant.merchant_id,
        "paymentType": "CP",
        "amount": "10.00",
        "currency": "EUR",
    }
    barrier = Barrier(CAPTURES)

    def fire(port: int) -> tuple[int, dict]:
        barrier.wait(timeout=REQUEST_TIMEOUT_S)  # all sixteen leave together
        return post_form(
            port,
            f"/pay/v3/payments/{pa_id}",
            {**capture, "merchantTransactionId": mtid()},
            entity.plain_token,
        )

    with gunicorn(tmp_path / "gunicorn.log") as port, ThreadPoolExecutor(CAPTURES) as pool:
        answers = list(pool.map(fire, [port] * CAPTURES, timeout=2 * REQUEST_TIMEOUT_S))

    assert [status for status, _ in answers] == [200] * CAPTURES, answers
    codes = Counter(body["result"]["code"] for _, body in answers)
    assert codes == {"000.000.000": 10, "700.400.100": 6}, answers
    original = Payment.objects.get(pk=pa_id)
    assert original.captured_amount == Decimal("100.00")
    captures = Payment.objects.filter(referenced=original, payment_type="CP", successful=True)
    assert captures.count() == 10
    assert {p.id for p in captures} == {
        body["id"] for _, body in answers if body["result"]["code"] == "000.000.000"
    }
