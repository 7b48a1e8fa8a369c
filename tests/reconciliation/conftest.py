"""Fixtures of reconciliation: a fee plan, and a business day of payments whose settlement is
worked out by hand in test_settlement.py."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from reconciliation import services
from reconciliation.models import FeePlan, FeeRule
from tests.conftest import code
from tests.payments.conftest import MASTER, NO_FUNDS, enrolled, payer  # noqa: F401 - shared


@pytest.fixture
def plan(merchant):
    fee_plan = FeePlan.objects.create(
        merchant=merchant,
        threeds_fee=Decimal("0.05"),
        scheme_fee=Decimal("0.02"),
        reserve_percent=Decimal("10"),
        reserve_days=7,
    )
    FeeRule.objects.create(
        plan=fee_plan,
        brand="VISA",
        payment_type="DB",
        mdr_percent=Decimal("1.5"),
        fixed=Decimal("0.10"),
    )
    FeeRule.objects.create(plan=fee_plan, mdr_percent=Decimal("2.0"), fixed=Decimal("0.20"))
    return fee_plan


@pytest.fixture
def day_of_payments(payer, plan):  # noqa: F811 - the shared fixture
    today = timezone.now().date()
    services.rate_create(
        currency="USD",
        effective_date=today - timedelta(days=1),
        buying=Decimal("0.90000"),
        selling=Decimal("0.95000"),
        actor="t",
    )
    ids = {}
    ids["visa"] = payer.pay("DB", "100.00").json()["id"]  # sale 100.00, fee 1.50 + 0.10 + 0.02
    ids["master"] = payer.pay("DB", "50.00", number=MASTER).json()["id"]  # 1.00 + 0.20 + 0.02
    assert code(payer.ref("RF", ids["visa"], "20.00")) == "000.000.000"  # refund, fee 0.02
    reversed_db = payer.pay("DB", "30.00").json()["id"]
    assert code(payer.ref("RV", reversed_db, None, transactionSource="CARDHOLDER")) == "000.000.000"
    payer.pay("CD", "5.00")  # credit 5.00, fee 0.02
    pa = payer.pay("PA", "40.00").json()["id"]
    assert code(payer.ref("CP", pa, "25.00")) == "000.000.000"  # sale 25.00: 0.50 + 0.20 + 0.02
    payer.pay("DB", "100.00", currency="USD")  # 90.00 EUR: 1.35 + 0.10 + 0.02
    payer.pay("DB", "10.00", number=NO_FUNDS)  # declined: not settled
    return today
