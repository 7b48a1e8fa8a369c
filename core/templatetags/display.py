"""`{% load display %}`: the template side of core.display (amounts with their currency's
exponent, results with their words, a payment's mark)."""

from decimal import Decimal

from django import template
from django.utils.safestring import SafeString

from core import display

register = template.Library()


@register.filter
def money(amount: Decimal | None, currency: str) -> str:
    """`{{ p.amount|money:p.currency }}` -> 12.50 EUR, 1500 JPY, 1.234 BHD."""
    return display.money(amount, currency or "")


@register.filter
def amount(value: Decimal | None, currency: str) -> str:
    """`{{ run.net_amount|amount:run.currency }}` -> 219.90 (the currency said elsewhere)."""
    return display.amount_text(value, currency or "")


@register.filter
def result(code: str, description: str = "") -> SafeString:
    """`{{ p.result_code|result:p.result_description }}`: the code, its words, coloured."""
    return display.result_html(code or "", description or "")


@register.filter
def outcome(code: str) -> str:
    """`{{ p.result_code|outcome }}`: approved, pending or not-approved (a CSS class)."""
    return display.outcome(code or "")


@register.filter
def mark(value: str) -> SafeString:
    """`{{ p.mark|mark }}`: "refunded", "partly reversed", ... as a badge."""
    return display.mark_html(value or "")
