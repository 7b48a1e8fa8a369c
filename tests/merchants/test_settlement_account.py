"""The merchant's settlement data: merchant.bankAccount.* (IBAN and BIC checked with
python-stdnum) and merchant.settlementCurrency on create, update and inquiry; payment answers
carry merchant.bankAccount.*."""

import pytest

from merchants.models import Merchant
from tests.conftest import code, param_errors
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db

ACCOUNT = {
    "merchant.bankAccount.holder": "Acme Trading Ltd",
    "merchant.bankAccount.number": "DE89370400440532013000",
    "merchant.bankAccount.bic": "COBADEFFXXX",
    "merchant.bankAccount.country": "DE",
    "merchant.settlementCurrency": "EUR",
}


def update(api, merchant, **fields):
    return api.post("/pay/v3/merchant/update/", {"merchant.id": merchant.merchant_id, **fields})


def test_the_settlement_account_is_stored_and_answered(api, merchant):
    response = update(api, merchant, **ACCOUNT)
    assert response.status_code == 200, response.json()
    stored = Merchant.objects.get(pk=merchant.pk)
    assert (stored.bank_account_number, stored.bank_account_bic) == (
        "DE89370400440532013000",
        "COBADEFFXXX",
    )
    assert stored.settlement_currency == "EUR"
    inquiry = api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id}).json()
    assert inquiry["merchant"]["bankAccount"] == {
        "holder": "Acme Trading Ltd",
        "number": "DE89370400440532013000",
        "bic": "COBADEFFXXX",
        "country": "DE",
    }
    assert inquiry["merchant"]["settlementCurrency"] == "EUR"


def test_payment_answers_carry_the_bank_account(api, merchant, merchant_api):
    update(api, merchant, **ACCOUNT)
    merchant.refresh_from_db()
    paid = Payer(merchant_api, merchant).pay("DB")
    assert code(paid) == "000.000.000"
    assert paid.json()["merchant"]["bankAccount"]["number"] == "DE89370400440532013000"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"merchant.bankAccount.number": "DE89370400440532013001"}, "merchant.bankAccount.number"),
        ({"merchant.bankAccount.country": "FR"}, "merchant.bankAccount.number"),
        ({"merchant.bankAccount.bic": "COBAXXFF"}, "merchant.bankAccount.bic"),
        ({"merchant.bankAccount.bic": "BNPAFRPP"}, "merchant.bankAccount.bic"),
        ({"merchant.bankAccount.holder": None}, "merchant.bankAccount.holder"),
        ({"merchant.bankAccount.number": "DE89 3704"}, "merchant.bankAccount.number"),
        ({"merchant.settlementCurrency": "EURO"}, "merchant.settlementCurrency"),
    ],
)
def test_a_bad_account_is_refused_with_nothing_written(api, merchant, fields, named):
    body = {k: v for k, v in {**ACCOUNT, **fields}.items() if v is not None}
    response = update(api, merchant, **body)
    assert response.status_code == 400 and named in param_errors(response), response.json()
    assert Merchant.objects.get(pk=merchant.pk).bank_account_number == ""


def test_an_account_number_outside_iban_countries(api, merchant):
    response = update(
        api,
        merchant,
        **{
            "merchant.bankAccount.holder": "Acme Inc",
            "merchant.bankAccount.number": "000123456789",
            "merchant.bankAccount.country": "US",
            "merchant.settlementCurrency": "USD",
        },
    )
    assert response.status_code == 200, response.json()
