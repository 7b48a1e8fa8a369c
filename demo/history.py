"""The demo's recent past: a few payments of the demo merchant on each of the previous business
days, settled and filed, so a fresh `make run` shows money out (Settlements, Daily files,
getSettleSummary, the reports) and charts with more than one day, not empty pages.

The payments go through the payment services and the simulator like any other (approvals, a
decline, a capture of a PA, a refund, a reversal), then are dated to the business day they
stand for (created_at: the one column the demo sets by hand, because the services stamp the
time they run). Each day is then settled and filed through reconciliation's one settle-then-file
service (recon_file_generate), for the merchant's entity and its participator, as beat does after
each cut-off. Each payment has a fixed merchantTransactionId per day (demo-YYYYMMDD-NN), so a
second run makes none again and leaves the days as they are.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from core import idempotency
from core.business_day import business_day_bounds, last_business_day
from merchants.models import Entity, Merchant
from payments.models import Payment, TransactionSource
from payments.services import (
    Caller,
    Card,
    Money,
    payment_authorize,
    payment_capture,
    payment_debit,
    payment_refund,
    payment_reverse,
)
from payments.services.types import PaymentOutcome
from reconciliation.models import FeePlan, FeeRule
from reconciliation.recon.generate import recon_file_generate

DAYS = 3  # the previous business days the demo fills
VISA, MASTER, NO_FUNDS = "4200000000000000", "5454545454545454", "4000000000009995"


@dataclass(frozen=True)
class Step:
    """One payment of a day: a card payment (PA, DB) or an operation on an earlier step's."""

    kind: str
    amount: str
    card: str = VISA
    of: int | None = None  # the step (index) a CP, RF or RV refers to


# One day's payments (amounts grow a little from day to day, so the chart is not flat).
DAY = (
    Step("DB", "24.90"),
    Step("DB", "58.00", MASTER),
    Step("PA", "120.00"),
    Step("CP", "80.00", of=2),
    Step("DB", "35.50"),
    Step("RF", "10.00", of=4),
    Step("DB", "19.90", MASTER),
    Step("RV", "", of=6),  # the shopper cancelled it: no sale
    Step("DB", "42.00", NO_FUNDS),  # declined by the issuer (insufficient funds)
    Step("DB", "66.40"),
)


# What the bank charges the demo merchant (its fee plan, as bank staff keep it in the admin), so
# the settlements and reports show fees, not 0.00: MDR per brand, a 3-D Secure and a scheme fee.
FEE_RULES = (("VISA", "1.400", "0.10"), ("MASTER", "1.600", "0.10"), ("", "1.800", "0.15"))
THREEDS_FEE, SCHEME_FEE = Decimal("0.05"), Decimal("0.02")


def demo_fee_plan(merchant: Merchant) -> FeePlan:
    """The demo merchant's fee plan, made once (a plan bank staff changed is left as it is)."""
    plan, created = FeePlan.objects.get_or_create(
        merchant=merchant, defaults={"threeds_fee": THREEDS_FEE, "scheme_fee": SCHEME_FEE}
    )
    if created:
        FeeRule.objects.bulk_create(
            FeeRule(plan=plan, brand=brand, mdr_percent=Decimal(mdr), fixed=Decimal(fixed))
            for brand, mdr, fixed in FEE_RULES
        )
    return plan


def history_days(now: datetime) -> list[date]:
    """The previous business days (their cut-off has passed), oldest first."""
    last = last_business_day(now)
    return [last - timedelta(days=back) for back in range(DAYS - 1, -1, -1)]


def seed_history(*, merchant: Merchant, now: datetime | None = None) -> list[date]:
    """Pay, date, settle and file the demo's previous business days; the days, oldest first.
    Runs outside any transaction: the payment services call the network between their own."""
    now = now or timezone.now()
    days = history_days(now)
    demo_fee_plan(merchant)
    caller = Caller(
        entity=merchant.entity, entity_type="MERCHANT", merchant=merchant, terminal=None
    )
    expiry_year = str(now.year + 3)
    for number, day in enumerate(days):
        _pay_day(caller, day, Decimal(1) + Decimal(number) / 10, expiry_year)
    entities: list[Entity] = [merchant.entity, merchant.participator]
    for day in days:
        for entity in entities:
            recon_file_generate(entity=entity, day=day)
    return days


def _pay_day(caller: Caller, day: date, factor: Decimal, expiry_year: str) -> None:
    start, _ = business_day_bounds(day)
    made: list[Payment] = []
    for index, step in enumerate(DAY):
        reference = f"demo-{day:%Y%m%d}-{index:02d}"
        payment = Payment.objects.filter(
            merchant=caller.merchant, merchant_transaction_id=reference
        ).first()
        if payment is None:
            amount = (
                (Decimal(step.amount) * factor).quantize(Decimal("0.01")) if step.amount else None
            )
            original = made[step.of] if step.of is not None else None
            payment = _pay(caller, reference, step, amount, original, expiry_year).payment
        assert payment is not None
        made.append(payment)
        # Dated within the business day, in the order made (hours after the day began).
        when = start + timedelta(hours=9, minutes=37 * index)
        if payment.created_at != when:
            Payment.objects.filter(pk=payment.pk).update(created_at=when)


def _pay(
    caller: Caller,
    reference: str,
    step: Step,
    amount: Decimal | None,
    original: Payment | None,
    expiry_year: str,
) -> PaymentOutcome:
    request_hash = idempotency.fingerprint(
        {"demo": reference, "type": step.kind, "amount": str(amount), "card": step.card[-4:]}
    )
    money = Money(amount, "EUR") if amount is not None else None
    if original is None:
        assert money is not None
        card = Card(
            number=step.card, expiry_month="12", expiry_year=expiry_year, holder="Demo Shopper"
        )
        pay = payment_authorize if step.kind == "PA" else payment_debit
        return pay(
            caller=caller, reference=reference, request_hash=request_hash, money=money, card=card
        )
    if step.kind in ("CP", "RF"):
        assert money is not None
        operation = payment_capture if step.kind == "CP" else payment_refund
        return operation(
            caller=caller,
            reference=reference,
            request_hash=request_hash,
            original_id=original.pk,
            money=money,
        )
    return payment_reverse(
        caller=caller,
        reference=reference,
        request_hash=request_hash,
        original_id=original.pk,
        source=TransactionSource.CARDHOLDER,
        money=money,
    )
