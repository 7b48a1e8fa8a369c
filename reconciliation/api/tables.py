"""The request tables of the exchange-rate operations (spec "Exchange rate")."""

from core.fields import Currency, Date, Rate
from core.tables import MANDATORY, F, Table
from core.tables.common import COMMON, COMMON_INQUIRY

M = MANDATORY

CURRENCY = F("exchangeRate.currency", Currency(), M, meaning="the currency whose rate is set")
EFFECTIVE_DATE = F("exchangeRate.effectiveDate", Date("YYYYMMDD"), M, attr="effective_date")
RATE_ROWS = [
    CURRENCY,
    EFFECTIVE_DATE,
    F(
        "exchangeRate.buyingRate",
        Rate(),
        M,
        aliases=("exchangRate.buyingRate",),
        meaning="base-currency units for one unit: what the bank pays (the spec spells the "
        "prefix exchangRate; both are taken)",
        attr="buying_rate",
    ),
    F(
        "exchangeRate.sellingRate",
        Rate(),
        M,
        meaning="base-currency units for one unit: what the bank charges",
        attr="selling_rate",
    ),
]
RATE_SET = Table([*COMMON, *RATE_ROWS])
RATE_INQUIRY = Table([*COMMON_INQUIRY, CURRENCY, EFFECTIVE_DATE])
RATE_ANSWER = Table(
    [
        F("exchangeRate.currency", Currency(), attr="currency"),
        F("exchangeRate.effectiveDate", Date("YYYYMMDD"), attr="effective_date"),
        F("exchangeRate.buyingRate", Rate(), attr="buying_rate"),
        F("exchangeRate.sellingRate", Rate(), attr="selling_rate"),
        F("exchangeRate.baseCurrency", Currency(), source=lambda rate: BASE()),
    ]
)


def BASE() -> str:  # noqa: N802 - read when answering (tests change the setting)
    from django.conf import settings

    return str(settings.EXCHANGE_BASE_CURRENCY)
