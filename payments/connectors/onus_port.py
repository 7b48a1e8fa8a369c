"""The port the platform's own issuer plugs into: all the acquirer knows of it.

The acquirer and the issuer are two businesses a bank may run apart, so payments never imports
the issuer. When the issuer app is installed, it implements `OnUsIssuer` and registers it once
(`issuer_register`, from its AppConfig.ready, the way it registers tokenization's token decider);
without it, `registered()` is None and every card goes to the network (on-us routing is off).

The port has two faces:
- the ledger (used by the on-us connector, onus.py, and the routing): is this card one of
  yours (by its fingerprint)? authorize a PA, DB, CD or CV; follow up with a CP, RV, RF or PR.
  The issuer answers an `IssuerDecision`: an ISO 8583 response code and a reason, never its own
  result codes; payments reads the code through its one table (responses.py).
- the local access control (used by 3-D Secure, payments/threeds/services.py, beside the
  simulated ACS of payments/threeds/acs.py): how the card's holder authenticates, start the
  challenge (an out-of-band request to the cardholder's app, or a one-time password by SMS or
  e-mail), then ask for the out-of-band outcome or verify a code.

Both are local: called inside the acquirer's transactions (the ledger inside the finalize
transaction, under the payment's locks), with no network in between.
"""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from .responses import APPROVED

# --- the ledger -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LedgerAuthorization:
    """A PA, DB, CD or CV on one of the issuer's cards. Card data in memory only (`repr`
    hides it)."""

    payment_type: str
    reference: str  # the payment's id: the issuer's idempotency key for it
    number: str
    expiry_month: str
    expiry_year: str
    cvv: str
    amount: Decimal
    currency: str
    channel: str  # ECOMMERCE (card not present) or POS
    merchant_name: str
    mcc: str
    country: str  # the merchant's
    expires_at: datetime | None = None  # a PA's validity end
    token: bool = False  # paid with a scheme token: the expiry sent is the token's

    def __repr__(self) -> str:
        return f"LedgerAuthorization({self.payment_type} {self.reference})"


@dataclass(frozen=True)
class LedgerFollowUp:
    """A CP, RV, RF or PR on an original payment the issuer authorized (its id)."""

    payment_type: str
    reference: str
    original_reference: str
    amount: Decimal
    currency: str


@dataclass(frozen=True)
class IssuerDecision:
    """The issuer's answer, in the networks' language: an ISO 8583 response code ("00"
    approved), the reason in words (informational, like ISO 8583's additional response data:
    the acquirer answers by the code alone), and the issuer's transaction id (empty when it
    refused before writing one)."""

    response_code: str
    reason: str = ""
    transaction_id: str = ""

    @property
    def approved(self) -> bool:
        return self.response_code == APPROVED


class IssuerLedger(Protocol):
    def owns(self, fingerprint: str) -> bool:
        """Whether the card with this PAN fingerprint (core.cards.fingerprint) is one of the
        issuer's cards."""
        ...

    def authorize(self, request: LedgerAuthorization) -> IssuerDecision:
        """Decide and post a PA (hold), DB (purchase), CD (credit) or CV (verification).
        Asked twice with the same reference, it answers the first decision again."""
        ...

    def follow_up(self, request: LedgerFollowUp) -> IssuerDecision:
        """A CP (the hold shrinks, the amount is posted), RV (hold released or posting undone),
        RF or PR (money back) on the original. Idempotent by reference, as `authorize`."""
        ...


# --- the local access control (3-D Secure) --------------------------------------------------

OOB, OTP = "OOB", "OTP"  # how the cardholder authenticates: its app, or a one-time password


@dataclass(frozen=True)
class Challenge:
    """A challenge the issuer started: what the challenge page needs of it."""

    reference: str  # the out-of-band authentication's or the one-time password's id
    secret: str  # OOB: the cardholder's approval link (the simulator's push); OTP: the code a
    # simulator may show ("" when the issuer sends it to the device only)
    sent_to: str = ""  # OTP: the masked mobile number or e-mail address


@dataclass(frozen=True)
class OtpCheck:
    verified: bool
    attempts_left: int
    expired: bool = False  # the code outlived its lifetime (no attempt used)


class LocalAccessControl(Protocol):
    def method(self, number: str) -> str | None:
        """How the card's holder authenticates: OOB, OTP, "" for no registered channel
        (frictionless), None for a card that is not the issuer's."""
        ...

    def oob_start(
        self,
        *,
        number: str,
        transaction_id: str,
        amount: Decimal,
        currency: str,
        merchant_name: str,
    ) -> Challenge:
        """Send the cardholder's app an out-of-band request to approve this payment."""
        ...

    def oob_outcome(self, reference: str) -> str:
        """The out-of-band request's outcome as a transStatus: Y approved, N rejected, ""
        still pending, EXPIRED when the cardholder did not answer in time."""
        ...

    def otp_send(self, *, number: str, transaction_id: str) -> Challenge:
        """Send the cardholder a one-time password (SMS or e-mail, the card's channel)."""
        ...

    def otp_verify(self, reference: str, code: str) -> OtpCheck:
        """Check a one-time password typed on the challenge page (counts a wrong one)."""
        ...


class OnUsIssuer(IssuerLedger, LocalAccessControl, Protocol):
    """What the platform's own issuer implements and registers."""


# --- the registry -----------------------------------------------------------------------------

_issuer: OnUsIssuer | None = None


def issuer_register(issuer: OnUsIssuer | None) -> None:
    """Plug the platform's own issuer in (None unplugs it: on-us routing off)."""
    global _issuer
    _issuer = issuer


def registered() -> OnUsIssuer | None:
    """The platform's own issuer, or None when this acquirer runs without one."""
    return _issuer
