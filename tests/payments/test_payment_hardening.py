"""Payment validation gaps of issue 9, item 11: digits of other scripts, zero amounts, amounts
that do not fit the currency's minor units."""

import pytest

from payments.models import Payment
from tests.conftest import code, param_errors
from tests.payments.conftest import card, mtid


def body(payer, **fields):  # type: ignore[no-untyped-def]
    return {
        "paymentType": "DB",
        "merchant.id": payer.merchant.merchant_id,
        "merchantTransactionId": mtid(),
        "amount": "10.00",
        "currency": "EUR",
        **card(),
        **fields,
    }


def refused(response, name: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.json()
    assert code(response) == "200.300.404"
    assert name in param_errors(response), param_errors(response)


@pytest.mark.parametrize(
    ("name", "value"),
    [("amount", "١٠.٠٠"), ("card.cvv", "١٢٣"), ("card.number", "٤٢٠٠٠٠٠٠٠٠٠٠٠٠٠٠")],
)
def test_a_payment_with_other_scripts_digits_is_refused(payer, name, value):
    refused(payer.client.post("/pay/v3/payments", body(payer, **{name: value}), mtid=False), name)
    assert not Payment.objects.exists()
