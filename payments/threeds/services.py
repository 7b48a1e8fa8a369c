"""The 3-D Secure flow: start an authentication for a payment, carry it through the ACS pages,
complete it once, expire it. The pages (views.py) and the beat task call only these.

`threeds_start` runs inside the payment's transaction (payments.services) and leaves the payment
pending (000.200.000) with a redirect. Every later change locks the authentication and its
payment (lock_objects.threeds_lock) and moves the state through THREEDS_LIFECYCLE, so two
browser tabs, a double click and the expiry task cannot both decide one authentication, and
wrong one-time passwords are counted exactly. Completion records the authentication result and
then asks the network for the authorization (the card number comes from the vault; the CVV was
never kept, so the authorization carries none), or ends the payment with the 3DS code.
"""

import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.errors import Forbidden

from .. import cards
from .. import results as payment_results
from ..connectors.base import NetworkAnswer
from ..models import Payment, ThreeDSAuthentication, ThreeDSState
from ..services import engine, network
from ..services.lock_objects import threeds_lock
from ..services.types import Card, ThreeDSRequest
from . import acs
from .models import THREEDS_LIFECYCLE

LIFETIME = timedelta(minutes=10)

STATE_BY_TRANS_STATUS = {
    "Y": ThreeDSState.AUTHENTICATED,
    "A": ThreeDSState.ATTEMPTED,
    "N": ThreeDSState.FAILED,
}
REFUSAL_BY_STATE = {
    ThreeDSState.CANCELLED: payment_results.THREEDS_CANCELLED,
    ThreeDSState.EXPIRED: payment_results.THREEDS_EXPIRED,
    ThreeDSState.FAILED: payment_results.THREEDS_FAILED,
}


def threeds_start(
    *, payment: Payment, card: Card, request: ThreeDSRequest
) -> ThreeDSAuthentication:
    """Create the authentication the shopper will go through (the ACS decides the flow now).
    Runs in the payment's transaction; marks the payment as authenticated by us."""
    money = request.amount
    amount: Decimal = money.amount if money else (payment.amount or Decimal("0.00"))
    currency = money.currency if money else payment.currency
    decision = acs.decide(
        pan=card.number,
        amount=amount,
        risk_decision=payment.risk_decision,
        challenge_indicator=request.challenge_indicator,
        flags=dict(request.flags),
    )
    payment.threeds_started = True
    return ThreeDSAuthentication.objects.create(
        payment=payment,
        flow=decision.flow,
        issuer_result=decision.issuer_result,
        method_required=decision.method_required,
        version=decision.version,
        amount=amount,
        currency=currency,
        challenge_indicator=request.challenge_indicator,
        challenge_window=request.challenge_window,
        shopper_result_url=request.shopper_result_url,
        browser=dict(request.browser),
        cardholder_history=dict(request.cardholder_history),
        expires_at=timezone.now() + LIFETIME,
    )


def threeds_method_completed(*, auth_id: str) -> None:
    """The ACS's method step ran in the shopper's browser (one flag, set in one UPDATE)."""
    ThreeDSAuthentication.objects.filter(pk=auth_id).update(method_completed=True)


@transaction.atomic
def threeds_show_challenge(*, auth_id: str) -> ThreeDSAuthentication:
    """The shopper reached the challenge: PENDING -> CHALLENGE (already there: unchanged)."""
    auth = threeds_lock(auth_id)
    if auth.state == ThreeDSState.PENDING:
        THREEDS_LIFECYCLE.apply(auth, ThreeDSState.CHALLENGE)
    return auth


@dataclass(frozen=True)
class ChallengeOutcome:
    auth: ThreeDSAuthentication
    wrong_code: bool = False  # a wrong one-time password that left attempts

    @property
    def attempts_left(self) -> int:
        return acs.MAX_OTP_ATTEMPTS - self.auth.otp_attempts


@transaction.atomic
def threeds_answer_challenge(
    *, auth_id: str, nonce: str, otp: str = "", cancel: bool = False
) -> ChallengeOutcome:
    """The challenge form's answer: cancel, the right one-time password (the ACS's decision), or
    a wrong one. Three wrong codes fail the authentication. Locked: concurrent wrong codes are
    each counted. 403 for another authentication's nonce, 409 when it has already ended."""
    auth = threeds_lock(auth_id)
    if nonce != auth.nonce:
        raise Forbidden("This form does not belong to this authentication.")
    THREEDS_LIFECYCLE.check(auth.state, ThreeDSState.CANCELLED)  # 409 once it has ended
    if cancel:
        return ChallengeOutcome(_complete(auth, ThreeDSState.CANCELLED))
    if otp.strip() == acs.OTP:
        return ChallengeOutcome(_complete(auth, auth.issuer_result))
    ThreeDSAuthentication.objects.filter(pk=auth.pk).update(otp_attempts=F("otp_attempts") + 1)
    auth.refresh_from_db(fields=["otp_attempts"])
    if auth.otp_attempts >= acs.MAX_OTP_ATTEMPTS:
        return ChallengeOutcome(_complete(auth, "N"))
    return ChallengeOutcome(auth, wrong_code=True)


@transaction.atomic
def threeds_complete(*, auth_id: str, outcome: str) -> ThreeDSAuthentication:
    """End an authentication with `outcome` (a transStatus Y, A or N, or CANCELLED or EXPIRED)
    and finish its payment. Refused (409, 700.400.720) when it has already ended."""
    return _complete(threeds_lock(auth_id), outcome)


def _complete(auth: ThreeDSAuthentication, outcome: str) -> ThreeDSAuthentication:
    """Under the lock of `auth` and its payment."""
    payment = auth.payment
    state = STATE_BY_TRANS_STATUS.get(outcome, outcome)
    THREEDS_LIFECYCLE.check(auth.state, state)
    auth.completed_at = timezone.now()
    if outcome in STATE_BY_TRANS_STATUS:
        auth.trans_status = outcome
        auth.eci = acs.eci_for(payment.payment_brand, outcome)
        auth.ds_transaction_id = str(uuid.uuid4())
        auth.acs_transaction_id = str(uuid.uuid4())
        if outcome in ("Y", "A"):
            auth.authentication_value = acs.authentication_value()
    THREEDS_LIFECYCLE.apply(
        auth,
        state,
        save_fields=[
            "completed_at",
            "trans_status",
            "eci",
            "ds_transaction_id",
            "acs_transaction_id",
            "authentication_value",
        ],
    )
    engine.finish(payment, _network_answer(payment, auth))
    return auth


def _network_answer(payment: Payment, auth: ThreeDSAuthentication) -> NetworkAnswer:
    refusal = REFUSAL_BY_STATE.get(ThreeDSState(auth.state))
    if refusal is not None:
        return NetworkAnswer(refusal)
    return network.authorize(payment, pan=cards.decrypt_pan(payment.pan_ciphertext))


def threeds_expire(*, batch: int = 200) -> int:
    """End authentications past their lifetime (beat, every minute). Returns how many."""
    expired = 0
    due = list(
        ThreeDSAuthentication.objects.filter(
            state__in=(ThreeDSState.PENDING, ThreeDSState.CHALLENGE), expires_at__lte=timezone.now()
        ).values_list("pk", flat=True)[:batch]
    )
    for auth_id in due:
        with transaction.atomic():
            auth = threeds_lock(auth_id)
            if auth.is_final:
                continue  # completed by the shopper meanwhile
            _complete(auth, ThreeDSState.EXPIRED)
            expired += 1
    return expired
