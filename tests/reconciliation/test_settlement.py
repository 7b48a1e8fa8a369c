"""A merchant's settlement of a business day, on a worked example checked by hand: sales, refunds,
credits, MDR per brand and type, the 3-D Secure and scheme fees, the rolling reserve, a foreign
currency converted at the day's buying rate; a re-run gives the same figures and settles no
payment twice; test-mode payments are never settled."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.business_day import business_day_bounds
from core.errors import ApplicationError
from payments.models import Payment
from reconciliation import services
from reconciliation.models import SettlementItem, SettlementRun
from reconciliation.settlement import settlement_run
from tests.conftest import code

pytestmark = pytest.mark.django_db


def test_a_worked_example(merchant, day_of_payments):
    run = settlement_run(merchant=merchant, day=day_of_payments)
    assert run.currency == "EUR"
    assert (run.sales_count, run.sales_amount) == (4, Decimal("265.00"))
    assert (run.refunds_count, run.refunds_amount) == (1, Decimal("20.00"))
    assert (run.credits_count, run.credits_amount) == (1, Decimal("5.00"))
    # 1.62 + 1.22 + 0.02 (refund) + 0.02 (credit) + 0.72 (capture) + 1.47 (USD debit)
    assert run.fees_amount == Decimal("5.07")
    assert run.reserve_held == Decimal("26.50") and run.reserve_released == 0
    assert run.net_amount == Decimal("208.43")  # 265 - 20 - 5 - 5.07 - 26.50
    assert SettlementItem.objects.filter(run=run).count() == 6


def test_a_re_run_gives_the_same_figures_and_settles_nothing_twice(merchant, day_of_payments):
    first = settlement_run(merchant=merchant, day=day_of_payments)
    figures = (first.sales_amount, first.fees_amount, first.net_amount)
    again = settlement_run(merchant=merchant, day=day_of_payments)
    assert again.pk == first.pk
    assert (again.sales_amount, again.fees_amount, again.net_amount) == figures
    assert SettlementItem.objects.count() == 6
    assert SettlementRun.objects.count() == 1


def test_a_payment_is_settled_once_by_the_database(merchant, day_of_payments):
    run = settlement_run(merchant=merchant, day=day_of_payments)
    other = SettlementRun.objects.create(
        merchant=merchant, day=day_of_payments - timedelta(days=1), currency="EUR"
    )
    item = SettlementItem.objects.filter(run=run).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        SettlementItem.objects.create(run=other, payment=item.payment, kind="SALE", amount=1, fee=0)


def test_the_reserve_of_an_earlier_day_is_released(merchant, day_of_payments):
    SettlementRun.objects.create(
        merchant=merchant,
        day=day_of_payments - timedelta(days=7),
        currency="EUR",
        reserve_held=Decimal("12.34"),
    )
    run = settlement_run(merchant=merchant, day=day_of_payments)
    assert run.reserve_released == Decimal("12.34")
    assert run.net_amount == Decimal("208.43") + Decimal("12.34")


def test_test_mode_payments_are_never_settled(merchant, payer, plan):
    merchant.test_mode = True
    merchant.save()
    payer.pay("DB", "10.00")
    run = settlement_run(merchant=merchant, day=timezone.now().date())
    assert run.sales_count == 0 and not SettlementItem.objects.exists()
    assert Payment.objects.get().test_mode


def test_the_business_day_follows_the_time_zone_and_cutoff(settings):
    from datetime import date

    settings.SETTLEMENT_TIME_ZONE = "Europe/Berlin"
    settings.SETTLEMENT_CUTOFF = "22:00"
    start, end = business_day_bounds(date(2026, 11, 24))
    assert (start.isoformat(), end.isoformat()) == (
        "2026-11-23T22:00:00+01:00",
        "2026-11-24T22:00:00+01:00",
    )
    settings.SETTLEMENT_CUTOFF = "00:00"
    start, end = business_day_bounds(date(2026, 11, 24))
    assert (start.isoformat(), end.isoformat()) == (
        "2026-11-24T00:00:00+01:00",
        "2026-11-25T00:00:00+01:00",
    )


def test_the_command_settles_a_day(merchant, day_of_payments):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("settle", "--date", f"{day_of_payments:%Y-%m-%d}", "--before-cutoff", stdout=out)
    assert "net 208.43" in out.getvalue() and "1 settlement run(s)" in out.getvalue()
    # Each figure is named, none signed: no "-0.00" for a day without chargebacks.
    assert "chargebacks 0/0.00 (reversed 0.00)" in out.getvalue() and "-0.00" not in out.getvalue()
    call_command(
        "settle",
        "--date",
        f"{day_of_payments:%Y-%m-%d}",
        "--merchant",
        merchant.merchant_id,
        "--before-cutoff",
        stdout=StringIO(),
    )
    assert SettlementRun.objects.get().net_amount == Decimal("208.43")


def test_the_command_refuses_a_day_that_has_not_ended(merchant, day_of_payments):
    from io import StringIO

    from django.core.management import CommandError, call_command

    for merchant_option in ([], ["--merchant", merchant.merchant_id]):
        with pytest.raises(CommandError, match="has not ended.*--before-cutoff"):
            call_command(
                "settle",
                "--date",
                f"{day_of_payments:%Y-%m-%d}",
                *merchant_option,
                stdout=StringIO(),
            )
    assert not SettlementRun.objects.exists()


def test_a_day_settled_before_its_cutoff_is_provisional_until_settled_after_it(
    merchant, day_of_payments
):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("settle", "--date", f"{day_of_payments:%Y-%m-%d}", "--before-cutoff", stdout=out)
    assert "net 208.43 (provisional)" in out.getvalue()
    assert SettlementRun.objects.get().provisional
    end = business_day_bounds(day_of_payments)[1]
    final = settlement_run(merchant=merchant, day=day_of_payments, now=end)
    assert not final.provisional and final.net_amount == Decimal("208.43")
    assert SettlementRun.objects.get().pk == final.pk


def test_a_provisional_run_is_settled_again_for_the_daily_file(merchant, payer, plan):
    from reconciliation.settlement import settle_unsettled

    today = timezone.now().date()
    payer.pay("DB", "10.00")
    first = settlement_run(merchant=merchant, day=today)
    assert first.provisional and first.sales_count == 1
    payer.pay("DB", "15.00")  # later the same day
    [again] = settle_unsettled([merchant.pk], today)
    assert again.pk == first.pk and (again.sales_count, again.sales_amount) == (2, 25)
    end = business_day_bounds(today)[1]
    settlement_run(merchant=merchant, day=today, now=end)  # final: the file keeps it
    assert settle_unsettled([merchant.pk], today) == []


def test_the_beat_task_settles_the_last_day_whose_cutoff_passed(merchant, day_of_payments):
    from unittest import mock

    from reconciliation.tasks import settle_last_day

    ended = business_day_bounds(day_of_payments)[1]
    # Before the cut-off the last day that ended is the one before: nothing of it to settle.
    with mock.patch("reconciliation.tasks.timezone.now", return_value=ended - timedelta(hours=1)):
        assert settle_last_day() == 0
    assert not SettlementRun.objects.filter(merchant=merchant).exists()
    # After it, the payments' day is settled, once a merchant, with the day's figures; a second
    # run the same hour gives the same run.
    with mock.patch("reconciliation.tasks.timezone.now", return_value=ended + timedelta(hours=1)):
        assert settle_last_day() == 1
        assert settle_last_day() == 1
    [run] = SettlementRun.objects.filter(merchant=merchant)
    assert run.day == day_of_payments and not run.provisional
    assert (run.sales_count, run.sales_amount) == (4, Decimal("265.00"))


def test_staff_see_runs_and_settle_again(admin_client, merchant, day_of_payments):
    from django.urls import reverse

    run = settlement_run(merchant=merchant, day=day_of_payments)
    page = admin_client.get(reverse("admin:reconciliation_settlementrun_change", args=[run.pk]))
    assert page.status_code == 200 and "208.43" in page.content.decode()
    response = admin_client.post(
        reverse("admin:reconciliation_settlementrun_changelist"),
        {"action": "settle_again", "_selected_action": [run.pk]},
        follow=True,
    )
    assert "Settled again" in response.content.decode()
    assert SettlementItem.objects.count() == 6
    plan_page = admin_client.get(reverse("admin:reconciliation_feeplan_changelist"))
    assert plan_page.status_code == 200


# --- chargebacks ---------------------------------------------------------------------------


def test_a_chargeback_debits_its_day_and_its_reversal_credits_the_day_it_is_won(
    merchant, day_of_payments
):
    from reconciliation.models import Chargeback

    sale = Payment.objects.filter(
        payment_type="DB", amount=Decimal("100.00"), currency="EUR"
    ).first()
    chargeback = services.chargeback_record(
        payment_ref=sale.acquirer_ref_no,  # found by its ARN
        reason_code="10.4",
        amount=Decimal("40.00"),
        currency="EUR",
        received_on=day_of_payments,
        actor="staff:test",
    )
    assert chargeback.partial and chargeback.merchant_id == merchant.pk
    run = settlement_run(merchant=merchant, day=day_of_payments)
    assert (run.chargebacks_count, run.chargebacks_amount) == (1, Decimal("40.00"))
    assert run.net_amount == Decimal("208.43") - Decimal("40.00")
    again = settlement_run(merchant=merchant, day=day_of_payments)  # counted once
    assert again.chargebacks_amount == Decimal("40.00")

    won_on = day_of_payments + timedelta(days=3)
    services.chargeback_reverse(chargeback_id=chargeback.pk, reversed_on=won_on, actor="staff:test")
    later = settlement_run(merchant=merchant, day=won_on)
    assert later.chargeback_reversals_amount == Decimal("40.00")
    assert later.net_amount == Decimal("40.00")  # no payments that day, the reversal only
    assert Chargeback.objects.get().reversal_settled_in_id == later.pk
    with pytest.raises(ApplicationError) as refused:
        services.chargeback_reverse(chargeback_id=chargeback.pk, reversed_on=won_on, actor="t")
    assert refused.value.result.code == "700.550.240"


@pytest.mark.parametrize(
    ("ref", "amount", "message", "result"),
    [
        ("nothing", "1.00", "no payment", "700.550.200"),
        (None, "500.00", "at most", "700.550.230"),
        (None, "0", "more than 0", "700.550.230"),
    ],
)
def test_chargebacks_that_cannot_be(merchant, day_of_payments, ref, amount, message, result):
    sale = (
        Payment.objects.filter(payment_type="DB", successful=True, currency="EUR")
        .order_by("created_at")
        .first()
    )
    with pytest.raises(ApplicationError, match=message) as refused:
        services.chargeback_record(
            payment_ref=ref or sale.pk,
            reason_code="13.1",
            amount=Decimal(amount),
            currency="EUR",
            received_on=day_of_payments,
            actor="t",
        )
    assert refused.value.result.code == result


def test_chargebacks_are_imported_from_a_file(tmp_path, merchant, day_of_payments):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    from reconciliation.models import Chargeback

    sale = (
        Payment.objects.filter(payment_type="DB", successful=True, currency="EUR")
        .order_by("created_at")
        .first()
    )
    path = tmp_path / "chargebacks.csv"
    path.write_text(
        "payment,reason,amount,currency,date,reference\n"
        f"{sale.pk},10.4,10.00,EUR,{day_of_payments:%Y-%m-%d},CB00000001\n"
        f"nope,10.4,10.00,EUR,{day_of_payments:%Y-%m-%d},\n"
    )
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("chargebacks_import", str(path), stdout=out)
    assert "1 imported, 1 refused" in out.getvalue() and "line 3" in out.getvalue()
    assert Chargeback.objects.get().reference == "CB00000001"


def test_staff_record_a_chargeback_in_the_admin(admin_client, merchant, day_of_payments):
    from django.urls import reverse

    from reconciliation.models import Chargeback

    sale = (
        Payment.objects.filter(payment_type="DB", successful=True, currency="EUR")
        .order_by("created_at")
        .first()
    )
    response = admin_client.post(
        reverse("admin:reconciliation_chargeback_add"),
        {
            "payment_ref": sale.pk,
            "reason_code": "10.4",
            "amount": "5.00",
            "currency": "eur",
            "received_on": f"{day_of_payments:%Y-%m-%d}",
            "reference": "",
            "note": "cardholder disputes",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    chargeback = Chargeback.objects.get()
    assert (chargeback.currency, chargeback.recorded_by) == ("EUR", "staff:admin")


# --- getSettleSummary ------------------------------------------------------------------------


def test_the_settle_summary_of_a_range(merchant_api, merchant, day_of_payments):
    settlement_run(merchant=merchant, day=day_of_payments)
    start = day_of_payments - timedelta(days=2)
    response = merchant_api.post(
        "/merch-web/download/getSettleSummary",
        {
            "startDate": f"{start:%Y%m%d}",
            "endDate": f"{day_of_payments:%Y%m%d}",
            "merchantId": merchant.merchant_id,
        },
        mtid=False,
    )
    assert response.status_code == 200 and code(response) == "000.000.100"
    data = response.json()
    assert data["startDate"] == f"{start:%Y%m%d}" and data["merchantId"] == merchant.merchant_id
    [summary] = data["summary"]
    assert summary["currency"] == "EUR" and summary["days"] == "1"
    assert (summary["salesCount"], summary["salesAmount"], summary["netAmount"]) == (
        "4",
        "265.00",
        "208.43",
    )
    assert summary["feesAmount"] == "5.07"


@pytest.mark.parametrize(
    ("start", "end", "named"),
    [
        ("20261124", "20261120", "endDate"),
        ("20260101", "20261124", "endDate"),
        ("2026-11-20", "20261124", "startDate"),
    ],
)
def test_the_settle_summary_refuses_bad_ranges(merchant_api, merchant, start, end, named):
    response = merchant_api.post(
        "/merch-web/download/getSettleSummary",
        {"startDate": start, "endDate": end, "merchantId": merchant.merchant_id},
        mtid=False,
    )
    assert response.status_code == 400 and named in {
        e["name"] for e in response.json()["result"]["parameterErrors"]
    }


def test_another_merchants_summary_is_not_found(other_api, merchant):
    response = other_api.post(
        "/merch-web/download/getSettleSummary",
        {"startDate": "20261120", "endDate": "20261124", "merchantId": merchant.merchant_id},
        mtid=False,
    )
    assert response.status_code == 404


def test_chargebacks_never_exceed_what_is_left_of_the_sale(merchant, payer, plan):
    def charge(payment_id, amount, currency="EUR"):
        return services.chargeback_record(
            payment_ref=payment_id,
            reason_code="4853",
            amount=Decimal(amount),
            currency=currency,
            received_on=timezone.now().date(),
            actor="t",
        )

    sale = payer.pay("DB", "25.00").json()["id"]
    charge(sale, "10.00")
    with pytest.raises(ApplicationError, match=r"at most 15\.00 EUR") as refused:
        charge(sale, "20.00")
    assert refused.value.result.code == "700.550.230"
    with pytest.raises(ApplicationError, match="the payment is in EUR, not USD") as refused:
        charge(sale, "5.00", currency="USD")
    assert refused.value.result.code == "700.550.220"
    assert charge(sale, "15.00").partial is False  # with the first, the whole sale
    reversed_ = payer.pay("DB", "9.99").json()["id"]
    assert code(payer.ref("RV", reversed_, None, transactionSource="CARDHOLDER")) == "000.000.000"
    with pytest.raises(ApplicationError, match="at most 0"):
        charge(reversed_, "9.99")
    test_mode = payer.pay("DB", "8.00").json()["id"]
    Payment.objects.filter(pk=test_mode).update(test_mode=True)
    with pytest.raises(ApplicationError, match="test mode") as refused:
        charge(test_mode, "8.00")
    assert refused.value.result.code == "700.550.210"


def test_the_command_takes_yesterday_and_today_as_recon_file_does(merchant, day_of_payments):
    """`settle --date yesterday` settles the previous business day (the runbook's command), and
    `today` is refused like any day whose cut-off has not passed."""
    from datetime import timedelta
    from io import StringIO

    from django.core.management import CommandError, call_command

    yesterday = day_of_payments - timedelta(days=1)
    Payment.objects.filter(merchant=merchant).update(created_at=timezone.now() - timedelta(days=1))
    out = StringIO()
    call_command("settle", "--date", "yesterday", stdout=out)
    assert SettlementRun.objects.get(merchant=merchant).day == yesterday
    assert "1 settlement run(s)" in out.getvalue()
    with pytest.raises(CommandError, match="has not ended"):
        call_command("settle", "--date", "today", stdout=StringIO())
    with pytest.raises(CommandError, match="not YYYY-MM-DD, yesterday or today"):
        call_command("settle", "--date", "the day before", stdout=StringIO())
