"""Rules over several fields, declared with the group of rows they belong to.

A rule is a function of the flat, parsed values ({dotted name: value}) that yields
(dotted name, message) for each problem. It runs once every field of the request is valid. These
builders cover the specification's conditional words; a group with a rule of its own writes it as
a function and uses `given`.
"""

from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal
from typing import Any

from ..fields.codes import minor_units, within_exponent
from .table import Rule


def given(flat: Mapping[str, Any], name: str) -> bool:
    """Whether a field was sent with a value (a blank optional value means "not applicable")."""
    return flat.get(name) not in (None, "")


def requires(if_name: str, then_name: str, message: str = "") -> Rule:
    """`then_name` is required when `if_name` is given."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        if given(flat, if_name) and not given(flat, then_name):
            yield then_name, message or f"required when {if_name} is given"

    return rule


def together(*names: str, message: str = "") -> Rule:
    """Either all of `names` or none: each one sent requires the others."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        sent = [name for name in names if given(flat, name)]
        if sent:
            for name in names:
                if name not in sent:
                    yield name, message or f"is required when {sent[0]} is given (they go together)"

    return rule


def required_with_group(group: Sequence[str], required: Sequence[str], why: str) -> Rule:
    """When any field of `group` is sent, every field of `required` is required."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        if any(given(flat, name) for name in group):
            for name in required:
                if not given(flat, name):
                    yield name, f"required when {why}"

    return rule


def only_with(anchor: str, dependants: Sequence[str]) -> Rule:
    """`dependants` may only be sent together with `anchor`."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        if not given(flat, anchor):
            for name in dependants:
                if given(flat, name):
                    yield name, f"requires {anchor}"

    return rule


def fits_currency(amount: str, currency: str) -> Rule:
    """The amount `amount` has no fraction the currency `currency` cannot hold: its decimals
    beyond the currency's ISO 4217 exponent are 0 (`100.00` JPY, never `100.50` JPY). A
    currency for which ISO 4217 defines no minor unit (gold, SDR, XXX) carries no amount."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        value, code = flat.get(amount), flat.get(currency)
        if not isinstance(value, Decimal) or not given(flat, currency):
            return
        exponent = minor_units(str(code))
        if exponent is None:
            yield amount, f"cannot be given in {code}: ISO 4217 defines no minor unit for it"
            return
        if not within_exponent(value, exponent):
            fitting = value.quantize(Decimal(1).scaleb(-exponent), rounding=ROUND_DOWN)
            shown = "no minor unit" if exponent == 0 else f"{exponent} decimals"
            yield (
                amount,
                f"has a fraction {code} does not have: {code} has {shown} (ISO 4217 exponent "
                f"{exponent}), so the decimals beyond it must be 0 (e.g. {fitting:.2f})",
            )

    return rule


def not_above(part: str, whole: str) -> Rule:
    """`part` (an amount, as taxAmount) is at most `whole` (the amount it is part of), when both
    are given."""

    def rule(flat: dict[str, Any]) -> Iterable[tuple[str, str]]:
        value, limit = flat.get(part), flat.get(whole)
        if isinstance(value, Decimal) and isinstance(limit, Decimal) and value > limit:
            yield part, f"must not be greater than {whole} ({limit:.2f})"

    return rule


__all__ = [
    "fits_currency",
    "given",
    "not_above",
    "only_with",
    "required_with_group",
    "requires",
    "together",
]
