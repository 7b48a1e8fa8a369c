"""POST /merch-web/download/getReport and /merch-web/download/getChargeback: a merchant's
transaction or settlement records of a day, and its chargebacks of a day (spec "Reconciliation
records (reports)"), answered as `records[n]` a page at a time, or as CSV with `format=csv`
(the page asked for, or every record of the day when no page is given)."""

from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.response import Response

from core import results
from core.api import SpecInquiryView
from core.auth import Principal
from core.csvstream import csv_lines, csv_response
from core.fields import AN, Choice, CurrencyNumeric, Date, Decimal_, N, Ranged
from core.replica import read_on_replica, reads_from_replica
from core.schema import body_example
from core.tables import MANDATORY, F, Table
from core.tables.common import COMMON_INQUIRY
from merchants import selectors as merchant_selectors

from .. import reports
from .reports import ANYONE

M = MANDATORY
AMOUNT = Decimal_(int_digits=16, places=3, exact=False)
AMOUNT_MEANING = "decimals as the currency's ISO 4217 exponent (JPY none, EUR 2, BHD 3)"


PAGING = [
    F("page", Ranged(1, 999999, what="a page"), meaning="the page to answer (default 1)"),
    F(
        "pageSize",
        Ranged(1, settings.REPORT_MAX_PAGE_SIZE, what="records per page"),
        meaning="records per page (default 100, at most REPORT_MAX_PAGE_SIZE)",
    ),
    F("format", Choice(("json", "csv")), meaning="csv: the records as text/csv (default json)"),
]
MERCHANT_ID = F("merchantId", N(15), M, meaning="the merchant's merchant.id")
DAY = F("date", Date("YYYYMMDD"), M, meaning="the business (settlement) day")
REPORT_REQUEST = Table(
    [
        *COMMON_INQUIRY,
        F("reportType", Choice(("transaction", "settlement")), M),
        DAY,
        MERCHANT_ID,
        *PAGING,
    ],
)
CHARGEBACK_REQUEST = Table([*COMMON_INQUIRY, DAY, MERCHANT_ID, *PAGING])

TRANSACTION_RECORD = [
    F("merchantId", N(15)),
    F("merchantDBA", AN(25), meaning="the trading name (merchant.business); the spec's N25 is AN"),
    F("merchantOrderId", AN(64), meaning="the payment's merchantTransactionId"),
    F("backendTransId", AN(64), meaning="the payment's id"),
    F("timestamp", N(14, min=14), meaning="YYYYMMDDhhmmss, UTC"),
    F("transactionType", AN(64), meaning="authorization, purchase, capture, credit, ..."),
    F("PAN", AN(19), meaning="first six and last four digits around six asterisks"),
    F("cardBrand", AN(8)),
    F("transCurrency", CurrencyNumeric()),
    F("transAmount", AMOUNT, meaning=AMOUNT_MEANING),
    F("transStatus", Choice(("Succeed", "Failed", "Pending"))),
    F("ARN", AN(23)),
    F("approvalCode", AN(6)),
    F("3dsInd", Choice(("Y", "N")), meaning="Y: authenticated by this platform's 3-D Secure"),
    F("riskInd", Choice(("P", "F")), meaning="charged back: P partly, F fully; blank if not"),
]
SETTLEMENT_RECORD = [
    *TRANSACTION_RECORD,
    F("settlementStatus", Choice(("S",)), meaning="S: settled"),
    F("settlementDate", Date("YYYYMMDD")),
    F("settlementCurrency", CurrencyNumeric(), meaning="the merchant's settlement currency"),
    F("settlementAmount", AMOUNT, meaning="in the settlement currency, before fees"),
    F("mdrAmount", AMOUNT),
    F("reservedAmount", AMOUNT, meaning="held by the rolling reserve"),
    F("3dsFee", AMOUNT),
    F("externalFee", AMOUNT, meaning="the scheme fee"),
    F("Note", AN(200), meaning="a chargeback's note"),
]
CHARGEBACK_RECORD = [
    F("merchantId", N(15)),
    F("ARN", AN(23)),
    F("chargebackDate", Date("YYYYMMDD")),
    F("transactionType", AN(64), meaning="purchase chargeback, purchase chargeback reversal"),
    F("PAN", AN(19)),
    F("crdrInd", Choice(("D", "C")), meaning="D debits the merchant, C credits it"),
    F("chargebackCurrency", CurrencyNumeric()),
    F("chargebackAmount", AMOUNT),
    F("settlementCurrency", CurrencyNumeric(), meaning="blank until a settlement run counts it"),
    F("settlementAmount", AMOUNT),
    F("reasonCode", AN(6)),
    F("origMerchantOrderId", AN(64)),
    F("origTransactionId", AN(64)),
    F("partialInd", Choice(("P", "F"))),
    F("refundInd", AN(1), meaning="refund-alert programme: not used, blank"),
    F("2ndPresentInd", Choice(("Y", "N"))),
    F("compliantStatus", Choice(("O", "W")), meaning="O open, W won by the merchant (reversed)"),
    F("complaintNote", AN(200)),
]


