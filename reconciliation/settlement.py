"""Merchant settlement: one run per merchant and business day.

A run takes the merchant's successful, answered payments of the business day that no run has
settled (a payment is settled once: SettlementItem.payment is unique) and that were not made in
connector test mode: sales (payments.selectors.payment_sales: DB and CP less what was reversed
by the day's end, the definition the portal and the dashboard use too), refunds (RF, PR) and
credits (CD), each converted into the merchant's settlement currency at the rate in force on
the day (the buying rate for sales, the selling rate for refunds and credits). Fees per item:
the MDR of the fee plan's rule for the payment's brand and type (the most specific rule: brand
and type, then type, then brand, then any) as a percent plus a fixed amount, the 3-D Secure fee
when the payment went through our 3-D Secure, and the scheme fee. Chargebacks received on the
day debit it, their reversals on the day credit it. The rolling reserve holds a percent of the
day's sales and releases what the run `reserve_days` earlier held. Net = sales - refunds -
credits - chargebacks + their reversals - fees - reserve held + reserve released. Re-running a
day recomputes it in one transaction, with the same figures.

A run of a business day that has not ended (its cut-off is still to come) is provisional: what
the rest of the day brings is missing. `settle` refuses such a day unless asked
(--before-cutoff), the portal and the admin mark the run, and the run of the day after its
cut-off (beat's, or any later re-run) replaces it and is final.

The business day and its cut-off are core.business_day's (SETTLEMENT_TIME_ZONE and
SETTLEMENT_CUTOFF), the one definition the portal's and the dashboard's "Today" use too.
"""

import logging
from collections.abc import Iterable, Iterator
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core.business_day import business_day_bounds
from core.errors import ApplicationError
from core.fields.codes import minor_units
from merchants.lock_objects import merchant_lock
from merchants.models import Merchant
from payments.models import Payment, PaymentState, PaymentType
from payments.selectors import merchants_with_payments, payment_sales, payments_made

from .lock_objects import chargebacks_received_lock, chargebacks_won_lock
from .models import FeePlan, FeeRule, SettlementItem, SettlementRun
from .services import BUY, SELL, convert

logger = logging.getLogger("reconciliation.settlement")
SALE, REFUND, CREDIT = "SALE", "REFUND", "CREDIT"
KINDS = {
    PaymentType.DB: SALE,
    PaymentType.CP: SALE,
    PaymentType.RF: REFUND,
    PaymentType.PR: REFUND,
    PaymentType.CD: CREDIT,
}


def _round(amount: Decimal, currency: str) -> Decimal:
    return amount.quantize(Decimal(1).scaleb(-(minor_units(currency) or 0)), ROUND_HALF_UP)


def _rule(rules: list[FeeRule], brand: str, payment_type: str) -> FeeRule | None:
    for wanted in ((brand, payment_type), ("", payment_type), (brand, ""), ("", "")):
        for rule in rules:
            if (rule.brand, rule.payment_type) == wanted:
                return rule
    return None


def day_ended(day: date, now: datetime | None = None) -> bool:
    """Whether the business day's cut-off has passed."""
    return business_day_bounds(day)[1] <= (now or timezone.now())


def settlement_run(*, merchant: Merchant, day: date, now: datetime | None = None) -> SettlementRun:
    """Settle (or settle again) `merchant`'s business day `day`; provisional while the day has
    not ended at `now` (default: the clock's). Locks the merchant's row (one run at a time);
    replaces the run's items."""
    currency = merchant.settlement_currency or settings.EXCHANGE_BASE_CURRENCY
    start, end = business_day_bounds(day)
    plan = FeePlan.objects.filter(merchant=merchant).prefetch_related("rules").first()
    rules = list(plan.rules.all()) if plan else []
    with transaction.atomic():
        merchant_lock(merchant.pk)  # one run at a time
        run, _ = SettlementRun.objects.get_or_create(
            merchant=merchant, day=day, defaults={"currency": currency}
        )
        run.items.all().delete()  # a re-run recomputes the day
        run.currency = currency
        run.provisional = not day_ended(day, now)
        counts = {SALE: 0, REFUND: 0, CREDIT: 0}
        sums = {SALE: Decimal(0), REFUND: Decimal(0), CREDIT: Decimal(0)}
        fees = reserve = Decimal(0)
        items = []
        for payment, kind, amount in _settleable(merchant, start, end):
            side = BUY if kind == SALE else SELL
            converted = convert(amount, source=payment.currency, target=currency, on=day, side=side)
            item = SettlementItem(run=run, payment=payment, kind=kind, amount=converted)
            if plan is not None:
                rule = _rule(rules, payment.payment_brand, payment.payment_type)
                if rule is not None and kind == SALE:
                    item.mdr = _round(converted * rule.mdr_percent / 100 + rule.fixed, currency)
                item.threeds_fee = plan.threeds_fee if payment.threeds_started else Decimal(0)
                item.scheme_fee = plan.scheme_fee
                if kind == SALE:
                    item.reserve = _round(converted * plan.reserve_percent / 100, currency)
            item.fee = item.mdr + item.threeds_fee + item.scheme_fee
            items.append(item)
            counts[kind] += 1
            sums[kind] += converted
            fees += item.fee
            reserve += item.reserve
        SettlementItem.objects.bulk_create(items)
        run.sales_count, run.sales_amount = counts[SALE], sums[SALE]
        run.refunds_count, run.refunds_amount = counts[REFUND], sums[REFUND]
        run.credits_count, run.credits_amount = counts[CREDIT], sums[CREDIT]
        run.fees_amount = fees
        _chargebacks(run, day, currency)
        run.reserve_held = reserve
        run.reserve_released = Decimal(0)
        if plan is not None and plan.reserve_days:
            earlier = SettlementRun.objects.filter(
                merchant=merchant, day=day - timedelta(days=plan.reserve_days)
            ).first()
            run.reserve_released = earlier.reserve_held if earlier else Decimal(0)
        run.net_amount = (
            run.sales_amount
            - run.refunds_amount
            - run.credits_amount
            - run.chargebacks_amount
            + run.chargeback_reversals_amount
            - run.fees_amount
            - run.reserve_held
            + run.reserve_released
        )
        run.save()
    return run


