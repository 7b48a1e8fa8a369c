"""The typed values a payment use case takes: never the request mapping.

The API layer (payments.api.commands) builds these from a validated table; a Celery task, the
portal or a replay builds them from its own data. Card data lives only in `Card`, whose repr
hides the number and the CVV.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.idempotency import Outcome
from merchants.models import Entity, Merchant
from terminals.models import Terminal

from ..models import Payment
from ..registrations.types import StandingInstructionRequest


@dataclass(frozen=True)
class Caller:
    """Who pays: the acting entity, its type, the merchant and (POS) the terminal; base_url is
    where this platform is reached (for 3-D Secure redirects)."""

    entity: Entity
    entity_type: str
    merchant: Merchant
    terminal: Terminal | None
    base_url: str = ""


@dataclass(frozen=True)
class Card:
    number: str = field(repr=False)
    expiry_month: str
    expiry_year: str
    holder: str = ""
    cvv: str = field(default="", repr=False)


@dataclass(frozen=True)
class StoredCard:
    """The card of a registration (card on file): the vault's, never sent again; `cvv` only
    when the cardholder is present to give it (a CIT)."""

    registration_id: str
    cvv: str = field(default="", repr=False)


@dataclass(frozen=True)
class SchemeToken:
    """A scheme token of the caller's merchant (card.token): the token service detokenizes it
    to the funding card for the network; the payment shows the token's own last four."""

    reference: str


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str


@dataclass(frozen=True)
class Details:
    """What a payment carries besides its card and money; `data` holds its data groups
    (customer, billing, cart, risk, custom parameters, 3-D Secure data) as stored, by dotted
    name, JSON-ready and free of card data."""

    payment_brand: str = ""
    tax_amount: Decimal | None = None
    descriptor: str = ""
    transaction_source: str = ""
    transaction_category: str = ""
    merchant_invoice_id: str = ""
    merchant_memo: str = ""
    checkout_type: str = ""
    validity_period_ms: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    create_registration: bool = False  # store the card when approved (createRegistration)
    standing: StandingInstructionRequest | None = None

    def get(self, name: str, default: str = "") -> Any:
        return self.data.get(name, default)


@dataclass(frozen=True)
class ThreeDSRequest:
    """The 3-D Secure part of a PA or DB: `indicator` force, true, third or "" (none)."""

    indicator: str = ""
    amount: Money | None = None  # threeDSecure.amount/currency, when other than the payment's
    challenge_indicator: str = "01"
    challenge_window: str = "05"
    shopper_result_url: str = ""
    browser: Mapping[str, str] = field(default_factory=dict)
    cardholder_history: Mapping[str, str] = field(default_factory=dict)
    flags: Mapping[str, str] = field(default_factory=dict)  # customParameters: 3DS2_flow, ...


NO_THREEDS = ThreeDSRequest()
NO_DETAILS = Details()


@dataclass(frozen=True)
class PaymentOutcome(Outcome):
    payment: Payment | None = None
