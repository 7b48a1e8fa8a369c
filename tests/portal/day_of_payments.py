"""A merchant's day that shows every word and mark the portal and the admin speak: a debit
refunded in full and one in part, a reversed preauthorization, a captured one, a decline, a
payment waiting for 3-D Secure, a payment in yen, a scheme token, and the day settled and filed.
Made through the API (Django's test client, in-process) as a merchant would make it."""

from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from tests.conftest import SpecClient, code
from tests.payments.conftest import MASTER, NO_FUNDS, Payer
from tests.payments.threeds_helpers import threeds_fields

VISA_3DS = "4200000000000000"


@dataclass
class Day:
    merchant: Any
    ids: dict[str, str] = field(default_factory=dict)
    tur: str = ""


def _ok(response: Any) -> str:
    assert code(response) in ("000.000.000", "000.000.100"), response.json()
    return str(response.json()["id"])


def a_day_of_payments(merchant: Any, *, token: str = "", settle: bool = True) -> Day:
    """The payments (and a token) of one day for `merchant`, which must be enrolled in 3-D
    Secure for the pending payment; settled and filed when `settle`. `token` is the merchant's
    API token (a factory's merchant carries it as `entity.plain_token`)."""
    token = token or merchant.entity.plain_token
    client = SpecClient(token, merchant.entity.entity_id, "MERCHANT")
    payer = Payer(client, merchant)
    day = Day(merchant)
    ids = day.ids
    ids["refunded"] = _ok(payer.pay("DB", "100.00"))
    _ok(payer.ref("RF", ids["refunded"], "100.00"))
    ids["partly_refunded"] = _ok(payer.pay("DB", "80.00", number=MASTER))
    _ok(payer.ref("RF", ids["partly_refunded"], "20.00"))
    ids["reversed"] = _ok(payer.pay("PA", "40.00"))
    _ok(payer.ref("RV", ids["reversed"], amount=None, transactionSource="CARDHOLDER"))
    ids["captured"] = _ok(payer.pay("PA", "60.00"))
    _ok(payer.ref("CP", ids["captured"], "60.00"))
    declined = payer.pay("DB", "10.00", number=NO_FUNDS)
    assert code(declined) == "800.100.203", declined.json()
    ids["declined"] = declined.json()["id"]
    pending = payer.pay("DB", "25.00", number=VISA_3DS, **threeds_fields())
    assert code(pending).startswith("000.200."), pending.json()
    ids["pending"] = pending.json()["id"]
    ids["yen"] = _ok(payer.pay("DB", "1500.00", currency="JPY"))
    token = client.post(
        "/pay/v3/tokenize",
        {
            "merchant.id": merchant.merchant_id,
            "token.Type": "CT",
            "card.number": MASTER,
            "card.holder": "Jane Doe",
            "card.expiryMonth": "12",
            "card.expiryYear": "2034",
        },
    )
    assert code(token) == "000.000.100", token.json()
    day.tur = token.json()["tokenUniqueReference"]
    if settle:
        settle_today(merchant)
    return day


def settle_today(merchant: Any, *, fees: bool = False) -> None:
    """Settle the merchant's day and make its daily file (a yen rate in force first); `fees`
    gives it a fee plan first (an MDR of 1.75 % + 0.20, a 3-D Secure fee of 0.05, a reserve of
    10 %), so the run's figures carry fractions."""
    from reconciliation import services
    from reconciliation.models import ExchangeRate, FeePlan, FeeRule
    from reconciliation.recon.generate import produce
    from reconciliation.settlement import settlement_run

    today = timezone.now().date()
    if not ExchangeRate.objects.filter(currency="JPY").exists():
        services.rate_create(
            currency="JPY",
            effective_date=today - timedelta(days=1),
            buying=Decimal("0.00600"),
            selling=Decimal("0.00600"),
            actor="test",
        )
    if fees:
        plan = FeePlan.objects.create(
            merchant=merchant,
            threeds_fee=Decimal("0.05"),
            reserve_percent=Decimal("10"),
            reserve_days=7,
        )
        FeeRule.objects.create(plan=plan, mdr_percent=Decimal("1.75"), fixed=Decimal("0.20"))
    settlement_run(merchant=merchant, day=today)
    produce(merchant.entity, today, production=True)
