"""seed_demo gives the demo merchant a recent past: payments on the previous business days,
settled (final runs) and filed through reconciliation's settle-then-file service, so a fresh
demo's Settlements, Daily files, getSettleSummary and settlement report are not empty; a second
run makes nothing twice."""

import csv
import io
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from core.business_day import business_day_bounds
from demo.history import DAYS, history_days
from merchants.models import Merchant
from payments.models import Payment
from payments.selectors import payment_sales
from reconciliation.models import ReconFile, SettlementRun
from tests.conftest import SpecClient

pytestmark = pytest.mark.django_db


def seed() -> dict:  # type: ignore[type-arg]
    call_command("seed_demo", stdout=StringIO(), stderr=StringIO())
    return json.loads(settings.DEMO_CREDENTIALS_FILE.read_text())


def test_a_fresh_demo_has_settled_and_filed_days():
    credentials = seed()
    merchant = Merchant.objects.get(merchant_id="10000001")
    days = history_days(timezone.now())
    assert len(days) == DAYS and all(business_day_bounds(d)[1] <= timezone.now() for d in days)
    runs = SettlementRun.objects.filter(merchant=merchant).order_by("day")
    assert [run.day for run in runs] == days
    assert not any(run.provisional for run in runs)  # each day had ended: final runs
    for run in runs:
        start, end = business_day_bounds(run.day)
        day_payments = Payment.objects.filter(merchant=merchant, created_at__range=(start, end))
        assert day_payments.count() == 10
        sales = payment_sales(day_payments, until=end)
        assert (run.sales_count, run.sales_amount) == (
            sales.count(),
            sum(p.sale_amount for p in sales),
        )
        assert run.sales_count == 5 and run.refunds_count == 1  # the reversed DB is no sale
    files = ReconFile.objects.filter(day__in=days)
    assert {(f.entity.entity_id, f.day) for f in files} == {
        (entity, day) for entity in ("10000001", "BANK0001") for day in days
    }

    api = SpecClient(credentials["merchant"]["token"], merchant.entity.entity_id, "MERCHANT")
    summary = api.post(
        "/merch-web/download/getSettleSummary",
        {
            "startDate": f"{days[0]:%Y%m%d}",
            "endDate": f"{days[-1]:%Y%m%d}",
            "merchantId": "10000001",
        },
        mtid=False,
    ).json()["summary"]
    assert summary[0]["days"] == str(DAYS) and summary[0]["salesCount"] == str(5 * DAYS)
    total = sum((run.sales_amount for run in runs), Decimal(0))
    assert summary[0]["salesAmount"] == f"{total:.2f}"


def test_the_portal_shows_the_demos_settlements_and_files(client):
    credentials = seed()
    portal = credentials["portal"]
    client.post("/portal/login/", {"username": portal["username"], "password": portal["password"]})
    days = history_days(timezone.now())
    runs = client.get("/portal/settlements/").content.decode()
    assert all(f"{day:%Y-%m-%d}" in runs for day in days) and "provisional" not in runs
    files = client.get("/portal/files/").content.decode()
    assert all(f"{day:%Y%m%d}" in files for day in days)
    report = client.get(f"/portal/reports/settlement/{days[-1]:%Y-%m-%d}.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(report.streaming_content).decode())))
    assert len(rows) == 6  # five sales and a refund


def test_a_second_run_makes_nothing_twice():
    seed()
    payments = Payment.objects.count()
    runs = list(SettlementRun.objects.values_list("pk", "day", "net_amount").order_by("pk"))
    files = list(ReconFile.objects.values_list("pk", "sha256").order_by("pk"))
    seed()
    assert Payment.objects.count() == payments == 10 * DAYS
    assert list(SettlementRun.objects.values_list("pk", "day", "net_amount").order_by("pk")) == runs
    assert list(ReconFile.objects.values_list("pk", "sha256").order_by("pk")) == files