def _settleable(
    merchant: Merchant, start: datetime, end: datetime
) -> Iterator[tuple[Payment, str, Decimal]]:
    """(payment, kind, amount in its currency) of what the business day [start, end) settles,
    of the payments no run has settled: its sales as payments.selectors defines them (approved
    DB and CP less the reversals made by the day's end; the portal and the dashboard count the
    same), its successful refunds and credits not made in test mode, and the reversals of debits
    of an earlier day (settled already, or to be settled without them) as refunds."""
    day = payments_made(merchant=merchant, start=start, end=end).filter(
        settlement_item__isnull=True
    )
    found: list[tuple[Payment, str, Decimal]] = [
        (sale, SALE, sale.sale_amount)  # type: ignore[attr-defined] # annotated
        for sale in payment_sales(day, until=end)
    ]
    others = day.filter(
        state=PaymentState.DONE,
        successful=True,
        test_mode=False,
        payment_type__in=[PaymentType.RF, PaymentType.PR, PaymentType.CD, PaymentType.RV],
    ).select_related("referenced")
    for payment in others:
        amount = payment.amount or Decimal(0)
        if payment.payment_type == PaymentType.RV:
            original = payment.referenced
            if original is None or original.payment_type != PaymentType.DB:
                continue
            if original.created_at >= start:
                continue  # taken off its debit, a sale of the same day
            found.append((payment, REFUND, amount))
        elif amount > 0:
            found.append((payment, KINDS[PaymentType(payment.payment_type)], amount))
    found.sort(key=lambda entry: (entry[0].created_at, entry[0].pk))
    yield from found


def _chargebacks(run: SettlementRun, day: date, currency: str) -> None:
    """Chargebacks received on `day` debit the run, their reversals on `day` credit it (at the
    selling and buying rate); each is counted in one run only."""
    received = chargebacks_received_lock(run=run, day=day)
    run.chargebacks_count, run.chargebacks_amount = 0, Decimal(0)
    for chargeback in received:
        run.chargebacks_count += 1
        chargeback.settlement_amount = convert(
            chargeback.amount, source=chargeback.currency, target=currency, on=day, side=SELL
        )
        run.chargebacks_amount += chargeback.settlement_amount
        chargeback.settled_in = run
        chargeback.save(update_fields=["settled_in", "settlement_amount"])
    run.chargeback_reversals_amount = Decimal(0)
    won = chargebacks_won_lock(run=run, day=day)
    for chargeback in won:
        chargeback.reversal_amount = convert(
            chargeback.amount, source=chargeback.currency, target=currency, on=day, side=BUY
        )
        run.chargeback_reversals_amount += chargeback.reversal_amount
        chargeback.reversal_settled_in = run
        chargeback.save(update_fields=["reversal_settled_in", "reversal_amount"])


def settle_day(*, day: date, failures: list[tuple[str, str]] | None = None) -> list[SettlementRun]:
    """Every merchant that had payments that day, settled for `day` (beat runs it after the
    cut-off for the day that ended; the command and the admin for any day). A merchant that
    cannot be settled is listed in `failures` as (merchant.id, why)."""
    start, end = business_day_bounds(day)
    return _each(merchants_with_payments(start=start, end=end), day, failures)


def _each(
    merchants: Iterable[Merchant], day: date, failures: list[tuple[str, str]] | None
) -> list[SettlementRun]:
    """Settle each merchant; one that cannot be settled (a currency without an exchange rate)
    is logged and listed in `failures`, and the others are settled all the same."""
    runs = []
    for merchant in merchants:
        try:
            runs.append(settlement_run(merchant=merchant, day=day))
        except ApplicationError as exc:
            logger.error(
                "merchant %s not settled for %s: %s", merchant.merchant_id, day, exc.description
            )
            if failures is not None:
                failures.append((merchant.merchant_id, exc.description))
    return runs


def settle_unsettled(
    merchant_pks: list[int], day: date, failures: list[tuple[str, str]] | None = None
) -> list[SettlementRun]:
    """Settle `day` for those of the merchants that had payments and have no final run of it
    yet (none, or a provisional one made before the day ended): the daily file wants the
    reconciliation amounts."""
    start, end = business_day_bounds(day)
    final = SettlementRun.objects.filter(merchant=OuterRef("pk"), day=day, provisional=False)
    waiting = merchants_with_payments(start=start, end=end, among=merchant_pks).exclude(
        Exists(final)
    )
    return _each(waiting, day, failures)
