"""What the card network is asked, in one place, and what its answer does to a payment.

`authorize` builds the authorization request of a PA, DB, CD or CV (at submission, or after a
3-D Secure authentication, when the card number comes back from the vault and no CVV exists)
and applies the one rule of an approval: an approved DB is captured in full. `follow_up` asks
for a CP, RV, RF or PR against the original the network has seen.
"""

from ..connectors.base import AuthRequest, NetworkAnswer, ReferenceRequest
from ..connectors.simulator import get_connector
from ..models import ZERO, Payment, PaymentType


def authorize(payment: Payment, *, pan: str, cvv: str = "") -> NetworkAnswer:
    """Ask the network to authorize `payment` with this card number (and CVV, when the
    cardholder is present to give one)."""
    answer = get_connector().authorize(
        AuthRequest(
            payment_type=payment.payment_type,
            amount=payment.amount,
            currency=payment.currency,
            brand=payment.payment_brand,
            pan=pan,
            expiry_month=payment.card_expiry_month,
            expiry_year=payment.card_expiry_year,
            cvv=cvv,
            holder=payment.card_holder,
            billing_street=payment.data.get("billing.street1", ""),
            billing_postcode=payment.data.get("billing.postcode", ""),
            entry_mode=payment.entry_mode,
        )
    )
    if answer.approved and payment.payment_type == PaymentType.DB:
        payment.captured_amount = payment.amount or ZERO  # a debit is captured when approved
    return answer


def follow_up(payment: Payment, original: Payment) -> NetworkAnswer:
    """Ask the network for a referenced operation against `original`."""
    return get_connector().follow_up(
        ReferenceRequest(
            payment_type=payment.payment_type,
            amount=payment.amount,
            currency=payment.currency,
            original_auth_code=original.auth_code,
            original_retrieval_ref_no=original.retrieval_ref_no,
        )
    )
