"""/metrics (core.metrics, docs/operations.md "Metrics"): never public by default, open to the
allowed addresses and the bearer token; and each family of metrics scraped after doing what it
counts: payments by type, family and connector; request latency by endpoint group; payments in
flight and the janitor; the outbox by status and its delivery attempts; Celery task runs and
failures; each entity's last daily file; the issuer's purchases, declines and ledger holds.

Counters are per process and the suite runs many tests in one: each test compares the figures
before and after."""

import datetime
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from core import metrics, outbox
from core.models import OutboxMessage
from issuer import demo
from issuer.operations import perform
from issuer.operations.registry import lookup
from merchants.services import notification_test
from payments.connectors import simulator
from payments.services import payment_resolve_in_flight
from reconciliation.models import ReconFile
from tests.closedloop.test_onus import pay as pay_on_us
from tests.conftest import code
from tests.core.workers import Receiver
from tests.payments.conftest import NO_FUNDS, VISA, Payer

pytestmark = pytest.mark.django_db
TOKEN = "scrape-token-for-the-tests"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scrape(settings):
    """The metrics as a scraper sees them: {(name, ((label, value), ...)): value}."""
    settings.METRICS_BEARER_TOKEN = TOKEN

    def read() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200, response.content
        assert response["Content-Type"].startswith("text/plain")
        found = {}
        for family in text_string_to_metric_families(response.content.decode()):
            for sample in family.samples:
                found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        return found

    return read


@pytest.fixture
def payer(merchant_api, merchant) -> Payer:
    return Payer(merchant_api, merchant)


def value(figures: dict, name: str, **labels: str) -> float:
    return figures.get((name, tuple(sorted(labels.items()))), 0.0)


class Change:
    """The figures before and after: `change(name, **labels)` is the difference."""

    def __init__(self, scrape) -> None:  # type: ignore[no-untyped-def]
        self.scrape = scrape
        self.before = scrape()
        self.after: dict = {}

    def __enter__(self) -> "Change":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.after = self.scrape()

    def __call__(self, name: str, **labels: str) -> float:
        return value(self.after, name, **labels) - value(self.before, name, **labels)


# --- Who may scrape -------------------------------------------------------------------------------


def test_nobody_may_scrape_by_default():
    response = Client().get("/metrics")

    assert response.status_code == 403
    assert response.json()["result"]["code"] == "800.900.301"
    assert b"cardplatform_" not in response.content


def test_an_allowed_address_may_scrape_and_another_may_not(settings):
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.5.0/24", "127.0.0.1/32"]
    assert Client().get("/metrics").status_code == 200  # the test client's 127.0.0.1
    assert Client(REMOTE_ADDR="10.0.5.77").get("/metrics").status_code == 200

    refused = Client(REMOTE_ADDR="192.0.2.10").get("/metrics")
    assert refused.status_code == 403
    assert refused.json()["result"]["code"] == "800.900.301"


def test_the_bearer_token_is_required_when_set(settings):
    settings.METRICS_BEARER_TOKEN = TOKEN

    missing = Client().get("/metrics")
    assert missing.status_code == 401
    assert missing.json()["result"]["code"] == "800.900.300"
    assert missing["WWW-Authenticate"] == 'Bearer realm="metrics"'
    wrong = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")
    assert wrong.status_code == 401
    right = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert right.status_code == 200
    assert b"# TYPE cardplatform_payments_total counter" in right.content


def test_with_both_settings_both_must_pass(settings):
    settings.METRICS_BEARER_TOKEN = TOKEN
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.5.0/24"]
    bearer = f"Bearer {TOKEN}"

    assert Client(REMOTE_ADDR="10.0.5.1").get("/metrics").status_code == 401
    assert Client().get("/metrics", HTTP_AUTHORIZATION=bearer).status_code == 403
    allowed = Client(REMOTE_ADDR="10.0.5.1").get("/metrics", HTTP_AUTHORIZATION=bearer)
    assert allowed.status_code == 200


# --- Payments -------------------------------------------------------------------------------------


def test_payments_by_type_family_and_connector(scrape, payer, django_capture_on_commit_callbacks):
    demo_cards = demo.demo_cards("oob-client")
    with Change(scrape) as change, django_capture_on_commit_callbacks(execute=True):
        assert code(payer.pay("DB", number=VISA)) == "000.000.000"
        pa = payer.pay("PA", "5.00", number=VISA).json()["id"]
        assert metrics.payment_family(code(payer.pay("DB", number=NO_FUNDS))) == "decline"
        assert code(payer.ref("CP", pa, "50.00")).startswith("700.400.")  # more than authorized
        assert code(pay_on_us(payer, demo_cards.prepaid)) == "000.000.000"
        declined = pay_on_us(payer, demo_cards.prepaid, amount="9999.00")
        assert metrics.payment_family(code(declined)) == "decline"

    name = "cardplatform_payments_total"
    assert change(name, type="DB", family="success", connector="simulator") == 1
    assert change(name, type="PA", family="success", connector="simulator") == 1
    assert change(name, type="DB", family="decline", connector="simulator") == 1
    assert change(name, type="CP", family="validation", connector="none") == 1
    assert change(name, type="DB", family="success", connector="on-us") == 1
    assert change(name, type="DB", family="decline", connector="on-us") == 1


