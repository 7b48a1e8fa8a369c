"""The records of the reports (spec "Reconciliation records (reports)"): a merchant's
transactions of a business day, its settlement of a day, its chargebacks of a day.

Each report is a `Report`: how many records it has and the records of a page, read from the
database a page at a time (a day may hold many). A record is a plain mapping from the spec's
field names to text; the API answers it as `records[n]` or CSV (reconciliation.api.records).

Decisions on the specification's odd types (docs/decisions.md "Money out"): merchantDBA is the
merchant's trading name (merchant.business) typed AN25, not N25; 3dsInd is Y when the payment
went through this platform's 3-D Secure and N otherwise (its printed description repeats
backendTransId's); riskInd is P or F for a payment charged back partly or fully and blank
otherwise (as its description says); PAN is the first six and last four digits around six
asterisks; amounts are decimal text with the currency's ISO 4217 exponent (N18,2 names the
width, JPY has no decimals and BHD three).
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db.models import Q, QuerySet

from core.business_day import business_day_bounds
from core.cards import masked_parts
from core.display import amount_text
from core.fields.codes import numeric_currency
from merchants.models import Merchant
from payments.models import Payment, PaymentState
from payments.selectors import payments_made

from .models import Chargeback, SettlementItem, SettlementRun

Record = dict[str, str]

TRANSACTION_TYPES = {
    "PA": "authorization",
    "DB": "purchase",
    "CP": "capture",
    "CD": "credit",
    "CV": "verification",
    "RV": "reversal",
    "RF": "refund",
    "PR": "refund",
}


def transaction_status(payment: Payment) -> str:
    if payment.state != PaymentState.DONE:
        return "Pending"
    return "Succeed" if payment.successful else "Failed"


def transaction_fields(payment: Payment, merchant: Merchant) -> Record:
    """The spec's transaction detail fields of one payment."""
    chargebacks = list(payment.chargebacks.all()) if payment.payment_type in ("DB", "CP") else []
    risk = ""
    if chargebacks:
        risk = "P" if all(c.partial for c in chargebacks) else "F"
    return {
        "merchantId": merchant.merchant_id,
        "merchantDBA": merchant.business[:25],
        "merchantOrderId": payment.merchant_transaction_id,
        "backendTransId": payment.pk,
        "timestamp": f"{payment.created_at:%Y%m%d%H%M%S}",
        "transactionType": TRANSACTION_TYPES.get(payment.payment_type, payment.payment_type),
        "PAN": masked_parts(payment.card_bin, payment.card_last4),
        "cardBrand": payment.payment_brand[:8],
        "transCurrency": numeric_currency(payment.currency) if payment.currency else "",
        "transAmount": amount_text(payment.amount, payment.currency),
        "transStatus": transaction_status(payment),
        "ARN": payment.acquirer_ref_no,
        "approvalCode": payment.auth_code,
        "3dsInd": "Y" if payment.threeds_started else "N",
        "riskInd": risk,
    }


@dataclass(frozen=True)
class Report:
    total: int
    page_of: Callable[[int, int], Iterable[Record]]  # (offset, limit) -> records

    def page(self, page: int, size: int) -> list[Record]:
        return list(self.page_of((page - 1) * size, size))

    def all(self, chunk: int = 1000) -> Iterator[Record]:
        for offset in range(0, self.total, chunk):
            yield from self.page_of(offset, chunk)


def _sliced(queryset: QuerySet[Any], row: Callable[[Any], Record]) -> Report:
    def page_of(offset: int, limit: int) -> Iterator[Record]:
        for obj in queryset[offset : offset + limit]:
            yield row(obj)

    return Report(queryset.count(), page_of)


def transactions(*, merchant: Merchant, day: date) -> Report:
    """Every payment the merchant made in the business day `day`, in the order made."""
    start, end = business_day_bounds(day)
    payments = (
        payments_made(merchant=merchant, start=start, end=end)
        .prefetch_related("chargebacks")
        .order_by("created_at", "pk")
    )
    return _sliced(payments, lambda payment: transaction_fields(payment, merchant))


