"""One definition of sales, of the approval rate and of declines (payments.selectors), so the
portal's overview, the staff dashboard, settlement, getSettleSummary and the settlement report
show the same numbers of the same day: a fully reversed debit is no sale, a refund is a refund
(not less sales), a pending 3-D Secure payment is not decided, and a refused capture or a
validation is no decline."""

import csv
import io
from decimal import Decimal

import pytest
from django.utils import timezone

from core.business_day import business_day_bounds
from payments.models import Payment
from payments.selectors import (
    approval_rate,
    declines_by_code,
    described_declines,
    figures_by,
    outcome_q,
    payment_figures,
    payment_sales,
    sales_by_currency,
    sales_volume,
)
from reconciliation.settlement import settlement_run
from tests.conftest import code
from tests.payments.conftest import NO_FUNDS
from tests.payments.threeds_helpers import threeds_fields
from tests.portal.test_portal import portal_user, sign_in

pytestmark = pytest.mark.django_db
APPROVED = "000.000.000"


@pytest.fixture
def day(payer, enrolled):
    """Today's payments of every kind the figures must tell apart."""
    reversed_db = payer.pay("DB", "100.00").json()["id"]
    assert code(payer.ref("RV", reversed_db, None, transactionSource="CARDHOLDER")) == APPROVED
    refunded = payer.pay("DB", "80.00").json()["id"]
    assert code(payer.ref("RF", refunded, "30.00")) == APPROVED
    partly = payer.pay("DB", "50.00").json()["id"]
    assert code(payer.ref("RV", partly, "20.00", transactionSource="PARTIAL")) == APPROVED
    authorization = payer.pay("PA", "60.00").json()["id"]
    assert code(payer.ref("CP", authorization, "20.00")) == APPROVED
    assert code(payer.ref("CP", authorization, "25.00")) == APPROVED
    assert code(payer.ref("CP", authorization, "50.00")) == "700.400.100"  # refused: 15 left
    assert code(payer.pay("DB", "40.00", **threeds_fields())) == "000.200.000"  # pending
    assert code(payer.pay("DB", "10.00", number=NO_FUNDS)) == "800.100.203"  # declined
    return timezone.now().date()


# sales: 80 (refunded 30: a refund, not less sales) + 50 - 20 + 20 + 25; the reversed 100 is none
SALES = ("155.00 EUR (4)", Decimal("155.00"), 4)
# decided: the approved DBs of 100, 80 and 50, the PA, and the declined DB; not the pending one
RATE = "80.0 %"


def test_the_selectors_define_sales_approval_and_declines(merchant, day):
    mine = Payment.objects.filter(merchant=merchant)
    figures = payment_figures(mine)
    [volume] = figures["volume"]
    assert (volume["currency"], volume["amount"], volume["count"]) == ("EUR", *SALES[1:])
    assert (figures["approved"], figures["declined"]) == (4, 1)
    assert figures["approval_rate"] == approval_rate(4, 1) == 80.0
    assert [row["result_code"] for row in declines_by_code(mine)] == ["800.100.203"]
    assert declines_by_code(mine)[0]["family"] == "external bank declines"
    pending = mine.filter(outcome_q("pending")).get()
    assert pending.result_code == "000.200.000"
    refused = sorted(mine.filter(outcome_q("refused")).values_list("result_code", flat=True))
    assert refused == ["700.400.100"]
    # Settlement counts the reversals made by the day's end: a later one is a later refund.
    start, end = business_day_bounds(day)
    assert sum(p.sale_amount for p in payment_sales(mine, until=end)) == SALES[1]
    before = payment_sales(mine, until=start)  # as if the reversals came after the day
    assert (before.count(), sum(p.sale_amount for p in before)) == (5, Decimal("275.00"))


def test_the_overviews_one_query_adds_up_to_each_definition(merchant, day):
    """The overview's charts come from one grouped query (figures_by) added up in Python; each
    sum is the figure its own selector gives."""
    mine = Payment.objects.filter(merchant=merchant)
    rows = figures_by(mine, "currency", "payment_brand", "result_code")
    assert sales_volume(rows) == sales_by_currency(mine)
    assert sum(r["n"] for r in rows) == mine.count()
    declined: dict[str, int] = {}
    for row in rows:
        if row["declined"]:
            declined[row["result_code"]] = declined.get(row["result_code"], 0) + row["declined"]
    assert described_declines(sorted(declined.items())) == declines_by_code(mine)
    figures = payment_figures(mine)
    assert (figures["approved"], figures["declined"]) == (4, 1)
    assert figures["volume"] == [{"currency": "EUR", "amount": SALES[1], "count": SALES[2]}]


