"""core.display and its template filters: amounts with their currency's ISO 4217 exponent, a
result's code with its words and its outcome, a code with its name, a payment's mark."""

from decimal import Decimal

import pytest
from django.template import Context, Template

from core import display
from payments.models import payment_type_name


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        ("12.5", "EUR", "12.50"),
        ("219.900", "EUR", "219.90"),  # a settlement run keeps three decimals; EUR has two
        ("1500", "JPY", "1500"),
        ("1500.00", "JPY", "1500"),
        ("1.234", "BHD", "1.234"),
        ("12.5", "BHD", "12.500"),
        ("0", "EUR", "0.00"),
        ("-20", "EUR", "-20.00"),
        ("3.5", "XAU", "3.50"),  # ISO gives gold no exponent: two decimals
        ("3.5", "", "3.50"),
    ],
)
def test_amount_text_has_the_currencys_exponent(amount, currency, shown):
    assert display.amount_text(Decimal(amount), currency) == shown


def test_money_says_the_currency_and_nothing_for_no_amount():
    assert display.money(Decimal("12.5"), "EUR") == "12.50 EUR"
    assert display.money(Decimal("1500"), "JPY") == "1500 JPY"
    assert display.money(Decimal("1.234"), "BHD") == "1.234 BHD"
    assert display.money(None, "EUR") == ""
    assert display.amount_text(None, "EUR") == "0.00"  # the reports print a missing amount as 0


def test_money_html_is_a_right_aligned_cell():
    assert display.money_html(Decimal("219.900"), "EUR") == '<span class="num">219.90 EUR</span>'
    assert display.money_html(Decimal("5"), "JPY", with_currency=False) == (
        '<span class="num">5</span>'
    )
    assert display.money_html(None, "EUR") == '<span class="num"></span>'


@pytest.mark.parametrize(
    ("code", "outcome"),
    [
        ("000.000.000", "approved"),
        ("000.100.110", "approved"),
        ("000.400.000", "approved"),  # success, to be reviewed
        ("000.200.000", "pending"),  # 3-D Secure: waiting for the shopper
        ("000.200.100", "pending"),
        ("800.400.500", "pending"),  # the bank's answer awaited
        ("800.100.203", "not-approved"),
        ("100.400.080", "not-approved"),
        ("200.300.404", "not-approved"),
        ("700.400.100", "not-approved"),
        ("", "not-approved"),
    ],
)
def test_outcome_colours_pending_as_pending(code, outcome):
    assert display.outcome(code) == outcome


def test_result_description_prefers_what_was_answered_then_the_catalogue():
    assert display.result_description("800.100.203", "declined by the issuer") == (
        "declined by the issuer"
    )
    assert display.result_description("800.100.203") == "transaction declined (insufficient funds)"
    assert display.result_description("000.000.000") == "Transaction succeeded"
    assert display.result_description("123.456.789") == ""


def test_result_html_puts_the_words_beside_the_code_escaped():
    html = display.result_html("000.200.000", "pending <b>3-D Secure</b>")
    assert html == (
        '<span class="result result-pending" title="pending"><span class="code">000.200.000'
        '</span> <span class="words">pending &lt;b&gt;3-D Secure&lt;/b&gt;</span></span>'
    )
    assert 'title="external bank declines"' in display.result_html("800.100.203")
    assert display.result_html("") == ""


def test_code_with_name_and_mark():
    assert display.code_with_name("DB", "debit", title="debit (authorization and capture)") == (
        '<span class="coded" title="debit (authorization and capture)"><span class="code">DB'
        "</span> debit</span>"
    )
    assert display.mark_html("partly refunded") == (
        '<span class="mark mark-refunded">partly refunded</span>'
    )
    assert display.mark_html("") == ""


def test_payment_type_names():
    assert payment_type_name("DB") == "debit"
    assert payment_type_name("DB", full=True) == "debit (authorization and capture)"
    assert payment_type_name("PA") == "preauthorization"
    assert payment_type_name("CP") == "capture of a PA"
    assert payment_type_name("PR") == "POS refund"
    assert payment_type_name("XX") == "XX"


def render(source: str, **context: object) -> str:
    return Template(source).render(Context(context))


def test_the_template_filters():
    loaded = "{% load display payment_types %}"
    assert render(loaded + "{{ a|money:c }}", a=Decimal("219.900"), c="EUR") == "219.90 EUR"
    assert render(loaded + "{{ a|money:c }}", a=Decimal("1500.00"), c="JPY") == "1500 JPY"
    assert render(loaded + "{{ a|money:c }}", a=Decimal("1.2"), c="BHD") == "1.200 BHD"
    assert render(loaded + "{{ a|money:c }}", a=None, c="EUR") == ""
    assert render(loaded + "{{ a|amount:c }}", a=Decimal("7"), c="EUR") == "7.00"
    assert render(loaded + "{{ code|outcome }}", code="000.200.000") == "pending"
    shown = render(loaded + "{{ code|result:words }}", code="800.100.203", words="")
    assert '<span class="code">800.100.203</span>' in shown
    assert "transaction declined (insufficient funds)" in shown
    assert render(loaded + "{{ t|payment_type }}", t="RF") == (
        '<span class="coded" title="refund"><span class="code">RF</span> refund</span>'
    )
    assert render(loaded + "{{ m|mark }}", m="reversed") == (
        '<span class="mark mark-reversed">reversed</span>'
    )
