"""Services of the Authentication group: out-of-band authentications (StartOOBAuthen,
OOBResultInquiry, the cardholder page, expiry) and one-time passwords (SendOTP, VerifyOTP).

Every read is scoped to the requestor (`client_id` of its access token): another requestor's
authentication or password answers exactly like an unknown id. Every state change locks its row
(lock_objects.py) and checks the transition after the lock, so a cardholder's answer, a
requestor's inquiry and the expiry task cannot both decide one authentication.

Secrets are stored as keyed hashes (HMAC-SHA256 with SECRET_KEY, `salted_hmac`): the
cardholder link's token and the one-time password. A six-digit code has only a million values;
without the key a copy of the database does not reveal it.
"""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from core import results as core_results
from core.converters import is_hex_id
from core.errors import ApplicationError, Conflict, NotFound

from . import results
from .lock_objects import oob_lock, otp_lock
from .models import OOB_LIFECYCLE, OOBAuthentication, OOBStatus, OTPChallenge

DEFAULT_OOB_SECONDS = 300
MIN_OOB_SECONDS = 30
MAX_OOB_SECONDS = 900
OTP_SECONDS = 300
OTP_DIGITS = 6
LINK_TOKEN_BYTES = 32  # 256 bits, URL-safe base64: not guessable


class OOBAlreadyDecided(Conflict):
    """The authentication is final (its status is on `authentication`); nothing was changed."""

    def __init__(self, authentication: OOBAuthentication):
        super().__init__(
            results.OOB_ALREADY_DECIDED, f"this authentication is already {authentication.status}"
        )
        self.authentication = authentication


def _hash(purpose: str, value: str) -> str:
    return salted_hmac(f"issuer.{purpose}", value, algorithm="sha256").hexdigest()


# --- out-of-band authentications -----------------------------------------------------------------


def oob_start(
    *,
    client_id: str,
    card_reference: str,
    transaction_id: str,
    amount: Decimal,
    currency: str,
    merchant_name: str,
    expiry_seconds: int = DEFAULT_OOB_SECONDS,
    now: datetime | None = None,
) -> tuple[OOBAuthentication, str]:
    """Start an authentication the cardholder answers on the page the issuer pushes to its app.
    Returns the row and the link token (only its hash is stored). A transactionId already used
    by this requestor is refused with the existing authentication's id."""
    if not MIN_OOB_SECONDS <= expiry_seconds <= MAX_OOB_SECONDS:
        raise ValueError("expiry_seconds out of range")
    now = now or timezone.now()
    link_token = secrets.token_urlsafe(LINK_TOKEN_BYTES)
    auth = OOBAuthentication(
        client_id=client_id,
        card_reference=card_reference,
        transaction_id=transaction_id,
        amount=amount,
        currency=currency,
        merchant_name=merchant_name,
        expires_at=now + timedelta(seconds=expiry_seconds),
    )
    auth.link_token_hash = _hash(f"oob-link:{auth.id}", link_token)
    try:
        with transaction.atomic():
            auth.save(force_insert=True)
    except IntegrityError:
        existing = OOBAuthentication.objects.filter(
            client_id=client_id, transaction_id=transaction_id
        ).first()
        if existing is None:  # not the unique constraint: let it surface
            raise
        raise ApplicationError(
            core_results.DUPLICATE_ENTRY,
            "transactionId already used for an out-of-band authentication of this requestor",
            data={"authenticationId": existing.pk, "status": existing.status},
        ) from None
    return auth, link_token


def oob_get_for_client(
    *, client_id: str, authentication_id: str, now: datetime | None = None
) -> OOBAuthentication:
    """A requestor's own authentication (another's answers as unknown). One still PENDING past
    its expiry is expired now rather than reported PENDING until the task runs."""
    auth = OOBAuthentication.objects.filter(pk=authentication_id, client_id=client_id).first()
    if auth is None:
        raise NotFound(
            core_results.REFERENCE_NOT_FOUND,
            "no out-of-band authentication with this authenticationId for this requestor",
        )
    now = now or timezone.now()
    if oob_status_at(auth, now) != auth.status:  # overdue: record it
        auth = _expire_if_due(auth.pk, now)
    return auth


def oob_status_at(auth: OOBAuthentication, now: datetime | None = None) -> OOBStatus:
    """What an authentication is at `now`: its status, or EXPIRED for one still PENDING past its
    expiry, whether or not the expiry task (or an answer, or the requestor's inquiry) has
    recorded it yet. Writes nothing: the cardholder's page shows it on a GET."""
    now = now or timezone.now()
    if auth.status == OOBStatus.PENDING and auth.expires_at <= now:
        return OOBStatus.EXPIRED
    return OOBStatus(auth.status)


def oob_for_link(*, authentication_id: str, link_token: str) -> OOBAuthentication | None:
    """The authentication a cardholder link names, or None when the id or the token is wrong
    (both answer the same, so a link cannot be used to learn which ids exist)."""
    if not is_hex_id(authentication_id):  # cannot exist; and NUL would fail PostgreSQL's look-up
        return None
    auth = OOBAuthentication.objects.filter(pk=authentication_id).first()
    if auth is None or not constant_time_compare(
        auth.link_token_hash, _hash(f"oob-link:{auth.pk}", link_token)
    ):
        return None
    return auth


