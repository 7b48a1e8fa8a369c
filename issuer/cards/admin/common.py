"""What the card admins share: amounts typed and shown with their currency's exponent, and
codes shown by their labels."""

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import TextChoices

from core.display import amount_text, decimals_problem, exponent_of

from ..models import TransactionType


def amount_for_editing(value: Any, currency: str) -> Any:
    """A stored amount as an input shows it: with the currency's exponent (250.00 EUR, not
    250.000); one that does not fit the currency as it is, so the form names the problem."""
    if isinstance(value, Decimal) and not decimals_problem(value, currency):
        return amount_text(value, currency)
    return value


class CurrencyAmountField(forms.DecimalField):
    """An amount in `currency` typed with its ISO 4217 exponent (the step of the input): more
    decimals than the currency has are refused with the reason. The model field keeps
    `stored_places` decimals for every currency, hence as many whole digits as it allows."""

    def __init__(
        self, *, currency: str, max_digits: int, stored_places: int, **kwargs: Any
    ) -> None:
        self.currency = currency
        exponent = exponent_of(currency)
        kwargs.setdefault("min_value", Decimal(0))  # a limit, a balance: never below nothing
        super().__init__(
            max_digits=max_digits - stored_places + exponent, decimal_places=exponent, **kwargs
        )

    def to_python(self, value: Any) -> Any:  # a Decimal (the stubs say int, as IntegerField)
        amount = super().to_python(value)
        if amount is None or not amount.is_finite():
            return amount
        problem = decimals_problem(amount, self.currency)
        if problem:
            raise ValidationError(problem, code="currency_decimals")
        try:  # 250.00 JPY is 250: the validators count the decimals written
            return amount.quantize(Decimal(1).scaleb(-exponent_of(self.currency)))
        except InvalidOperation:
            return amount

    def prepare_value(self, value: Any) -> Any:
        return amount_for_editing(value, self.currency)


def label_of(choices: type[TextChoices], code: str) -> str:
    """A code as staff read it: its label among `choices`, or the code itself when it is none."""
    return str(choices(code).label) if code in choices.values else code


def journal_kind(kind: str) -> str:
    """A journal's kind: the label of the transaction type that posted it ("Load")."""
    return label_of(TransactionType, kind)
