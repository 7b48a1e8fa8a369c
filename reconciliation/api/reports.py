"""POST /merch-web/download/getSettleSummary: a merchant's settled figures over a date range,
one summary per settlement currency (the specification echoes the dates and leaves the figures
open: docs/decisions.md)."""

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Count, Sum

from core import results
from core.api import SpecInquiryView
from core.auth import Principal
from core.display import amount_text
from core.fields import Currency, Date, N
from core.replica import reads_from_replica
from core.schema import body_example
from core.tables import MANDATORY, F, Table
from core.tables.common import COMMON_INQUIRY
from merchants import selectors as merchant_selectors

from ..models import SettlementRun

M = MANDATORY
ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})
FIGURES = (
    ("salesCount", "sales_count"),
    ("salesAmount", "sales_amount"),
    ("refundsCount", "refunds_count"),
    ("refundsAmount", "refunds_amount"),
    ("creditsCount", "credits_count"),
    ("creditsAmount", "credits_amount"),
    ("chargebacksCount", "chargebacks_count"),
    ("chargebacksAmount", "chargebacks_amount"),
    ("chargebackReversalsAmount", "chargeback_reversals_amount"),
    ("feesAmount", "fees_amount"),
    ("reserveHeld", "reserve_held"),
    ("reserveReleased", "reserve_released"),
    ("netAmount", "net_amount"),
)


def range_rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
    start, end = flat.get("startDate"), flat.get("endDate")
    if start and end:
        if end < start:
            yield "endDate", "is before startDate"
        elif (end - start).days + 1 > settings.REPORT_MAX_DAYS:
            yield "endDate", f"the range may span at most {settings.REPORT_MAX_DAYS} days"


SUMMARY_REQUEST = Table(
    [
        *COMMON_INQUIRY,
        F("startDate", Date("YYYYMMDD"), M),
        F("endDate", Date("YYYYMMDD"), M),
        F("merchantId", N(15), M, meaning="the merchant's merchant.id"),
    ],
    rules=[range_rule],
)
SUMMARY_ANSWER = Table(
    [
        F("startDate", Date("YYYYMMDD")),
        F("endDate", Date("YYYYMMDD")),
        F("merchantId", N(15)),
        F("summary[n].currency", Currency()),
        F("summary[n].days", N(4), meaning="settlement runs in the range"),
        *[F(f"summary[n].{name}", N(16)) for name, _ in FIGURES],
    ]
)


def _text(value: Any, currency: str) -> str:
    """A count as it is; an amount with the currency's ISO 4217 decimals (265.00 EUR)."""
    return amount_text(value, currency) if isinstance(value, Decimal) else str(value)


class SettleSummaryView(SpecInquiryView):
    http_method_names = ["post"]
    table = SUMMARY_REQUEST
    operation = "reports.settle_summary"
    entity_types = ANYONE
    summary = "Settled figures of a merchant over a date range, one summary per currency"
    answer_table = SUMMARY_ANSWER
    examples = {
        "a week": body_example(
            SUMMARY_REQUEST,
            {
                "entityId": "10000001",
                "entityType": "MERCHANT",
                "startDate": "20261118",
                "endDate": "20261124",
                "merchantId": "10000001",
            },
        )
    }

    @reads_from_replica
    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = merchant_selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchantId"]
        )
        runs = SettlementRun.objects.filter(
            merchant=merchant, day__gte=flat["startDate"], day__lte=flat["endDate"]
        )
        grouped = (
            runs.values("currency")
            .annotate(days=Count("pk"), **{attr: Sum(attr) for _, attr in FIGURES})
            .order_by("currency")
        )
        summary = []
        for row in grouped:
            values: dict[str, Any] = dict(row)
            summary.append(
                {
                    "currency": values["currency"],
                    "days": str(values["days"]),
                    **{name: _text(values[attr], values["currency"]) for name, attr in FIGURES},
                }
            )
        return results.REQUEST_SUCCEEDED, {
            "startDate": f"{flat['startDate']:%Y%m%d}",
            "endDate": f"{flat['endDate']:%Y%m%d}",
            "merchantId": merchant.merchant_id,
            "summary": summary,
        }