def test_the_overview_costs_a_fixed_number_of_statements(
    client, merchant, day, django_assert_max_num_queries
):
    """The session (read, and saved by the idle timer: three statements), the user and the
    membership, today's and this month's figures (one query each) and the four charts (one):
    whatever the number of payments (the charts took five queries and the figures two each)."""
    portal_user(merchant, "figures-admin")
    sign_in(client, "figures-admin")
    client.get("/portal/")
    with django_assert_max_num_queries(9):
        assert client.get("/portal/").status_code == 200


def test_overview_dashboard_settlement_summary_and_report_agree(
    client, admin_client, merchant, merchant_api, day
):
    portal_user(merchant, "figures-admin")
    sign_in(client, "figures-admin")
    overview = client.get("/portal/").content.decode()
    dashboard = admin_client.get("/admin/").content.decode()
    for page in (overview, dashboard):
        assert SALES[0] in page and RATE in page
    # The overview says what each figure counts, in the words of the selectors' definitions.
    assert "less what reversals took back" in overview and "is not counted" in overview
    run = settlement_run(merchant=merchant, day=day)
    assert (run.sales_amount, run.sales_count) == SALES[1:]
    assert (run.refunds_amount, run.refunds_count) == (Decimal("30.00"), 1)
    summary = merchant_api.post(
        "/merch-web/download/getSettleSummary",
        {
            "startDate": f"{day:%Y%m%d}",
            "endDate": f"{day:%Y%m%d}",
            "merchantId": merchant.merchant_id,
        },
        mtid=False,
    ).json()["summary"][0]
    assert (summary["salesCount"], summary["salesAmount"]) == ("4", "155.00")
    report = client.get(f"/portal/reports/settlement/{day:%Y-%m-%d}.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(report.streaming_content).decode())))
    sales = [r for r in rows if r["transactionType"] in ("purchase", "capture")]
    assert len(sales) == 4
    assert sum(Decimal(r["settlementAmount"]) for r in sales) == Decimal("155.00")


def test_declines_are_the_issuers_and_the_risk_systems_only(client, admin_client, merchant, day):
    portal_user(merchant, "figures-admin")
    sign_in(client, "figures-admin")
    overview = client.get("/portal/").content.decode()
    chart = overview.split("Declines by result code", 1)[1]
    assert "800.100.203" in chart and "external bank declines" in chart
    assert "000.200.000" not in chart and "700.400.100" not in chart
    dashboard = admin_client.get("/admin/").content.decode()
    declines = dashboard.split("Declines today by result code", 1)[1].split("</section>", 1)[0]
    assert "800.100.203" in declines and "external bank declines" in declines
    assert "000.200.000" not in declines and "700.400.100" not in declines
    listed = client.get("/portal/transactions/?family=declined").content.decode()
    assert "1 payment<" in listed
    assert "1 payment<" in client.get("/portal/transactions/?family=pending").content.decode()


def test_a_merchants_first_pending_payment_has_no_approval_rate(client, merchant, payer, enrolled):
    assert code(payer.pay("DB", "40.00", **threeds_fields())) == "000.200.000"
    portal_user(merchant, "figures-admin")
    sign_in(client, "figures-admin")
    figures = client.get("/portal/").content.decode().split("Approval rate", 1)[1][:80]
    assert "–" in figures and "0.0 %" not in figures  # nothing decided yet


def test_today_is_the_business_day_settlement_counts(
    client, admin_client, merchant, payer, settings
):
    """With a cut-off that is not midnight, the overview's and the dashboard's Today are the
    business day settlement counts (core.business_day), not the UTC calendar day: a sale made a
    second before the day's start is yesterday's, one a second after it today's."""
    from datetime import timedelta

    from core.business_day import business_day_of

    now = timezone.now()
    settings.SETTLEMENT_TIME_ZONE = "UTC"
    settings.SETTLEMENT_CUTOFF = f"{now - timedelta(hours=3):%H:%M}"
    day = business_day_of(now)
    start, _ = business_day_bounds(day)
    before = payer.pay("DB", "11.00").json()["id"]
    after = payer.pay("DB", "22.00").json()["id"]
    Payment.objects.filter(pk=before).update(created_at=start - timedelta(seconds=1))
    Payment.objects.filter(pk=after).update(created_at=start + timedelta(seconds=1))
    portal_user(merchant, "figures-admin")
    sign_in(client, "figures-admin")
    today = client.get("/portal/").content.decode().split("This month", 1)[0]
    dashboard = admin_client.get("/admin/").content.decode()
    for page in (today, dashboard):
        assert "22.00 EUR (1)" in page, page
    run = settlement_run(merchant=merchant, day=day)
    assert (run.sales_amount, run.sales_count) == (Decimal("22.00"), 1)
