"""The 3-D Secure flow after its start: carry an authentication through the ACS pages, complete
it once, expire it. The pages (views.py) and the beat task call only these.

The payment starts its authentication itself, inside its claim's transaction
(payments.services.initial.threeds_start), and is left pending (000.200.000) with a redirect:
this module builds on payments.services (the engine finishes the payment), which does not
import it back. Every change here locks the authentication and its payment
(lock_objects.threeds_lock) and moves the state through THREEDS_LIFECYCLE, so two browser tabs,
a double click and the expiry task cannot both decide one authentication, and wrong one-time
passwords are counted exactly. Completion records the authentication result in a
short transaction and, when the shopper is authenticated, leaves the payment IN_FLIGHT; the
engine then asks the network for the authorization outside any transaction (the card number
comes from the vault; the CVV was never kept, so the authorization carries none) and finalizes.
Otherwise the payment ends with the 3DS code.
"""

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core import cards, vault
from core.errors import Forbidden

from .. import results as payment_results
from ..connectors import onus_port
from ..connectors.base import Connector, NetworkAnswer
from ..models import PAYMENT_STATE, Payment, PaymentState, ThreeDSAuthentication, ThreeDSState
from ..services import engine, network
from ..services.lock_objects import threeds_lock
from . import acs
from .models import THREEDS_LIFECYCLE

ISSUER_SECRET = "threeds-issuer"  # the vault purpose of issuer_secret

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


def threeds_method_completed(*, auth_id: str) -> None:
    """The ACS's method step ran in the shopper's browser (one flag, set in one UPDATE)."""
    ThreeDSAuthentication.objects.filter(pk=auth_id).update(method_completed=True)


@transaction.atomic
def threeds_show_challenge(*, auth_id: str) -> ThreeDSAuthentication:
    """The shopper reached the challenge: PENDING -> CHALLENGE (already there: unchanged)."""
    auth = threeds_lock(auth_id)
    if auth.state == ThreeDSState.PENDING:
        if _past_lifetime(auth):
            _conclude(auth, ThreeDSState.EXPIRED)  # no network: the payment ends with 100.396.103
        else:
            THREEDS_LIFECYCLE.apply(auth, ThreeDSState.CHALLENGE)
            if auth.issuer_method:
                _issuer_challenge_start(auth)
    return auth


def _access_control() -> onus_port.LocalAccessControl:
    """The platform's own issuer's access control, for an authentication it took on (an
    issuer_method is only recorded while one is plugged in)."""
    issuer = onus_port.registered()
    if issuer is None:
        raise RuntimeError("an on-us authentication, but no issuer is plugged in (onus_port)")
    return issuer


def _issuer_challenge_start(auth: ThreeDSAuthentication) -> None:
    """An on-us card's challenge: the issuer sends its OOB request or one-time password now
    (no network: the issuer is this platform, in this transaction)."""
    payment = auth.payment
    access = _access_control()
    number = cards.decrypt_pan(payment.pan_ciphertext)
    if auth.issuer_method == onus_port.OOB:
        challenge = access.oob_start(
            number=number,
            transaction_id=auth.pk,
            amount=auth.amount,
            currency=auth.currency,
            merchant_name=payment.merchant.business or payment.merchant.name,
        )
    else:
        challenge = access.otp_send(number=number, transaction_id=auth.pk)
    auth.issuer_reference = challenge.reference
    secret = challenge.secret
    auth.issuer_secret = vault.encrypt(secret, purpose=ISSUER_SECRET) if secret else ""
    auth.issuer_sent_to = challenge.sent_to
    auth.save(update_fields=["issuer_reference", "issuer_secret", "issuer_sent_to"])


def issuer_secret(auth: ThreeDSAuthentication) -> str:
    """The cardholder link (OOB) or the simulator's code (OTP) the challenge page shows."""
    return vault.decrypt(auth.issuer_secret, purpose=ISSUER_SECRET) if auth.issuer_secret else ""


def simulator_code(auth: ThreeDSAuthentication) -> str:
    """The one-time password the challenge page shows a tester (docs/api.md, "The one-time
    password of a challenge"): the simulated ACS's fixed code for every card that is not the
    platform's own; for an on-us card with an SMS or e-mail channel, the code its issuer
    generated; none for an out-of-band approval. Only while SIMULATOR_SHOW_CODES (by default
    DEBUG): a production page never shows a code."""
    if not settings.SIMULATOR_SHOW_CODES:
        return ""
    if not auth.issuer_method:
        return acs.OTP
    return issuer_secret(auth) if auth.issuer_method == onus_port.OTP else ""


@dataclass(frozen=True)
class ChallengeOutcome:
    auth: ThreeDSAuthentication
    wrong_code: bool = False  # a wrong one-time password that left attempts
    waiting: bool = False  # an on-us card's out-of-band request not answered yet
    code_resent: bool = False  # an on-us card's code had expired: its issuer sent a new one

    @property
    def attempts_left(self) -> int:
        return acs.MAX_OTP_ATTEMPTS - self.auth.otp_attempts