def _answer(rows: list[F]) -> Table:
    return Table(
        [
            F("merchantId", N(15)),
            F("date", Date("YYYYMMDD")),
            F("page", N(6)),
            F("pageSize", N(4)),
            F("totalRecords", N(9)),
            *[F(f"records[n].{row.name}", row.type, meaning=row.meaning) for row in rows],
        ]
    )


REPORT_ANSWER = _answer(SETTLEMENT_RECORD)
CHARGEBACK_ANSWER = _answer(CHARGEBACK_RECORD)
EXAMPLE = {"entityId": "10000001", "entityType": "MERCHANT", "merchantId": "10000001"}


class RecordsView(SpecInquiryView):
    """A report answered a page at a time, or as CSV."""

    http_method_names = ["post"]
    entity_types = ANYONE
    # The OpenAPI document: the 200 answer may be CSV too (core.schema.operations).
    other_answers = {"text/csv": "the records as CSV, a header line first (format=csv)"}

    def report(self, flat: dict[str, Any], merchant: Any) -> reports.Report:
        raise NotImplementedError

    def columns_of(self, flat: dict[str, Any]) -> list[str]:
        return COLUMNS["transaction"]

    def answer(self, request: Request, data: Any, **kwargs: Any) -> Response:
        self.csv: Iterator[str] | None = None
        response = super().answer(request, data, **kwargs)
        if self.csv is None:
            return response
        return csv_response(self.csv, self.csv_name)  # type: ignore[return-value]

    @reads_from_replica
    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = merchant_selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchantId"]
        )
        report = self.report(flat, merchant)
        page = int(flat.get("page") or 1)
        size = int(flat.get("pageSize") or settings.REPORT_PAGE_SIZE)
        if flat.get("format") == "csv":
            paged = bool(flat.get("page") or flat.get("pageSize"))
            self.csv = read_on_replica(  # read as the answer streams, after this returns
                records_csv(
                    self.columns_of(flat), report.page(page, size) if paged else report.all()
                )
            )
            name = self.operation.split(".")[-1]
            self.csv_name = f"{name}-{merchant.merchant_id}-{flat['date']:%Y%m%d}.csv"
        return results.REQUEST_SUCCEEDED, {
            "merchantId": merchant.merchant_id,
            "date": f"{flat['date']:%Y%m%d}",
            "page": str(page),
            "pageSize": str(size),
            "totalRecords": str(report.total),
            "records": [] if self.csv is not None else [_given(r) for r in report.page(page, size)],
        }


def _given(record: reports.Record) -> reports.Record:
    """A record as JSON answers it: blank fields left out, as in every answer."""
    return {name: value for name, value in record.items() if value != ""}


def records_csv(columns: list[str], records: Iterable[reports.Record]) -> Iterator[str]:
    """The records as CSV lines: a header of `columns`, then each record's values."""
    return csv_lines(columns, ([record.get(name, "") for name in columns] for record in records))


COLUMNS = {
    "transaction": [row.name for row in TRANSACTION_RECORD],
    "settlement": [row.name for row in SETTLEMENT_RECORD],
    "chargeback": [row.name for row in CHARGEBACK_RECORD],
}


class ReportView(RecordsView):
    table = REPORT_REQUEST
    operation = "reports.report"
    summary = "A merchant's transaction or settlement records of a day"
    answer_table = REPORT_ANSWER
    examples = {
        "transactions": body_example(
            REPORT_REQUEST, {**EXAMPLE, "reportType": "transaction", "date": "20261124"}
        ),
        "settlement as CSV": body_example(
            REPORT_REQUEST,
            {**EXAMPLE, "reportType": "settlement", "date": "20261124", "format": "csv"},
        ),
    }

    def columns_of(self, flat: dict[str, Any]) -> list[str]:
        return COLUMNS[flat["reportType"]]

    def report(self, flat: dict[str, Any], merchant: Any) -> reports.Report:
        read = reports.settlement if flat["reportType"] == "settlement" else reports.transactions
        return read(merchant=merchant, day=flat["date"])


class ChargebackReportView(RecordsView):
    table = CHARGEBACK_REQUEST
    operation = "reports.chargeback"
    summary = "A merchant's chargebacks received or reversed on a day"
    answer_table = CHARGEBACK_ANSWER
    examples = {"a day": body_example(CHARGEBACK_REQUEST, {**EXAMPLE, "date": "20261124"})}

    def columns_of(self, flat: dict[str, Any]) -> list[str]:
        return COLUMNS["chargeback"]

    def report(self, flat: dict[str, Any], merchant: Any) -> reports.Report:
        return reports.chargebacks(merchant=merchant, day=flat["date"])
