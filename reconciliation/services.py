"""Exchange rates: every write, and conversions.

| use case | function |
|---|---|
| set a currency's rate from a date on | `rate_create` |
| replace a rate before its effective date | `rate_update` |
| the rate in force on a date | `selectors.rate_in_force` |
| convert an amount into another currency on a date | `convert` |

Conversions go through the base currency: the buying rate for what the bank buys from a
merchant (sales), the selling rate for what it sells (refunds, credits, chargebacks). Amounts
are Decimal throughout; the result is rounded half-up to the target currency's minor units.
"""

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.context import get_ndc
from core.errors import ApplicationError, NotFound, ParameterError
from core.fields.codes import minor_units
from merchants import webhooks
from payments.selectors import payment_by_reference
from payments.services.lock_objects import payment_lock

from . import results
from .lock_objects import chargeback_lock, rate_lock
from .models import Chargeback, ExchangeRate, ExchangeRateChange
from .selectors import rate_in_force

BUY, SELL = "buy", "sell"


def _check(currency: str, buying: Decimal, selling: Decimal) -> None:
    problems = []
    if currency == settings.EXCHANGE_BASE_CURRENCY:
        problems.append(
            ("exchangeRate.currency", currency, "is the base currency: its rate is always 1")
        )
    for name, value in (("exchangeRate.buyingRate", buying), ("exchangeRate.sellingRate", selling)):
        if value <= 0:
            problems.append((name, str(value), "must be greater than 0"))
    if buying > selling:
        problems.append(("exchangeRate.buyingRate", str(buying), "may not be above sellingRate"))
    if problems:
        raise ParameterError(problems)


def rate_create(
    *, currency: str, effective_date: date, buying: Decimal, selling: Decimal, actor: str
) -> ExchangeRate:
    """A currency's rate from `effective_date` on; 700.550.100 when that day has one."""
    _check(currency, buying, selling)
    try:
        with transaction.atomic():
            rate = ExchangeRate.objects.create(
                currency=currency,
                effective_date=effective_date,
                buying_rate=buying,
                selling_rate=selling,
                created_by=actor,
            )
            _record(rate, actor)
    except IntegrityError:
        raise ApplicationError(results.RATE_EXISTS) from None
    return rate


def rate_update(
    *,
    currency: str,
    effective_date: date,
    buying: Decimal,
    selling: Decimal,
    actor: str,
    today: date | None = None,
) -> ExchangeRate:
    """Replace a rate whose effective date has not come (700.550.110 otherwise; 404 when the
    day has none)."""
    _check(currency, buying, selling)
    day = today or timezone.localdate()
    with transaction.atomic():
        rate = rate_lock(currency=currency, effective_date=effective_date)
        if rate is None:
            raise NotFound(results.RATE_NOT_FOUND)
        if rate.effective_date <= day:
            raise ApplicationError(results.RATE_IN_FORCE)
        rate.buying_rate, rate.selling_rate = buying, selling
        rate.save(update_fields=["buying_rate", "selling_rate", "updated_at"])
        _record(rate, actor)
    return rate


def _record(rate: ExchangeRate, actor: str) -> None:
    ExchangeRateChange.objects.create(
        rate=rate,
        buying_rate=rate.buying_rate,
        selling_rate=rate.selling_rate,
        changed_by=actor,
        ndc=get_ndc(),
    )


def convert(amount: Decimal, *, source: str, target: str, on: date, side: str) -> Decimal:
    """`amount` of `source` in `target` on the date `on`, through the base currency: the buying
    rate when the bank buys (BUY: sales), the selling rate when it sells (SELL: refunds,
    credits, chargebacks). 404 (700.550.120) when a currency has no rate in force."""
    base = settings.EXCHANGE_BASE_CURRENCY
    if source == target:
        return amount
    in_base = amount if source == base else amount * _rate(source, on, side)
    result = in_base if target == base else in_base / _rate(target, on, side)
    exponent = minor_units(target) or 0
    return result.quantize(Decimal(1).scaleb(-exponent), rounding=ROUND_HALF_UP)


def _rate(currency: str, on: date, side: str) -> Decimal:
    rate = rate_in_force(currency=currency, on=on)
    return rate.buying_rate if side == BUY else rate.selling_rate