@pytest.mark.django_db(transaction=True)
def test_a_payment_is_counted_when_its_answer_commits(payer, scrape, monkeypatch):
    """Real commits (a transactional test): an answer is counted once its finalize commits, and
    a finalize that fails after recording the answer leaves nothing counted."""
    from payments.services import engine

    labels = {"type": "DB", "family": "success", "connector": "simulator"}
    with Change(scrape) as change:
        assert code(payer.pay("DB", number=VISA)) == "000.000.000"
    assert change("cardplatform_payments_total", **labels) == 1

    original = engine.finish

    def finish_then_fail(payment, answer, **kwargs):  # type: ignore[no-untyped-def]
        original(payment, answer, **kwargs)
        raise RuntimeError("the finalize fails after the answer was recorded")

    monkeypatch.setattr(engine, "finish", finish_then_fail)
    with Change(scrape) as change:
        assert code(payer.pay("DB", number=VISA)) == "999.999.999"  # answered 500
    assert change("cardplatform_payments_total", **labels) == 0


def test_every_result_code_has_a_payment_family():
    from core.results import catalogue

    families = {metrics.payment_family(code) for code in catalogue()}
    assert families <= set(metrics.PAYMENT_FAMILIES)
    assert metrics.payment_family("000.000.000") == "success"
    assert metrics.payment_family("000.200.100") == "pending"
    assert metrics.payment_family("800.100.155") == "decline"
    assert metrics.payment_family("200.300.404") == "validation"
    assert metrics.payment_family("900.100.300") == "error"


# --- Requests -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("/pay/v3/payments", "payments"),
        ("/pay/v3/payments/0123456789abcdef0123456789abcdef", "payments"),
        ("/pay/v21/payments", "payments"),
        ("/pay/v3/registrations/x/payments", "payments"),
        ("/pay/v3/checkouts", "payments"),
        ("/pay/v3/merchant/create", "management"),
        ("/pay/v3/terminal/Inquiry", "management"),
        ("/pay/v3/tokenize", "tokenize"),
        ("/pay/v3/asset/abc", "tokenize"),
        ("/merch-web/download/getReport", "recon"),
        ("/v3/exchangerate/create", "recon"),
        ("/issuer/v1/transaction/Purchase", "issuer_api"),
        ("/oauth2/token", "oauth2"),
        ("/.well-known/jwks.json", "oauth2"),
        ("/portal/transactions/", "portal"),
        ("/threeds/abc/start", "payment_pages"),
        ("/admin/", "admin"),
        ("/healthz", "operations"),
        ("/", "other"),
    ],
)
def test_endpoint_groups(path, group):
    assert metrics.endpoint_group(path) == group


