"""merchants.selectors.AMOUNT_LIMIT_SQL, the payment's limit read as plain SQL, says what the ORM
says of the model: the lower of the merchant's and the platform's limit in a currency, and
nothing for another currency or another merchant. It fails when the model's table or columns
change and the statement does not."""

from decimal import Decimal

import pytest
from django.db.models import Min, Q

from merchants.models import AmountLimit
from merchants.selectors import amount_limit_for
from tests.factories import MerchantFactory

pytestmark = pytest.mark.django_db


def orm(merchant, currency):  # type: ignore[no-untyped-def]
    rows = AmountLimit.objects.filter(Q(merchant=merchant) | Q(merchant=None), currency=currency)
    return rows.aggregate(lowest=Min("max_amount"))["lowest"]


def test_the_statement_agrees_with_the_model(participator):
    AmountLimit.objects.all().delete()
    mine, other = (
        MerchantFactory(participator=participator),
        MerchantFactory(participator=participator),
    )
    AmountLimit.objects.create(merchant=None, currency="EUR", max_amount=Decimal("500.00"))
    AmountLimit.objects.create(merchant=mine, currency="EUR", max_amount=Decimal("120.50"))
    AmountLimit.objects.create(merchant=other, currency="EUR", max_amount=Decimal("10.00"))
    AmountLimit.objects.create(merchant=mine, currency="JPY", max_amount=Decimal("9000.00"))
    cases = [(mine, "EUR"), (other, "EUR"), (mine, "JPY"), (other, "JPY"), (mine, "USD")]
    for merchant, currency in cases:
        assert amount_limit_for(merchant=merchant, currency=currency) == orm(merchant, currency)
    assert amount_limit_for(merchant=mine, currency="EUR") == Decimal("120.50")
    assert amount_limit_for(merchant=mine, currency="USD") is None