def threeds_answer_challenge(
    *, auth_id: str, nonce: str, otp: str = "", cancel: bool = False
) -> ChallengeOutcome:
    """The challenge form's answer: cancel, the right one-time password (the ACS's decision), or
    a wrong one. Three wrong codes fail the authentication, also across a new code an on-us
    card's issuer sends when its code (OTP_SECONDS) expired before the challenge did. Locked:
    concurrent wrong codes are each counted. 403 for another authentication's nonce, 409 when it
    has already ended."""
    with transaction.atomic(durable=True):
        auth = threeds_lock(auth_id)
        if nonce != auth.nonce:
            raise Forbidden("This form does not belong to this authentication.")
        THREEDS_LIFECYCLE.check(auth.state, ThreeDSState.CANCELLED)  # 409 once it has ended
        if cancel:
            claimed = _conclude(auth, ThreeDSState.CANCELLED)
        elif auth.issuer_method == onus_port.OOB:
            outcome = _access_control().oob_outcome(auth.issuer_reference)
            if not outcome:
                return ChallengeOutcome(auth, waiting=True)
            claimed = _conclude(auth, outcome)
        elif auth.issuer_method == onus_port.OTP:
            check = _access_control().otp_verify(auth.issuer_reference, otp.strip())
            if check.verified:
                claimed = _conclude(auth, "Y")
            elif check.expired and _past_lifetime(auth):
                claimed = _conclude(auth, ThreeDSState.EXPIRED)
            elif check.expired:
                _issuer_challenge_start(auth)  # a new code; the wrong ones so far still count
                return ChallengeOutcome(auth, code_resent=True)
            elif _count_wrong_code(auth) and check.attempts_left:
                return ChallengeOutcome(auth, wrong_code=True)
            else:
                claimed = _conclude(auth, "N")
        elif otp.strip() == acs.OTP:
            claimed = _conclude(auth, auth.issuer_result)
        elif _count_wrong_code(auth):
            return ChallengeOutcome(auth, wrong_code=True)
        else:
            claimed = _conclude(auth, "N")
    engine.complete(claimed)
    return ChallengeOutcome(auth)


def _count_wrong_code(auth: ThreeDSAuthentication) -> bool:
    """Count a wrong one-time password (one UPDATE, under the lock); whether attempts are left."""
    ThreeDSAuthentication.objects.filter(pk=auth.pk).update(otp_attempts=F("otp_attempts") + 1)
    auth.refresh_from_db(fields=["otp_attempts"])
    return auth.otp_attempts < acs.MAX_OTP_ATTEMPTS


def threeds_complete(*, auth_id: str, outcome: str) -> ThreeDSAuthentication:
    """End an authentication with `outcome` (a transStatus Y, A or N, or CANCELLED or EXPIRED)
    and finish its payment. Refused (409, 700.400.720) when it has already ended."""
    with transaction.atomic(durable=True):
        auth = threeds_lock(auth_id)
        claimed = _conclude(auth, outcome)
    engine.complete(claimed)
    return auth


def _conclude(auth: ThreeDSAuthentication, outcome: str) -> engine.Claim:
    """Under the lock of `auth` and its payment: record the authentication's result, end the
    payment with the 3DS code when it failed, or leave it IN_FLIGHT for the authorization. An
    answer that comes after the authentication's lifetime expires it instead (whether or not the
    beat task has run): a late shopper is not authorized."""
    payment = auth.payment
    if outcome != ThreeDSState.EXPIRED and _past_lifetime(auth):
        THREEDS_LIFECYCLE.check(auth.state, ThreeDSState.EXPIRED)
        outcome = ThreeDSState.EXPIRED
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
    refusal = REFUSAL_BY_STATE.get(ThreeDSState(auth.state))
    if refusal is not None:
        return engine.Claim(engine.finish_with(payment, refusal))
    PAYMENT_STATE.check(payment.state, PaymentState.IN_FLIGHT)
    engine.mark_in_flight(payment)
    payment.save()
    return engine.Claim(payment, ask=_authorize, settle=network.settle_authorization)


def _past_lifetime(auth: ThreeDSAuthentication) -> bool:
    return auth.expires_at <= timezone.now()


def _authorize(connector: Connector, payment: Payment) -> NetworkAnswer:
    return network.authorize(connector, payment, pan=cards.decrypt_pan(payment.pan_ciphertext))


def threeds_expire(*, batch: int = 200) -> int:
    """End authentications past their lifetime (beat, every minute). Returns how many."""
    expired = 0
    due = list(
        ThreeDSAuthentication.objects.filter(
            state__in=(ThreeDSState.PENDING, ThreeDSState.CHALLENGE), expires_at__lte=timezone.now()
        ).values_list("pk", flat=True)[:batch]
    )
    for auth_id in due:
        with transaction.atomic(durable=True):
            auth = threeds_lock(auth_id)
            if auth.is_final:
                continue  # completed by the shopper meanwhile
            _conclude(auth, ThreeDSState.EXPIRED)  # no network: the payment ends with 100.396.103
            expired += 1
    return expired
