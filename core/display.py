"""How people see a result, an amount and a code: the one place the merchant portal, the staff
admin and the reports take them from, so a list, a page and a file never disagree
(docs/portal.md "Words, not codes").

- An amount has its currency's ISO 4217 exponent: 12.5 EUR is 12.50, 1500 JPY is 1500, 1.234 BHD
  is 1.234 (a settlement run keeps three decimals for every currency; a EUR run still shows two).
- A result is its code with its description beside it, and an outcome that colours it:
  approved, pending (3-D Secure or the bank has not decided yet: not a decline), or not approved.
- A code with its name (a payment type: `DB` debit) keeps the code, which the API speaks, and
  says what it is.

The template filters over these are in `core.templatetags.display` (`{% load display %}`).
"""

from decimal import Decimal

from django.utils.html import format_html
from django.utils.safestring import SafeString

from . import results
from .fields.codes import minor_units, within_exponent

DEFAULT_EXPONENT = 2  # a code ISO gives no exponent (XAU, XDR) or no currency at all

APPROVED, PENDING, NOT_APPROVED = "approved", "pending", "not-approved"
_APPROVED_FAMILIES = frozenset({"success", "success_review"})
_PENDING_FAMILIES = frozenset({"pending", "pending_long"})


def amount_text(amount: Decimal | None, currency: str) -> str:
    """The amount with the currency's ISO 4217 exponent, no currency: 12.5 EUR -> 12.50,
    1500 JPY -> 1500, 1.234 BHD -> 1.234 (None counts as 0, as the reports print it)."""
    return f"{amount or Decimal(0):.{exponent_of(currency)}f}"


def exponent_of(currency: str) -> int:
    """The currency's ISO 4217 exponent, as core.display shows its amounts."""
    exponent = minor_units(currency)
    return DEFAULT_EXPONENT if exponent is None else exponent


def decimals_problem(amount: Decimal, currency: str) -> str:
    """Why `amount` cannot be an amount in `currency` (it has more decimals than the currency's
    ISO 4217 exponent; zeros beyond it are fine: 250.00 JPY is 250), or ""."""
    exponent = exponent_of(currency)
    if within_exponent(amount, exponent):
        return ""
    if exponent == 0:
        return f"{currency} has no decimals: enter a whole amount, not {amount}."
    return f"{currency} has {exponent} decimals: {amount} has more."


def money(amount: Decimal | None, currency: str) -> str:
    """The amount and its currency as a person reads them ("12.50 EUR", "1500 JPY"); "" when
    there is no amount (a payment that carried none)."""
    if amount is None:
        return ""
    return f"{amount_text(amount, currency)} {currency}".strip()


def money_html(amount: Decimal | None, currency: str, *, with_currency: bool = True) -> SafeString:
    """An amount as a list's cell shows it, right-aligned by the stylesheets' `.num`: "12.50
    EUR", or "12.50" when a column of its own names the currency."""
    if amount is None:
        text = ""
    else:
        text = money(amount, currency) if with_currency else amount_text(amount, currency)
    return format_html('<span class="num">{}</span>', text)


def outcome(code: str) -> str:
    """approved, pending or not-approved: what colours a result. Pending (000.200.*, a 3-D
    Secure payment waiting for the shopper; 800.400.5*, the bank's answer awaited) is not a
    decline."""
    family = results.family_of(code)
    if family in _APPROVED_FAMILIES:
        return APPROVED
    if family in _PENDING_FAMILIES:
        return PENDING
    return NOT_APPROVED


def result_description(code: str, stored: str = "") -> str:
    """The words of a result: what was answered with it (`stored`), else the catalogue's."""
    if stored:
        return stored
    try:
        return results.lookup(code).description
    except KeyError:
        return ""


def result_html(code: str, stored: str = "") -> SafeString:
    """A result as a cell shows it: the code, its description beside it, coloured by its
    outcome, the family in the tooltip."""
    if not code:
        return format_html("{}", "")
    return format_html(
        '<span class="result result-{}" title="{}"><span class="code">{}</span> '
        '<span class="words">{}</span></span>',
        outcome(code),
        results.FAMILY_NAMES.get(results.family_of(code), results.family_of(code)),
        code,
        result_description(code, stored),
    )


def code_with_name(code: str, name: str, *, title: str = "") -> SafeString:
    """A code the API speaks with the name a person reads: `DB` debit."""
    return format_html(
        '<span class="coded" title="{}"><span class="code">{}</span> {}</span>',
        title or name,
        code,
        name,
    )


def mark_html(mark: str) -> SafeString:
    """A payment's mark ("refunded", "partly reversed", ...) as a small badge; "" for none."""
    if not mark:
        return format_html("{}", "")
    return format_html('<span class="mark mark-{}">{}</span>', mark.split()[-1], mark)
