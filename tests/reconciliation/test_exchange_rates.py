"""Exchange rates: create, update before the effective date, the rate in force, conversions
through the base currency; every refusal on HTTP status, result.code and the stored rows."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from core.errors import ApplicationError
from reconciliation import services
from reconciliation.models import ExchangeRate, ExchangeRateChange
from tests.conftest import code, param_errors

pytestmark = pytest.mark.django_db

CREATE, UPDATE, INQUIRY = (
    "/v3/exchangerate/create",
    "/v3/exchangerate/update",
    "/v3/exchangerate/Inquiry",
)


def rate(
    api, path=CREATE, currency="USD", day="20261124", buying="0.91250", selling="0.93750", **extra
):
    fields = {
        "exchangeRate.currency": currency,
        "exchangeRate.effectiveDate": day,
        "exchangeRate.buyingRate": buying,
        "exchangeRate.sellingRate": selling,
        **extra,
    }
    return api.post(path, {k: v for k, v in fields.items() if v is not None})


def test_a_participator_sets_a_rate(api):
    response = rate(api)
    assert response.status_code == 200 and code(response) == "000.000.100"
    assert response.json()["exchangeRate"] == {
        "currency": "USD",
        "effectiveDate": "20261124",
        "buyingRate": "0.91250",
        "sellingRate": "0.93750",
        "baseCurrency": "EUR",
    }
    stored = ExchangeRate.objects.get()
    assert (stored.effective_date, stored.buying_rate) == (date(2026, 11, 24), Decimal("0.91250"))
    assert ExchangeRateChange.objects.get(rate=stored).changed_by.startswith("entity:")


def test_the_spec_spelling_of_the_buying_rate_is_taken(api):
    response = api.post(
        CREATE,
        {
            "exchangeRate.currency": "JPY",
            "exchangeRate.effectiveDate": "20261124",
            "exchangRate.buyingRate": "0.00610",
            "exchangeRate.sellingRate": "0.00630",
        },
    )
    assert code(response) == "000.000.100"
    assert ExchangeRate.objects.get().buying_rate == Decimal("0.00610")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"buying": "0.00000"}, "exchangeRate.buyingRate"),
        ({"buying": "0.95", "selling": "0.93"}, "exchangeRate.buyingRate"),
        ({"buying": "123.5"}, "exchangeRate.buyingRate"),
        ({"selling": "0.123456"}, "exchangeRate.sellingRate"),
        ({"currency": "EUR"}, "exchangeRate.currency"),
        ({"currency": "usd"}, "exchangeRate.currency"),
        ({"currency": "XYZ"}, "exchangeRate.currency"),
        ({"day": "2026-11-24"}, "exchangeRate.effectiveDate"),
        ({"day": "20261131"}, "exchangeRate.effectiveDate"),
        ({"selling": None}, "exchangeRate.sellingRate"),
    ],
)
def test_bad_rates_are_refused_with_nothing_written(api, fields, named):
    response = rate(api, **fields)
    assert response.status_code == 400 and named in param_errors(response)
    assert not ExchangeRate.objects.exists()


def test_a_second_rate_for_the_same_day_is_refused(api):
    rate(api)
    response = rate(api, buying="0.90000")
    assert response.status_code == 200 and code(response) == "700.550.100"
    assert ExchangeRate.objects.get().buying_rate == Decimal("0.91250")


def test_merchants_may_not_set_rates(merchant_api):
    response = rate(merchant_api)
    assert response.status_code == 403 and not ExchangeRate.objects.exists()


def test_a_future_rate_may_be_replaced_a_current_one_never(api):
    future = (timezone.localdate() + timedelta(days=10)).strftime("%Y%m%d")
    today = timezone.localdate().strftime("%Y%m%d")
    rate(api, day=future)
    rate(api, day=today)
    replaced = rate(api, UPDATE, day=future, buying="0.92000", selling="0.94000")
    assert (
        code(replaced) == "000.000.100"
        and replaced.json()["exchangeRate"]["buyingRate"] == "0.92000"
    )
    assert (
        ExchangeRateChange.objects.filter(rate__effective_date__gt=timezone.localdate()).count()
        == 2
    )
    refused = rate(api, UPDATE, day=today, buying="0.92000", selling="0.94000")
    assert refused.status_code == 200 and code(refused) == "700.550.110"
    missing = rate(api, UPDATE, day="20991231")
    assert missing.status_code == 404 and code(missing) == "700.550.120"


def test_the_inquiry_answers_the_rate_in_force(api, merchant_api):
    rate(api, day="20261101", buying="0.90000", selling="0.92000")
    rate(api, day="20261115", buying="0.91000", selling="0.93000")
    for day, expected in (
        ("20261101", "0.90000"),
        ("20261114", "0.90000"),
        ("20261120", "0.91000"),
    ):
        response = merchant_api.get(
            INQUIRY, {"exchangeRate.currency": "USD", "exchangeRate.effectiveDate": day}
        )
        assert code(response) == "000.000.100"
        assert response.json()["exchangeRate"]["buyingRate"] == expected
    before = merchant_api.get(
        INQUIRY, {"exchangeRate.currency": "USD", "exchangeRate.effectiveDate": "20261031"}
    )
    assert before.status_code == 404 and code(before) == "700.550.120"


def test_conversions_cross_through_the_base_currency():
    actor = "test"
    on = date(2026, 11, 24)
    services.rate_create(
        currency="USD",
        effective_date=on,
        buying=Decimal("0.90000"),
        selling=Decimal("0.95000"),
        actor=actor,
    )
    services.rate_create(
        currency="JPY",
        effective_date=on,
        buying=Decimal("0.00600"),
        selling=Decimal("0.00650"),
        actor=actor,
    )
    services.rate_create(
        currency="BHD",
        effective_date=on,
        buying=Decimal("2.40000"),
        selling=Decimal("2.50000"),
        actor=actor,
    )
    convert = services.convert
    # Sales are bought at the buying rate; refunds sold at the selling rate.
    assert convert(Decimal("100.00"), source="USD", target="EUR", on=on, side="buy") == Decimal(
        "90.00"
    )
    assert convert(Decimal("100.00"), source="USD", target="EUR", on=on, side="sell") == Decimal(
        "95.00"
    )
    assert convert(Decimal("90.00"), source="EUR", target="USD", on=on, side="buy") == Decimal(
        "100.00"
    )
    # USD -> JPY through EUR: 100 x 0.9 / 0.006 = 15000 yen (no minor unit)
    assert convert(Decimal("100.00"), source="USD", target="JPY", on=on, side="buy") == Decimal(
        "15000"
    )
    # JPY -> BHD: 1000 x 0.006 / 2.4 = 2.5 dinars (three decimals)
    assert convert(Decimal("1000"), source="JPY", target="BHD", on=on, side="buy") == Decimal(
        "2.500"
    )
    assert convert(Decimal("12.34"), source="EUR", target="EUR", on=on, side="buy") == Decimal(
        "12.34"
    )
    with pytest.raises(ApplicationError) as missing:
        convert(Decimal("1.00"), source="GBP", target="EUR", on=on, side="buy")
    assert missing.value.result.code == "700.550.120"


def test_staff_see_rates_with_their_history(admin_client, api):
    from django.urls import reverse

    future = (timezone.localdate() + timedelta(days=3)).strftime("%Y%m%d")
    rate(api, day=future)
    rate(api, UPDATE, day=future, buying="0.92000", selling="0.94000")
    stored = ExchangeRate.objects.get()
    page = admin_client.get(reverse("admin:reconciliation_exchangerate_change", args=[stored.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and "0.91250" in html and "0.92000" in html
