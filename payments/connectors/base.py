"""What a connector to a card network is asked, and what it answers.

A connector decides what the network would say; it never touches the payment tables. Requests
carry the PAN and CVV in memory only (`repr` hides them) for the duration of the call, and the
platform's `reference` (the payment's id), by which the network can later be asked what became
of a request whose answer was lost (`inquire`).

A connector is either remote or local:
- remote (a network, like the simulator): called with its `timeout` outside any database
  transaction, between the transaction that claims the payment and the one that finalizes it
  (payments.services.engine). A call that exceeds the timeout or loses its connection raises
  `ConnectorUnavailable`; the payment stays IN_FLIGHT and the janitor resolves it.
- local (the platform's own issuer, the on-us connector): no network; it decides and posts
  inside the finalize transaction, under the same locks, so the issuer's ledger and the
  acquirer's totals commit together.
"""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from core.results import Result


class ConnectorUnavailable(Exception):
    """No answer from the network in time (a timeout, a lost connection): the outcome is not
    known here. Never carries card data."""


class NetworkUnreachable(ConnectorUnavailable):
    """The network cannot be reached now (the link is down): nothing was sent, so the outcome
    is known: nothing happened. The payment answers 900.100.600 at once."""


@dataclass(frozen=True)
class AuthRequest:
    payment_type: str
    amount: Decimal | None
    currency: str
    brand: str
    pan: str = field(repr=False)
    expiry_month: str
    expiry_year: str
    cvv: str = field(default="", repr=False)
    holder: str = ""
    billing_street: str = ""
    billing_postcode: str = ""
    entry_mode: str = "81"
    reference: str = ""
    custom: dict[str, str] = field(default_factory=dict)
    # Card on file (standingInstruction.* as sent: source, mode, type, initialTransactionId,
    # industryPractice, ...): the network learns a payment is a stored-credential one.
    stored_credential: dict[str, str] = field(default_factory=dict)
    # The merchant, as the card's issuer sees it (its limits by country and channel, and the
    # cardholder's statement); and until when a PA holds the money.
    merchant_name: str = ""
    merchant_country: str = ""
    mcc: str = ""
    expires_at: datetime | None = None
    # A payment with a scheme token: its expiry is the token's, not the funding card's.
    scheme_token: str = ""
    # Who accepts the card, as an ISO 8583 link names them (fields 41, 42), and the acquirer's
    # STAN and RRN of the request (fields 11, 37), when it assigned them (payments.services.trace).
    merchant_id: str = ""
    terminal_id: str = ""
    stan: str = ""
    retrieval_ref_no: str = ""


@dataclass(frozen=True)
class ReferenceRequest:
    """A CP, RV, RF or PR against an original the network has already seen."""

    payment_type: str
    amount: Decimal | None
    currency: str
    original_auth_code: str
    original_retrieval_ref_no: str
    reference: str = ""
    original_reference: str = ""
    card_bin: str = ""
    card_last4: str = ""
    merchant_id: str = ""
    terminal_id: str = ""
    original_stan: str = ""
    stan: str = ""
    retrieval_ref_no: str = ""
    # A reversal the acquirer asserts rather than asks (an RV with transactionSource TIMEOUT):
    # over the ISO 8583 link it is a 0420 advice, owed until the network acknowledges it.
    advice: bool = False


@dataclass(frozen=True)
class NetworkAnswer:
    result: Result
    auth_code: str = ""
    acquirer_response: str = ""
    avs_response: str = ""
    cvv_response: str = ""
    mac_response: str = ""
    stan: str = ""
    retrieval_ref_no: str = ""
    acquirer_ref_no: str = ""
    network_reference: str = ""  # the network's own transaction reference (RequestId)
    extended_description: str = ""
    # Who took the payment (resultDetails.clearingInstituteName): the network, or for an on-us
    # card the platform's own issuer. Empty for the platform's own refusals.
    clearing_institute: str = ""
    # The advice the network is owed for this answer ("0420": a reversal the acquirer approved on
    # its own word, told to the network afterwards by the ReversalAdvice row the finalize writes,
    # payments.services.advices); "" for none.
    owed_advice: str = ""

    @property
    def approved(self) -> bool:
        return self.result.is_success


class Connector(Protocol):
    name: str
    remote: bool  # a network: called outside any transaction; local: inside the finalize one
    timeout: float  # seconds a remote call may take; older IN_FLIGHT rows go to the janitor

    def authorize(self, request: AuthRequest) -> NetworkAnswer: ...

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer: ...

    def inquire(self, request: AuthRequest | ReferenceRequest) -> NetworkAnswer | None:
        """What became of `request` (found by its reference), or None when the network cannot
        say. Raises ConnectorUnavailable when it cannot be asked now."""
        ...