def settlement(*, merchant: Merchant, day: date) -> Report:
    """The payments the run of `day` settled, with their fees and reserve, then the chargebacks
    it debited and the reversals it credited."""
    run = SettlementRun.objects.filter(merchant=merchant, day=day).first()
    if run is None:
        return Report(0, lambda offset, limit: [])
    items = (
        SettlementItem.objects.filter(run=run)
        .select_related("payment")
        .prefetch_related("payment__chargebacks")
        .order_by("payment__created_at", "payment_id")
    )
    disputes = (
        Chargeback.objects.filter(Q(settled_in=run) | Q(reversal_settled_in=run))
        .select_related("payment")
        .order_by("received_on", "pk")
    )

    def item_row(item: SettlementItem) -> Record:
        return {
            **transaction_fields(item.payment, merchant),
            "settlementStatus": "S",
            "settlementDate": f"{day:%Y%m%d}",
            "settlementCurrency": numeric_currency(run.currency),
            "settlementAmount": amount_text(item.amount, run.currency),
            "mdrAmount": amount_text(item.mdr, run.currency),
            "reservedAmount": amount_text(item.reserve, run.currency),
            "3dsFee": amount_text(item.threeds_fee, run.currency),
            "externalFee": amount_text(item.scheme_fee, run.currency),
        }

    def dispute_row(chargeback: Chargeback) -> Record:
        reversal = chargeback.reversal_settled_in_id == run.pk
        amount = chargeback.reversal_amount if reversal else chargeback.settlement_amount
        zero = amount_text(Decimal(0), run.currency)
        return {
            **transaction_fields(chargeback.payment, merchant),
            "transactionType": f"{TRANSACTION_TYPES['DB']} chargeback"
            + (" reversal" if reversal else ""),
            "settlementStatus": "S",
            "settlementDate": f"{day:%Y%m%d}",
            "settlementCurrency": numeric_currency(run.currency),
            "settlementAmount": amount_text(amount, run.currency),
            "mdrAmount": zero,
            "reservedAmount": zero,
            "3dsFee": zero,
            "externalFee": zero,
            "Note": chargeback.note[:200],
        }

    item_count = items.count()

    def page_of(offset: int, limit: int) -> Iterator[Record]:
        if offset < item_count:
            for item in items[offset : offset + limit]:
                yield item_row(item)
        rest = offset + limit - max(offset, item_count)
        if rest > 0:
            first = max(0, offset - item_count)
            for chargeback in disputes[first : first + rest]:
                yield dispute_row(chargeback)

    return Report(item_count + disputes.count(), page_of)


def chargebacks(*, merchant: Merchant, day: date) -> Report:
    """The chargebacks the merchant received on `day`, and those reversed on `day` (a credit)."""
    disputes = list(
        Chargeback.objects.filter(merchant=merchant)
        .filter(Q(received_on=day) | Q(reversed_on=day))
        .select_related("payment", "settled_in", "reversal_settled_in")
        .order_by("pk")
    )  # a merchant's disputes of one day are few
    entries = [(c, False) for c in disputes if c.received_on == day]
    entries += [(c, True) for c in disputes if c.reversed_on == day]

    def row(entry: tuple[Chargeback, bool]) -> Record:
        chargeback, reversal = entry
        payment = chargeback.payment
        run = chargeback.reversal_settled_in if reversal else chargeback.settled_in
        currency = run.currency if run else ""
        amount = chargeback.reversal_amount if reversal else chargeback.settlement_amount
        kind = TRANSACTION_TYPES["DB"] + " chargeback" + (" reversal" if reversal else "")
        return {
            "merchantId": merchant.merchant_id,
            "ARN": payment.acquirer_ref_no,
            "chargebackDate": f"{day:%Y%m%d}",
            "transactionType": kind,
            "PAN": masked_parts(payment.card_bin, payment.card_last4),
            "crdrInd": "C" if reversal else "D",
            "chargebackCurrency": numeric_currency(chargeback.currency),
            "chargebackAmount": amount_text(chargeback.amount, chargeback.currency),
            "settlementCurrency": numeric_currency(currency) if currency else "",
            "settlementAmount": amount_text(amount, currency) if currency else "",
            "reasonCode": chargeback.reason_code,
            "origMerchantOrderId": payment.merchant_transaction_id,
            "origTransactionId": payment.pk,
            "partialInd": "P" if chargeback.partial else "F",
            "2ndPresentInd": "Y" if chargeback.second_presentment else "N",
            "compliantStatus": "W" if chargeback.reversed_on else "O",
            "complaintNote": chargeback.note[:200],
        }

    return Report(len(entries), lambda offset, limit: map(row, entries[offset : offset + limit]))
