"""`{% load payment_types %}`: a paymentType as its code and its name (`DB` debit)."""

from django import template
from django.utils.safestring import SafeString

from core.display import code_with_name
from payments.models import payment_type_name

register = template.Library()


@register.filter
def payment_type(code: str) -> SafeString:
    """`{{ p.payment_type|payment_type }}` -> <code>DB</code> debit (the full name on hover)."""
    return code_with_name(code, payment_type_name(code), title=payment_type_name(code, full=True))
