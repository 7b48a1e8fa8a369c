"""gunicorn as in production (config/gunicorn.conf.py, DEBUG off, two workers) with
PROMETHEUS_MULTIPROC_DIR: a scrape adds up every worker's counters, whichever worker answers it;
and with LOG_FORMAT's production default every line the server writes is one JSON object."""

import http.client
import json

import pytest
from django.db import connection
from prometheus_client.parser import text_string_to_metric_families

from bench._server import get_status, gunicorn
from tests.conftest import url_of_test_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
TOKEN = "scrape-token-for-the-gunicorn-test"
REQUESTS = 20


def operations_requests(port: int) -> float:
    """The count of 2xx answers of the `operations` group, as one scrape says."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        response = conn.getresponse()
        text = response.read().decode()
        assert response.status == 200, text
    finally:
        conn.close()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if (
                sample.name == "cardplatform_http_request_duration_seconds_count"
                and labels.get("group") == "operations"
                and labels.get("status") == "2xx"
            ):
                return sample.value
    return 0.0


def test_a_scrape_adds_up_every_worker_and_the_lines_are_json(tmp_path, server_keys):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): the server reads the test database")
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_999999.db").write_bytes(b"")  # an earlier run's: emptied at start
    log = tmp_path / "gunicorn.log"
    env = {
        **server_keys,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "METRICS_BEARER_TOKEN": TOKEN,
        "LOG_LEVEL": "INFO",
    }
    with gunicorn(
        database_url=url_of_test_database(), workers=2, log_path=log, env=env, access_log=True
    ) as server:
        assert not (metrics_dir / "counter_999999.db").exists()
        before = operations_requests(server.port)
        for _ in range(REQUESTS):  # a connection each: either worker may answer
            assert get_status(server.port, "/readyz") == 200
        after = operations_requests(server.port)
        assert len(server.workers) == 2
    assert after - before == REQUESTS + 1  # and the first scrape itself

    lines = [line for line in log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line one JSON object
    access = [r for r in records if r["logger"] == "gunicorn.access"]
    assert len(access) >= REQUESTS + 2
    assert {"request", "status", "durationMs", "ndc"} <= set(access[-1])
