"""getReport (transaction and settlement records) and getChargeback: the spec's fields, pages,
CSV, who may read them; and a reversal of a debit settled on an earlier day."""

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from payments.models import Payment
from reconciliation import services
from reconciliation.models import SettlementItem
from reconciliation.settlement import settlement_run
from tests.conftest import code

pytestmark = pytest.mark.django_db
REPORT = "/merch-web/download/getReport"
CHARGEBACKS = "/merch-web/download/getChargeback"


def report(client, merchant, day, **extra):
    body = {
        "reportType": "transaction",
        "date": f"{day:%Y%m%d}",
        "merchantId": merchant.merchant_id,
    }
    return client.post(REPORT, {**body, **extra}, mtid=False)


def test_the_transaction_records_of_a_day(merchant_api, merchant, day_of_payments):
    response = report(merchant_api, merchant, day_of_payments)
    assert response.status_code == 200 and code(response) == "000.000.100"
    data = response.json()
    assert (data["page"], data["pageSize"], data["totalRecords"]) == ("1", "100", "10")
    first = data["records"][0]
    payment = Payment.objects.order_by("created_at", "pk").first()
    assert first == {
        "merchantId": merchant.merchant_id,
        "merchantDBA": merchant.business,
        "merchantOrderId": payment.merchant_transaction_id,
        "backendTransId": payment.pk,
        "timestamp": f"{payment.created_at:%Y%m%d%H%M%S}",
        "transactionType": "purchase",
        "PAN": "420000******0000",
        "cardBrand": "VISA",
        "transCurrency": "978",
        "transAmount": "100.00",
        "transStatus": "Succeed",
        "ARN": payment.acquirer_ref_no,
        "approvalCode": payment.auth_code,
        "3dsInd": "N",
    }
    kinds = [r["transactionType"] for r in data["records"]]
    assert kinds.count("refund") == 1 and kinds.count("reversal") == 1
    assert "authorization" in kinds and "capture" in kinds and "credit" in kinds
    assert [r["transStatus"] for r in data["records"]].count("Failed") == 1
    assert all(len(r["PAN"]) == 16 and "*" in r["PAN"] for r in data["records"])


def test_blank_paging_fields_are_not_given(merchant_api, merchant, day_of_payments):
    data = report(merchant_api, merchant, day_of_payments, page="", pageSize="").json()
    assert (data["page"], data["pageSize"], data["totalRecords"]) == ("1", "100", "10")


def test_pages(merchant_api, merchant, day_of_payments):
    all_ids = [
        r["backendTransId"]
        for r in report(merchant_api, merchant, day_of_payments).json()["records"]
    ]
    pages = [
        report(merchant_api, merchant, day_of_payments, page=str(n), pageSize="4").json()
        for n in (1, 2, 3, 4)
    ]
    assert [len(p["records"]) for p in pages] == [4, 4, 2, 0]
    assert [r["backendTransId"] for p in pages for r in p["records"]] == all_ids
    assert {p["totalRecords"] for p in pages} == {"10"}


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"pageSize": "0"}, "pageSize"),
        ({"pageSize": "1001"}, "pageSize"),
        ({"page": "0"}, "page"),
        ({"reportType": "daily"}, "reportType"),
        ({"date": "2026-11-24"}, "date"),
        ({"format": "xml"}, "format"),
    ],
)
def test_bad_requests_are_refused(merchant_api, merchant, extra, named):
    response = report(merchant_api, merchant, timezone.now().date(), **extra)
    assert response.status_code == 400
    assert named in {e["name"] for e in response.json()["result"]["parameterErrors"]}


def test_the_settlement_records_of_a_day(merchant_api, merchant, day_of_payments):
    settlement_run(merchant=merchant, day=day_of_payments)
    payment = Payment.objects.filter(payment_type="DB").order_by("created_at", "pk").first()
    services.chargeback_record(
        payment_ref=payment.pk,
        reason_code="4837",
        amount=Decimal("40.00"),
        currency="EUR",
        received_on=day_of_payments,
        actor="t",
        note="not recognised",
    )
    settlement_run(merchant=merchant, day=day_of_payments)
    data = report(merchant_api, merchant, day_of_payments, reportType="settlement").json()
    assert data["totalRecords"] == "7"  # six settled payments, one chargeback
    first, *_, dispute = data["records"]
    # the VISA debit of 100.00: MDR 1.5% + 0.10, scheme fee 0.02, 10% reserve
    assert (first["backendTransId"], first["settlementStatus"]) == (payment.pk, "S")
    assert first["settlementDate"] == f"{day_of_payments:%Y%m%d}"
    assert (first["settlementCurrency"], first["settlementAmount"]) == ("978", "100.00")
    assert (first["mdrAmount"], first["3dsFee"], first["externalFee"]) == ("1.60", "0.00", "0.02")
    assert first["reservedAmount"] == "10.00" and first["riskInd"] == "P"
    assert dispute["transactionType"] == "purchase chargeback"
    assert (dispute["settlementAmount"], dispute["Note"]) == ("40.00", "not recognised")
    items = SettlementItem.objects.filter(run__day=day_of_payments)
    assert sum(i.mdr + i.threeds_fee + i.scheme_fee for i in items) == sum(i.fee for i in items)