def test_request_latency_by_endpoint_group(scrape, api, merchant):
    with Change(scrape) as change:
        api.post("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id}, mtid=False)
        Client().post("/oauth2/token", {"grant_type": "client_credentials"})
        Client().get("/portal/")

    name = "cardplatform_http_request_duration_seconds_count"
    assert change(name, group="management", status="2xx") == 1
    assert change(name, group="oauth2", status="4xx") == 1
    assert change(name, group="portal", status="3xx") == 1
    assert (
        change(
            "cardplatform_http_request_duration_seconds_bucket",
            group="management",
            status="2xx",
            le="+Inf",
        )
        == 1
    )


# --- In flight and the janitor --------------------------------------------------------------------


def test_payments_in_flight_and_the_janitors_resolutions(scrape, payer):
    before = scrape()
    assert value(before, "cardplatform_payments_in_flight") == 0
    lost = payer.pay("DB", number=simulator.LOST_CARD)
    silent = payer.pay("PA", number=simulator.SILENT_CARD)
    assert code(lost) == code(silent) == "000.200.100"

    during = scrape()
    assert value(during, "cardplatform_payments_in_flight") == 2
    assert value(during, "cardplatform_payments_in_flight_oldest_seconds") >= 0

    with Change(scrape) as change:
        outcome = payment_resolve_in_flight(older_than=datetime.timedelta(0))
    assert (outcome.resolved, outcome.reversed) == (1, 1)
    assert change("cardplatform_janitor_resolutions_total", outcome="resolved") == 1
    assert change("cardplatform_janitor_resolutions_total", outcome="reversed") == 1
    assert value(change.after, "cardplatform_payments_in_flight") == 0


# --- The outbox -----------------------------------------------------------------------------------


def test_outbox_depth_by_status_and_delivery_attempts(
    scrape, merchant, settings, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(outbox, "_dispatcher", lambda *args, **kwargs: None)  # delivered below
    settings.NOTIFICATION_RETRY_SCHEDULE = [60]
    receiver = Receiver(statuses=[500, 200, 500])  # in the order of the attempts below
    merchant.notification_url = receiver.url
    merchant.save()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            refused = notification_test(merchant=merchant)
            delivered = notification_test(merchant=merchant)
        pending = scrape()
        assert value(pending, "cardplatform_outbox_messages", status="PENDING") == 2
        assert value(pending, "cardplatform_outbox_oldest_pending_seconds") >= 0

        start = timezone.now()
        with Change(scrape) as change:
            assert outbox.deliver(refused, now=start) == "retry"
            assert outbox.deliver(delivered, now=start) == "delivered"
            later = start + datetime.timedelta(seconds=60)
            assert outbox.deliver(refused, now=later) == "failed"
    finally:
        receiver.close()

    name = "cardplatform_notification_deliveries_total"
    assert change(name, outcome="retry") == 1
    assert change(name, outcome="delivered") == 1
    assert change(name, outcome="failed") == 1
    assert value(change.after, "cardplatform_outbox_messages", status="PENDING") == 0
    assert value(change.after, "cardplatform_outbox_messages", status="DELIVERED") == 1
    assert value(change.after, "cardplatform_outbox_messages", status="FAILED") == 1
    assert OutboxMessage.objects.count() == 2


# --- Celery tasks and the daily files -----------------------------------------------------------


def test_celery_task_runs_and_failures(scrape, monkeypatch):
    from core.tasks import sweep_notifications

    with Change(scrape) as change:
        sweep_notifications.apply()  # run here, as a worker runs it: signals and all

        def broken(**kwargs):  # type: ignore[no-untyped-def]
            raise RuntimeError("the sweep fails")

        monkeypatch.setattr(outbox, "sweep", broken)
        # As a worker runs it: the exception is the task's failure, not the caller's.
        assert sweep_notifications.apply(throw=False).failed()

    task = "core.sweep_notifications"
    assert change("cardplatform_celery_task_runs_total", task=task) == 2
    assert change("cardplatform_celery_task_failures_total", task=task) == 1


def test_the_last_daily_file_per_entity(scrape, participator, other_participator):
    for entity, day, production in [
        (participator, datetime.date(2026, 3, 1), True),
        (participator, datetime.date(2026, 3, 2), True),
        (participator, datetime.date(2026, 3, 2), False),
        (other_participator, datetime.date(2026, 2, 27), True),
    ]:
        ReconFile.objects.create(
            entity=entity, day=day, production=production, name="f", path="p", records=0,
            size=0, sha256="0" * 64,
        )  # fmt: skip

    figures = scrape()
    name = "cardplatform_recon_file_last_day_timestamp_seconds"
    march_2 = datetime.datetime(2026, 3, 2, tzinfo=datetime.UTC).timestamp()
    assert value(figures, name, entity=participator.entity_id, kind="production") == march_2
    assert value(figures, name, entity=participator.entity_id, kind="test") == march_2
    february_27 = datetime.datetime(2026, 2, 27, tzinfo=datetime.UTC).timestamp()
    assert value(figures, name, entity=other_participator.entity_id, kind="production") == (
        february_27
    )


# --- The issuer -----------------------------------------------------------------------------------


def issuer_call(name: str, **payload: Any) -> dict[str, Any]:
    operation = lookup("transaction", name)
    assert operation is not None
    return perform(operation, client_id="oob-client", payload=payload)


def test_issuer_purchases_declines_and_holds(scrape, settings):
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000
    demo.demo_cards("oob-client")
    card = {"cardReference": demo.PREPAID_CARD, "currency": "EUR"}

    with Change(scrape) as change:
        approved = issuer_call(
            "Purchase", **card, requestorReference="p-1", amount="12.50", channel="ECOMMERCE"
        )
        declined = issuer_call(
            "Purchase", **card, requestorReference="p-2", amount="9999.00", channel="ECOMMERCE"
        )
        refused = issuer_call("Purchase", **card, requestorReference="p-3", channel="ECOMMERCE")
        held = issuer_call("BlockFund", **card, requestorReference="b-1", amount="20.00")

    assert approved["result"]["code"] == "000.000.000"
    assert declined["result"]["code"] == "800.100.155"
    assert refused["result"]["code"] == "200.300.404"  # no amount
    assert held["result"]["code"] == "000.000.000"
    assert change("cardplatform_issuer_purchases_total", outcome="approved") == 1
    assert change("cardplatform_issuer_purchases_total", outcome="declined") == 1
    assert change("cardplatform_issuer_purchases_total", outcome="refused") == 1
    reason = {"operation": "Purchase", "reason": "800.100.155"}
    assert change("cardplatform_issuer_declines_total", **reason) == 1
    assert value(change.after, "cardplatform_ledger_holds", currency="EUR") == 1
    assert Decimal(str(value(change.after, "cardplatform_ledger_held_amount", currency="EUR"))) == (
        Decimal("20.00")
    )


# --- Robustness and multiprocess mode -------------------------------------------------------------


def test_a_gauge_that_cannot_be_read_leaves_the_others(scrape, monkeypatch):
    def broken():  # type: ignore[no-untyped-def]
        raise RuntimeError("the database is down")

    monkeypatch.setitem(
        metrics._gauges,
        "cardplatform_payments_in_flight",
        metrics.StateGauge("cardplatform_payments_in_flight", "doc", broken),
    )
    figures = scrape()
    assert (
        value(figures, "cardplatform_state_gauge_errors", gauge="cardplatform_payments_in_flight")
        == 1
    )
    assert ("cardplatform_payments_in_flight", ()) not in figures
    assert ("cardplatform_outbox_messages", (("status", "PENDING"),)) in figures


COUNT_IN_A_PROCESS = """
import django, sys
django.setup()
from core import metrics
metrics.janitor_resolved(resolved=int(sys.argv[1]), reversed=0, skipped=0)
"""
RENDER = """
import django
django.setup()
from core import metrics
from core.metrics import _gauges
_gauges.clear()  # no database in this process: only the events
print(metrics.render().decode())
"""


def test_multiprocess_mode_adds_up_every_process(tmp_path):
    """Like gunicorn's workers: two processes count, a third renders the sum of both."""
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    for count in ("2", "3"):
        subprocess.run(
            [sys.executable, "-c", COUNT_IN_A_PROCESS, count], cwd=ROOT, env=env, check=True
        )
    assert list(tmp_path.glob("counter_*.db"))
    rendered = subprocess.run(
        [sys.executable, "-c", RENDER], cwd=ROOT, env=env, check=True, capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    assert 'cardplatform_janitor_resolutions_total{outcome="resolved"} 5.0' in rendered

    env_clear = dict(env)
    subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); "
         "from core.metrics import clear_multiprocess_dir; clear_multiprocess_dir()"],
        cwd=ROOT, env=env_clear, check=True,
    )  # fmt: skip
    assert not list(tmp_path.glob("*.db"))