def oob_decide(
    *, authentication_id: str, status: str, now: datetime | None = None
) -> OOBAuthentication:
    """Move a PENDING authentication to a final status (SUCCESS, REJECTED, EXPIRED, CANCELLED,
    ERROR), once. Locks the row; raises OOBAlreadyDecided, changing nothing, when it is final.
    An answer (SUCCESS or REJECTED) that arrives after the expiry is not recorded: the
    authentication becomes EXPIRED, which it already was, and OOBAlreadyDecided is raised."""
    now = now or timezone.now()
    with transaction.atomic():
        auth = oob_lock(authentication_id=authentication_id)
        if not OOB_LIFECYCLE.allows(auth.status, status):
            raise OOBAlreadyDecided(auth)
        late = status in (OOBStatus.SUCCESS, OOBStatus.REJECTED) and auth.expires_at <= now
        auth.decided_at = now
        OOB_LIFECYCLE.apply(auth, OOBStatus.EXPIRED if late else status, save_fields=["decided_at"])
    if late:
        raise OOBAlreadyDecided(auth)
    return auth


def oob_cardholder_answer(
    *, authentication_id: str, link_token: str, approve: bool, now: datetime | None = None
) -> OOBAuthentication | None:
    """The cardholder's Approve or Reject from the page. None when the link is wrong; raises
    OOBAlreadyDecided when it was answered, expired or cancelled before."""
    auth = oob_for_link(authentication_id=authentication_id, link_token=link_token)
    if auth is None:
        return None
    return oob_decide(
        authentication_id=auth.pk,
        status=OOBStatus.SUCCESS if approve else OOBStatus.REJECTED,
        now=now,
    )


def _expire_if_due(authentication_id: str, now: datetime) -> OOBAuthentication:
    try:
        return oob_decide(authentication_id=authentication_id, status=OOBStatus.EXPIRED, now=now)
    except OOBAlreadyDecided:  # answered meanwhile: report what was decided
        return OOBAuthentication.objects.get(pk=authentication_id)


def oob_expire_due(*, batch: int = 500, now: datetime | None = None) -> int:
    """End PENDING authentications past their expiry (beat, every minute). Returns how many."""
    now = now or timezone.now()
    due = list(
        OOBAuthentication.objects.filter(status=OOBStatus.PENDING, expires_at__lte=now).values_list(
            "pk", flat=True
        )[:batch]
    )
    expired = 0
    for authentication_id in due:
        if _expire_if_due(authentication_id, now).status == OOBStatus.EXPIRED:
            expired += 1
    return expired


# --- one-time passwords ------------------------------------------------------------------------


def _otp_hash(otp_id: str, code: str) -> str:
    return _hash(f"otp:{otp_id}", code)


def otp_send(
    *,
    client_id: str,
    card_reference: str,
    transaction_id: str,
    channel: str,
    now: datetime | None = None,
) -> tuple[OTPChallenge, str]:
    """Create a one-time password for the cardholder and "send" it over the channel (the
    simulator sends nothing: the caller gets the code back to show as simulatorCode). Only a
    keyed hash of the code is stored."""
    now = now or timezone.now()
    code = f"{secrets.randbelow(10**OTP_DIGITS):0{OTP_DIGITS}d}"
    otp = OTPChallenge(
        client_id=client_id,
        card_reference=card_reference,
        transaction_id=transaction_id,
        channel=channel,
        expires_at=now + timedelta(seconds=OTP_SECONDS),
    )
    otp.code_hash = _otp_hash(otp.pk, code)
    otp.save(force_insert=True)
    return otp, code


def masked_contact(contact: str) -> str:
    """Where the code went, as the cardholder would recognise it: +49*******67, e***@example.org."""
    if "@" in contact:
        local, _, domain = contact.partition("@")
        return f"{local[:1]}***@{domain}"
    return contact[:3] + "*" * max(0, len(contact) - 5) + contact[-2:]


@dataclass(frozen=True)
class OTPOutcome:
    result: core_results.Result
    otp: OTPChallenge

    @property
    def verified(self) -> bool:
        return self.result.is_success


def otp_verify(
    *, client_id: str, otp_id: str, code: str, now: datetime | None = None
) -> OTPOutcome:
    """Check a code under the row lock. A wrong code uses one of the three attempts (stored: it
    is an outcome, not an error); the right one verifies the password, once. Expired, blocked or
    used passwords are refused without using an attempt."""
    now = now or timezone.now()
    with transaction.atomic():
        otp = otp_lock(client_id=client_id, otp_id=otp_id)
        if otp is None:
            raise NotFound(
                core_results.REFERENCE_NOT_FOUND,
                "no one-time password with this otpId for this requestor",
            )
        if otp.verified_at is not None:
            return OTPOutcome(results.OTP_ALREADY_USED, otp)
        if otp.attempts >= OTPChallenge.MAX_ATTEMPTS:
            return OTPOutcome(results.OTP_BLOCKED, otp)
        if otp.expires_at <= now:
            return OTPOutcome(results.OTP_EXPIRED, otp)
        if constant_time_compare(otp.code_hash, _otp_hash(otp.pk, code)):
            otp.verified_at = now
            otp.save(update_fields=["verified_at"])
            return OTPOutcome(core_results.REQUEST_SUCCEEDED, otp)
        otp.attempts += 1
        otp.save(update_fields=["attempts"])
        return OTPOutcome(
            results.OTP_BLOCKED if otp.attempts_left == 0 else results.OTP_WRONG_CODE, otp
        )