def test_a_report_as_csv(merchant_api, merchant, day_of_payments):
    response = report(merchant_api, merchant, day_of_payments, format="csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    json_records = report(merchant_api, merchant, day_of_payments).json()["records"]
    assert len(rows) == 10
    assert [{k: v for k, v in row.items() if v} for row in rows] == json_records
    paged = report(merchant_api, merchant, day_of_payments, format="csv", page="2", pageSize="5")
    assert len(b"".join(paged.streaming_content).decode().splitlines()) == 1 + 5


def test_the_chargebacks_of_a_day(merchant_api, merchant, day_of_payments):
    payment = Payment.objects.filter(payment_type="DB").order_by("created_at", "pk").first()
    chargeback = services.chargeback_record(
        payment_ref=payment.acquirer_ref_no,
        reason_code="4853",
        amount=Decimal("80.00"),  # the 100.00 sale less its 20.00 refund
        currency="EUR",
        received_on=day_of_payments,
        actor="t",
        second_presentment=True,
        note="goods not received",
    )
    settlement_run(merchant=merchant, day=day_of_payments)
    later = day_of_payments + timedelta(days=3)
    services.chargeback_reverse(chargeback_id=chargeback.pk, reversed_on=later, actor="t")
    body = {"date": f"{day_of_payments:%Y%m%d}", "merchantId": merchant.merchant_id}
    data = merchant_api.post(CHARGEBACKS, body, mtid=False).json()
    assert data["totalRecords"] == "1"
    [record] = data["records"]
    assert record == {
        "merchantId": merchant.merchant_id,
        "ARN": payment.acquirer_ref_no,
        "chargebackDate": f"{day_of_payments:%Y%m%d}",
        "transactionType": "purchase chargeback",
        "PAN": "420000******0000",
        "crdrInd": "D",
        "chargebackCurrency": "978",
        "chargebackAmount": "80.00",
        "settlementCurrency": "978",
        "settlementAmount": "80.00",
        "reasonCode": "4853",
        "origMerchantOrderId": payment.merchant_transaction_id,
        "origTransactionId": payment.pk,
        "partialInd": "P",
        "2ndPresentInd": "Y",
        "compliantStatus": "W",
        "complaintNote": "goods not received",
    }
    reversal = merchant_api.post(
        CHARGEBACKS, {**body, "date": f"{later:%Y%m%d}"}, mtid=False
    ).json()["records"]
    assert [(r["transactionType"], r["crdrInd"]) for r in reversal] == [
        ("purchase chargeback reversal", "C")
    ]
    assert "settlementAmount" not in reversal[0]  # no run of that day has counted it yet


def test_the_channel_reads_its_merchants_reports_and_nobody_else_does(
    api, other_api, merchant, day_of_payments
):
    assert report(api, merchant, day_of_payments).json()["totalRecords"] == "10"
    assert report(other_api, merchant, day_of_payments).status_code == 404
    body = {"date": f"{day_of_payments:%Y%m%d}", "merchantId": merchant.merchant_id}
    assert other_api.post(CHARGEBACKS, body, mtid=False).status_code == 404


def test_a_reversal_of_a_debit_settled_on_an_earlier_day_is_a_refund(merchant, payer, plan):
    yesterday = timezone.now() - timedelta(days=1)
    debit = payer.pay("DB", "60.00").json()["id"]
    Payment.objects.filter(pk=debit).update(created_at=yesterday)
    first = settlement_run(merchant=merchant, day=yesterday.date())
    assert (first.sales_count, first.sales_amount) == (1, Decimal("60.00"))
    assert code(payer.ref("RV", debit, None, transactionSource="CARDHOLDER")) == "000.000.000"
    today = settlement_run(merchant=merchant, day=timezone.now().date())
    assert (today.refunds_count, today.refunds_amount) == (1, Decimal("60.00"))
    again = settlement_run(merchant=merchant, day=yesterday.date())
    assert (again.sales_count, again.sales_amount) == (1, Decimal("60.00"))  # a re-run agrees
