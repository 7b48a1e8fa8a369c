"""The 3-D Secure flow: start an authentication for a payment, complete it once, expire it.

`threeds_start` runs inside the payment's transaction (payments.services) and leaves the payment
pending (000.200.000) with a redirect. `threeds_complete` is called by the ACS pages: it locks
the authentication and its payment, refuses a second completion, records the authentication
result, and then asks the network for the authorization (the card number comes from the vault;
the CVV was never kept, so the authorization carries none) or ends the payment with the 3DS
code. `threeds_expire` (beat) ends authentications nobody completed.
"""

from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import results
from core.errors import ApplicationError

from .. import cards
from ..connectors.base import AuthRequest, NetworkAnswer
from ..connectors.simulator import get_connector
from ..models import Payment, PaymentType, ThreeDSAuthentication, ThreeDSState
from . import issuer

LIFETIME = timedelta(minutes=10)
HISTORY_PREFIX = "customParameters["

STATE_BY_TRANS_STATUS = {
    "Y": ThreeDSState.AUTHENTICATED,
    "A": ThreeDSState.ATTEMPTED,
    "N": ThreeDSState.FAILED,
}


class AlreadyComplete(ApplicationError):
    http_status = 409


def threeds_start(*, payment: Payment, flat: Mapping[str, Any], pan: str) -> ThreeDSAuthentication:
    """Create the authentication the shopper will go through (the issuer decides the flow now)."""
    amount: Decimal = flat.get("threeDSecure.amount") or payment.amount or Decimal("0.00")
    currency = flat.get("threeDSecure.currency") or payment.currency
    custom = {
        k[len(HISTORY_PREFIX) : -1]: v for k, v in flat.items() if k.startswith(HISTORY_PREFIX)
    }
    decision = issuer.decide(
        pan=pan,
        amount=amount,
        risk_decision=payment.risk_decision,
        challenge_indicator=flat.get("threeDSecure.challengeIndicator") or "01",
        flags=custom,
    )
    browser = {k.split(".", 2)[2]: v for k, v in flat.items() if k.startswith("customer.browser.")}
    from .fields import cardholder_history

    return ThreeDSAuthentication.objects.create(
        payment=payment,
        flow=decision.flow,
        issuer_result=decision.issuer_result,
        method_required=decision.method_required,
        version=decision.version,
        amount=amount,
        currency=currency,
        challenge_indicator=flat.get("threeDSecure.challengeIndicator") or "01",
        challenge_window=flat.get("customer.browser.challengeWindow") or "05",
        shopper_result_url=flat["shopperResultUrl"],
        browser=browser,
        cardholder_history=cardholder_history(flat),
        expires_at=timezone.now() + LIFETIME,
    )


def threeds_complete(*, auth_id: str, outcome: str) -> ThreeDSAuthentication:
    """End an authentication with `outcome` (a transStatus Y, A or N, or CANCELLED or EXPIRED)
    and finish its payment. Refused (409) when it has already ended."""
    from ..services import finish_payment

    with transaction.atomic():
        auth = (
            ThreeDSAuthentication.objects.select_for_update()
            .select_related("payment")
            .get(pk=auth_id)
        )
        if auth.is_final:
            raise AlreadyComplete(
                results.THREEDS_PENDING, "this authentication is already complete"
            )
        payment = Payment.objects.select_for_update().get(pk=auth.payment_id)
        auth.completed_at = timezone.now()
        if outcome in STATE_BY_TRANS_STATUS:
            auth.state = STATE_BY_TRANS_STATUS[outcome]
            auth.trans_status = outcome
            auth.eci = issuer.eci_for(payment.payment_brand, outcome)
            auth.ds_transaction_id = _uuid()
            auth.acs_transaction_id = _uuid()
            if outcome in ("Y", "A"):
                auth.authentication_value = issuer.authentication_value()
        else:
            auth.state = outcome
        auth.save()
        finish_payment(payment, _network_answer(payment, auth))
    return auth


def _network_answer(payment: Payment, auth: ThreeDSAuthentication) -> NetworkAnswer:
    if auth.state == ThreeDSState.CANCELLED:
        return NetworkAnswer(results.THREEDS_CANCELLED)
    if auth.state == ThreeDSState.EXPIRED:
        return NetworkAnswer(results.THREEDS_EXPIRED)
    if auth.state == ThreeDSState.FAILED:
        return NetworkAnswer(results.THREEDS_FAILED)
    answer = get_connector().authorize(
        AuthRequest(
            payment_type=payment.payment_type,
            amount=payment.amount,
            currency=payment.currency,
            brand=payment.payment_brand,
            pan=cards.decrypt_pan(payment.pan_ciphertext),
            expiry_month=payment.card_expiry_month,
            expiry_year=payment.card_expiry_year,
            holder=payment.card_holder,
            billing_street=payment.data.get("billing.street1", ""),
            billing_postcode=payment.data.get("billing.postcode", ""),
            entry_mode=payment.entry_mode,
        )
    )
    if answer.approved and payment.payment_type == PaymentType.DB:
        payment.captured_amount = payment.amount or Decimal("0.00")
    return answer


def _uuid() -> str:
    import uuid

    return str(uuid.uuid4())


def threeds_expire(*, batch: int = 200) -> int:
    """End authentications past their lifetime (beat, every minute). Returns how many."""
    expired = 0
    due = list(
        ThreeDSAuthentication.objects.filter(
            state__in=(ThreeDSState.PENDING, ThreeDSState.CHALLENGE), expires_at__lte=timezone.now()
        ).values_list("pk", flat=True)[:batch]
    )
    for auth_id in due:
        try:
            threeds_complete(auth_id=auth_id, outcome=ThreeDSState.EXPIRED)
            expired += 1
        except AlreadyComplete:
            continue  # completed by the shopper meanwhile
    return expired
