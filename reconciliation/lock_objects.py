"""Row locks of reconciliation, in one place: rows are re-read here with `select_for_update()`
inside the caller's transaction. A settlement run locks its merchant first (merchants'
`merchant_lock`: one run of a merchant at a time), then the chargebacks it counts; a payment a
chargeback names is locked by payments' `payment_lock`."""

from datetime import date

from django.db.models import Q

from core.lookups import one

from .models import Chargeback, ExchangeRate, SettlementRun


def rate_lock(*, currency: str, effective_date: date) -> ExchangeRate | None:
    return one(
        ExchangeRate.objects.select_for_update().filter(
            currency=currency, effective_date=effective_date
        )
    )


def chargeback_lock(pk: int) -> Chargeback:
    return Chargeback.objects.select_for_update().get(pk=pk)


def chargebacks_received_lock(*, run: SettlementRun, day: date) -> list[Chargeback]:
    """The run's merchant's chargebacks received on `day` that no other run counted, locked."""
    return list(
        Chargeback.objects.select_for_update()
        .filter(merchant=run.merchant, received_on=day)
        .filter(Q(settled_in__isnull=True) | Q(settled_in=run))
    )


def chargebacks_won_lock(*, run: SettlementRun, day: date) -> list[Chargeback]:
    """The run's merchant's chargebacks reversed on `day` whose reversal no other run counted,
    locked."""
    return list(
        Chargeback.objects.select_for_update()
        .filter(merchant=run.merchant, reversed_on=day)
        .filter(Q(reversal_settled_in__isnull=True) | Q(reversal_settled_in=run))
    )
