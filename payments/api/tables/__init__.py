"""The payment tables: the request (payment.py) and its data groups, one module per group."""

from .addresses import BILLING, ORDER, SHIPPING
from .airline import AIRLINE
from .cart import CART, CUSTOM_PARAMETERS
from .parties import CUSTOMER, MERCHANT_OVERRIDE, OVERRIDE_REQUIRED, RISK_REQUEST
from .payment import GROUPS, PAYMENT, PAYMENT_FIELDS, PAYMENT_INQUIRY

GROUP_FIELDS = GROUPS.fields
GROUP_RULES = GROUPS.rules
GROUP_LIMITS = GROUPS.limits

__all__ = [
    "AIRLINE",
    "BILLING",
    "CART",
    "CUSTOMER",
    "CUSTOM_PARAMETERS",
    "GROUPS",
    "GROUP_FIELDS",
    "GROUP_LIMITS",
    "GROUP_RULES",
    "MERCHANT_OVERRIDE",
    "ORDER",
    "OVERRIDE_REQUIRED",
    "PAYMENT",
    "PAYMENT_FIELDS",
    "PAYMENT_INQUIRY",
    "RISK_REQUEST",
    "SHIPPING",
]
