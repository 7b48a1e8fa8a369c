"""The detail records of a day, formatted by the database: one SELECT whose single column is the
257-character line, generated from the layout table (layout.DETAIL), so no field's position or
padding is written here, only where each value comes from (SOURCES). PostgreSQL pads with
RPAD/LPAD, SQLite with SUBSTR; both give the same bytes (tests compare them with the layout's
own formatter, format_record).

Three selects make a day: the payments of the business day (ordered by time and id), the
chargebacks received on the day, and the chargebacks reversed on the day (ordered by id). What
the file reads of a payment comes from payments' own selector (`payment_file_rows`: its columns,
its terminal's id, its 3-D Secure ECI, by the names listed there), whose SQL each select takes
as the row source `p`; this module reads only the names listed there.
Values are bounded by their columns (a merchantTransactionId has 32 characters, an amount 12
digits), so no padding function ever truncates; characters outside ASCII are written as '?'.
"""

from dataclasses import dataclass
from functools import cache

import pycountry

from core.fields.codes import minor_units
from merchants.models import Merchant

from ..models import Chargeback, SettlementItem, SettlementRun
from .layout import DETAIL, Field


@dataclass(frozen=True)
class Dialect:
    vendor: str

    def text(self, expr: str, width: int) -> str:
        if self.vendor == "postgresql":
            return f"RPAD(COALESCE(CAST({expr} AS TEXT), ''), {width}, ' ')"
        return f"SUBSTR(COALESCE(CAST({expr} AS TEXT), '') || '{' ' * width}', 1, {width})"

    def number(self, expr: str, width: int) -> str:
        if self.vendor == "postgresql":
            return f"LPAD(COALESCE(CAST({expr} AS TEXT), ''), {width}, '0')"
        return f"SUBSTR('{'0' * width}' || COALESCE(CAST({expr} AS TEXT), ''), -{width})"

    def stamp(self, expr: str) -> str:
        """YYMMDDhhmmss of a UTC timestamp column."""
        if self.vendor == "postgresql":
            return f"TO_CHAR({expr} AT TIME ZONE 'UTC', 'YYMMDDHH24MISS')"
        # SQLite keeps 'YYYY-MM-DD HH:MM:SS[.ffffff]' in UTC
        digits = f"REPLACE(REPLACE(REPLACE(SUBSTR({expr}, 1, 19), '-', ''), ' ', ''), ':', '')"
        return f"SUBSTR({digits}, 3)"

    def day(self, expr: str) -> str:
        """YYMMDD000000 of a date column."""
        if self.vendor == "postgresql":
            return f"TO_CHAR({expr}, 'YYMMDD') || '000000'"
        return f"SUBSTR(REPLACE({expr}, '-', ''), 3) || '000000'"

    @staticmethod
    def minor(amount: str, currency_alias: str) -> str:
        """An amount column in minor units (the currency's factor is 10 ** its exponent)."""
        return f"CAST(ROUND(COALESCE({amount}, 0) * {currency_alias}.factor) AS BIGINT)"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@cache
def currencies_cte() -> str:
    """cur(code, num, factor): every ISO 4217 currency, its numeric code and 10 ** exponent."""
    rows = []
    for entry in sorted(pycountry.currencies, key=lambda c: c.alpha_3):
        exponent = minor_units(entry.alpha_3)
        factor = 10 ** (2 if exponent is None else exponent)
        rows.append(f"('{entry.alpha_3}', '{entry.numeric}', {factor})")
    return f"cur(code, num, factor) AS (VALUES {', '.join(rows)})"


def _table(model: type) -> str:
    return model._meta.db_table  # type: ignore[attr-defined,no-any-return]


