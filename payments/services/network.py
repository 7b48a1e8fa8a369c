"""What the card network is asked, in one place, and what its answer does to the totals.

`authorization_request` is the request of a PA, DB, CD or CV (at submission, or after a 3-D
Secure authentication, when the card number comes back from the vault and no CVV exists);
`settle_authorization` applies the one rule of an approval: an approved DB is captured in full.
`reference_request` is a CP, RV, RF or PR against the original the network has seen. The janitor
builds the same requests to ask the network what became of a payment.
"""

from .. import results as payment_results
from ..connectors.base import AuthRequest, Connector, NetworkAnswer, ReferenceRequest
from ..models import ZERO, Payment, PaymentType, TransactionSource
from ..registrations import instructions, stored

STANDING = "standingInstruction."


def _terminal_id(payment: Payment) -> str:
    """pos.terminalId of the payment's terminal; empty for one without (e-commerce)."""
    return payment.terminal.terminal_id if payment.terminal is not None else ""


def authorization_request(payment: Payment, *, pan: str, cvv: str = "") -> AuthRequest:
    return AuthRequest(
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
        reference=payment.pk,
        stored_credential={
            name[len(STANDING) :]: str(value)
            for name, value in payment.data.items()
            if name.startswith(STANDING)
        },
        merchant_name=payment.merchant.name,
        merchant_country=payment.merchant.country,
        mcc=payment.merchant.mmcc or payment.merchant.vmcc,
        expires_at=payment.expires_at,
        scheme_token=payment.scheme_token_id or "",
        merchant_id=payment.merchant.merchant_id,
        terminal_id=_terminal_id(payment),
        stan=payment.stan,
        retrieval_ref_no=payment.retrieval_ref_no,
    )


def authorize(connector: Connector, payment: Payment, *, pan: str, cvv: str = "") -> NetworkAnswer:
    """Ask the network to authorize `payment` with this card number (and CVV, when the
    cardholder is present to give one)."""
    return connector.authorize(authorization_request(payment, pan=pan, cvv=cvv))


def settle_authorization(
    payment: Payment, locked: dict[str, Payment], answer: NetworkAnswer
) -> None:
    """What an authorization's answer does, in its finalize transaction: an approved DB is
    captured in full; an approved payment with createRegistration stores its card; the standing
    instruction a CIT sets up, or an MIT's place in its chain, is settled."""
    if answer.approved and payment.payment_type == PaymentType.DB:
        payment.captured_amount = payment.amount or ZERO  # a debit is captured when approved
    if answer.approved and stored.wants_registration(payment):
        stored.store_card(payment)
    instructions.settle(
        payment,
        approved=answer.approved,
        network_transaction_id=answer.network_reference or payment.network_reference,
    )


def reference_request(payment: Payment, original: Payment) -> ReferenceRequest:
    return ReferenceRequest(
        payment_type=payment.payment_type,
        amount=payment.amount,
        currency=payment.currency,
        original_auth_code=original.auth_code,
        original_retrieval_ref_no=original.retrieval_ref_no,
        reference=payment.pk,
        original_reference=original.pk,
        card_bin=original.card_bin,
        card_last4=original.card_last4,
        merchant_id=payment.merchant.merchant_id,
        terminal_id=_terminal_id(payment),
        original_stan=original.stan,
        stan=payment.stan,
        retrieval_ref_no=payment.retrieval_ref_no,
        # The acquirer reverses on its own word only what the network never answered: the
        # timeout reversal of a payment left uncertain (900.100.300). Any other reversal is asked.
        advice=(
            payment.payment_type == PaymentType.RV
            and payment.transaction_source == TransactionSource.TIMEOUT
            and original.result_code == payment_results.TIMEOUT_UNCERTAIN.code
        ),
    )


def follow_up(connector: Connector, payment: Payment, original: Payment) -> NetworkAnswer:
    """Ask the network for a referenced operation against `original`."""
    return connector.follow_up(reference_request(payment, original))