def chargeback_record(
    *,
    payment_ref: str,
    reason_code: str,
    amount: Decimal,
    currency: str,
    received_on: date,
    actor: str,
    second_presentment: bool = False,
    note: str = "",
    reference: str = "",
) -> Chargeback:
    """Record a chargeback of a payment found by its id or its ARN; debits the merchant's
    settlement of `received_on`. The payment is locked (payments' lock) while the amount left
    is counted, so two chargebacks of one sale cannot both take its last part.

    Refused, nothing written: 700.550.200 for no such payment; 700.550.210 unless it is a
    successful sale (DB, CP) not made in test mode; 700.550.220 in another currency;
    700.550.230 unless the amount is above 0 and at most what is left once reversals, refunds
    and open chargebacks are taken off."""
    found = payment_by_reference(reference=payment_ref)
    if found is None:
        raise NotFound(
            results.CHARGEBACK_PAYMENT_NOT_FOUND, f"no payment with the id or ARN {payment_ref}"
        )
    with transaction.atomic():
        payment = payment_lock(found.pk)  # one at a time
        if payment.payment_type not in ("DB", "CP") or not payment.successful:
            raise ApplicationError(
                results.CHARGEBACK_NOT_A_SALE,
                "only a successful sale (DB or CP) can be charged back",
            )
        if payment.test_mode:
            raise ApplicationError(
                results.CHARGEBACK_NOT_A_SALE,
                "a payment made in connector test mode is never settled",
            )
        if currency != payment.currency:
            raise ApplicationError(
                results.CHARGEBACK_CURRENCY,
                f"the payment is in {payment.currency}, not {currency}",
            )
        sale = (payment.amount or Decimal(0)) - payment.reversed_amount - payment.refunded_amount
        open_ = sum(
            (c.amount for c in payment.chargebacks.filter(reversed_on__isnull=True)), Decimal(0)
        )
        left = (sale - open_).quantize(Decimal(1).scaleb(-(minor_units(currency) or 0)))
        if amount <= 0 or amount > left:
            raise ApplicationError(
                results.CHARGEBACK_AMOUNT,
                f"the amount must be more than 0 and at most {left} {payment.currency} "
                f"(the sale less what was reversed, refunded or charged back already)",
            )
        chargeback = Chargeback.objects.create(
            payment=payment,
            merchant_id=payment.merchant_id,
            reason_code=reason_code,
            amount=amount,
            currency=currency,
            partial=amount + open_ < (payment.amount or Decimal(0)),
            second_presentment=second_presentment,
            note=note,
            reference=reference,
            received_on=received_on,
            recorded_by=actor,
        )
        _tell_webhooks(chargeback, "CREATED")
        return chargeback


def chargeback_reverse(*, chargeback_id: int, reversed_on: date, actor: str) -> Chargeback:
    """The merchant won the dispute: credits its settlement of `reversed_on`. Refused with
    700.550.240 when the chargeback is reversed already."""
    with transaction.atomic():
        chargeback = chargeback_lock(chargeback_id)
        if chargeback.reversed_on is not None:
            raise ApplicationError(
                results.CHARGEBACK_REVERSED, "this chargeback is reversed already"
            )
        chargeback.reversed_on = reversed_on
        chargeback.save(update_fields=["reversed_on"])
        _tell_webhooks(chargeback, "UPDATED")
    return chargeback


def _tell_webhooks(chargeback: Chargeback, action: str) -> None:
    """A chargeback to the merchant's webhooks that take chargebacks (in its transaction)."""
    payment = chargeback.payment
    webhooks.emit(
        merchant=payment.merchant,
        kind="CHARGEBACK",
        action=action,
        subject=str(chargeback.pk),
        payload={
            "id": str(chargeback.pk),
            "paymentId": payment.pk,
            "merchantTransactionId": payment.merchant_transaction_id,
            "ARN": payment.acquirer_ref_no,
            "reasonCode": chargeback.reason_code,
            "amount": f"{chargeback.amount}",
            "currency": chargeback.currency,
            "receivedOn": f"{chargeback.received_on:%Y-%m-%d}",
            "partial": chargeback.partial,
            "secondPresentment": chargeback.second_presentment,
            "status": "REVERSED" if chargeback.reversed_on else "OPEN",
            "reversedOn": f"{chargeback.reversed_on:%Y-%m-%d}" if chargeback.reversed_on else "",
        },
    )