# Where each detail field's value comes from, for a payment (p: a row of payments'
# payment_file_rows), its merchant (m), settlement item (si) and run (sr), and the currencies
# (c: the transaction's, rc: the reconciliation's).
PAYMENT_SOURCES = {
    "merchant_transaction_id": "p.merchant_transaction_id",
    "id": "p.id",
    "type": "p.payment_type",
    "pan": "p.card_bin || p.card_last4",
    "amount": "{minor(p.amount, c)}",
    "reconciliation_amount": "{minor(si.amount, rc)}",
    "currency": "c.num",
    "reconciliation_currency": "rc.num",
    "when": "{stamp(p.created_at)}",
    "merchant_id": "m.merchant_id",
    "terminal_id": "p.terminal_code",
    "status": "p.result_code",
    "approval_code": "p.auth_code",
    "arn": "p.acquirer_ref_no",
    "network_id": "SUBSTR(p.network_reference, 1, 15)",
    "eci": "p.eci",
    "advice_code": "''",
    "stan": "p.stan",
    "entry_mode": "p.entry_mode",
    "condition_code": "p.condition_code",
    "reason_code": "''",
    "chargeback_reference": "''",
    "product": "''",
}
CHARGEBACK_SOURCES = {
    **PAYMENT_SOURCES,
    "type": "'CHARGEBACK'",
    "amount": "{minor(cb.amount, c)}",
    "reconciliation_amount": "{minor(cb.settlement_amount, rc)}",
    "when": "{day(cb.received_on)}",
    "status": "'000.000.000'",
    "reason_code": "cb.reason_code",
    "chargeback_reference": "cb.reference",
}
REVERSAL_SOURCES = {
    **CHARGEBACK_SOURCES,
    "type": "'CHARGEBACK REVERSAL'",
    "reconciliation_amount": "{minor(cb.reversal_amount, rc)}",
    "when": "{day(cb.reversed_on)}",
}


def _expression(source: str, dialect: Dialect) -> str:
    """A source with its {function(argument, ...)} placeholders expanded by the dialect."""
    if not source.startswith("{"):
        return source
    name, _, rest = source[1:-1].partition("(")
    arguments = [part.strip() for part in rest.rstrip(")").split(",")]
    return str(getattr(dialect, name)(*arguments))


def _field(item: Field, sources: dict[str, str], dialect: Dialect) -> str:
    if item.literal is not None:
        return _quoted(item.literal.ljust(item.length))
    if not item.key:
        return _quoted(" " * item.length)
    expr = _expression(sources[item.key], dialect)
    if item.kind == "N":
        return dialect.number(expr, item.length)
    padded = dialect.text(expr, item.length)
    if item.blank != " ":
        blank = _quoted(item.blank * item.length)
        return f"(CASE WHEN COALESCE({expr}, '') = '' THEN {blank} ELSE {padded} END)"
    return padded


def line_expression(sources: dict[str, str], dialect: Dialect) -> str:
    assert set(sources) == set(DETAIL.keys), "every detail field has one source"
    return " || ".join(_field(item, sources, dialect) for item in DETAIL.fields)


def _joins(settled: str, base_currency: str) -> str:
    return (
        f"JOIN {_table(Merchant)} m ON m.id = p.merchant_id "
        f"LEFT JOIN {_table(SettlementRun)} sr ON sr.id = {settled} "
        f"LEFT JOIN cur rc ON rc.code = COALESCE(sr.currency, NULLIF(m.settlement_currency, ''), "
        f"{_quoted(base_currency)}) "
    )


def _merchants(count: int) -> str:
    return ", ".join(["%s"] * count)


def payments_query(dialect: Dialect, *, rows: str, base_currency: str) -> str:
    """`rows`: the SQL of payments' payment_file_rows for the day's payments (its parameters
    are the query's)."""
    # Generated from the layout and the models' tables; every value is a parameter.
    return (
        f"WITH {currencies_cte()} "  # noqa: S608
        f"SELECT {line_expression(PAYMENT_SOURCES, dialect)} "
        f"FROM ({rows}) p "
        f"LEFT JOIN {_table(SettlementItem)} si ON si.payment_id = p.id "
        f"{_joins('si.run_id', base_currency)}"
        f"LEFT JOIN cur c ON c.code = p.currency "
        f"ORDER BY p.created_at, p.id"
    )


def chargebacks_query(
    dialect: Dialect, *, rows: str, merchants: int, reversals: bool, base_currency: str
) -> str:
    """`rows`: the SQL of payments' payment_file_rows for every payment (no parameters).
    Parameters: the merchants' pks, then the day."""
    sources = REVERSAL_SOURCES if reversals else CHARGEBACK_SOURCES
    settled = "cb.reversal_settled_in_id" if reversals else "cb.settled_in_id"
    on = "cb.reversed_on" if reversals else "cb.received_on"
    # Generated from the layout and the models' tables; every value is a parameter.
    return (
        f"WITH {currencies_cte()} "  # noqa: S608
        f"SELECT {line_expression(sources, dialect)} "
        f"FROM {_table(Chargeback)} cb "
        f"JOIN ({rows}) p ON p.id = cb.payment_id "
        f"{_joins(settled, base_currency)}"
        f"LEFT JOIN cur c ON c.code = cb.currency "
        f"WHERE cb.merchant_id IN ({_merchants(merchants)}) AND {on} = %s "
        f"ORDER BY cb.id"
    )