def test_the_workers_own_endpoint_is_protected_like_the_webs(settings, monkeypatch):
    import urllib.error
    import urllib.request

    monkeypatch.setattr(metrics, "_gauges", {})  # its thread does not see the test's database

    server = metrics.serve_worker_metrics("127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.server_address[1]}/metrics"
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=10)
        assert refused.value.code == 403
        settings.METRICS_BEARER_TOKEN = TOKEN
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
            assert b"cardplatform_celery_task_runs_total" in answer.read()
    finally:
        server.shutdown()
        server.server_close()


# --- The documentation and the dashboard ------------------------------------------------------


def test_the_docs_and_the_dashboard_name_only_metrics_that_exist(scrape, payer):
    """Every metric docs/operations.md's table names is served, and every name the Grafana
    dashboard queries is one of them (a histogram's _bucket, _count and _sum included)."""
    import json
    import re

    payer.pay("DB", number=VISA)  # a labelled series or two to serve
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    served = {
        family.name + ("_total" if family.type == "counter" else "")
        for family in text_string_to_metric_families(response.content.decode())
    }
    operations = (ROOT / "docs" / "operations.md").read_text()
    table = re.search(r"^## Metrics: `/metrics`$(.*?)^## ", operations, re.M | re.S).group(1)
    documented = set(re.findall(r"^\| `(cardplatform_\w+)`", table, re.M))
    assert documented == {name for name in served if name.startswith("cardplatform_")}

    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    queried = set()
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            queried |= set(re.findall(r"cardplatform_\w+", target["expr"]))
    histogram = re.compile(r"_(bucket|count|sum)$")
    assert {histogram.sub("", name) for name in queried} <= documented
    assert {histogram.sub("", name) for name in queried} == documented  # a panel for each
