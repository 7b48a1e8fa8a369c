"""Write a reconciliation file through the layout: its name, the header, one detail record per
transaction, the trailer (the count of detail records). Streams: records are produced as the
details come, never the whole day in memory."""

from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal

from core.fields.codes import minor_units

from .layout import DETAIL, HEADER, TRAILER, format_record


def file_name(entity_id: str, day: date, *, production: bool) -> str:
    """RECONDT + P (production) or T + the entity id + YYYYMMDD + 01."""
    return f"RECONDT{'P' if production else 'T'}{entity_id}{day:%Y%m%d}01"


def minor(amount: Decimal, currency: str) -> str:
    """An amount in the currency's minor units (ISO 4217 exponent): 12.34 EUR -> 1234, 1500 JPY
    -> 1500, 1.234 BHD -> 1234. Refused when the amount has a finer fraction."""
    exponent = minor_units(currency)
    if exponent is None:
        raise ValueError(f"{currency} has no minor unit in ISO 4217")
    units = amount.scaleb(exponent)
    if units != units.to_integral_value():
        raise ValueError(f"{amount} {currency} has a fraction finer than {exponent} decimals")
    return str(abs(int(units)))


def lines(entity_id: str, day: date, details: Iterable[dict[str, object]]) -> Iterator[bytes]:
    settlement_date = f"{day:%Y%m%d}"
    yield format_record(HEADER, {"entity_id": entity_id, "settlement_date": settlement_date})
    count = 0
    for values in details:
        count += 1
        yield format_record(DETAIL, values)
    yield format_record(
        TRAILER, {"entity_id": entity_id, "settlement_date": settlement_date, "total": str(count)}
    )
