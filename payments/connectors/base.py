"""What a connector to a card network is asked, and what it answers.

A connector decides what the network would say; it never touches the database. Requests carry
the PAN and CVV in memory only (`repr` hides them) for the duration of the call.
"""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from core.results import Result


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
    custom: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReferenceRequest:
    """A CP, RV, RF or PR against an original the network has already seen."""

    payment_type: str
    amount: Decimal | None
    currency: str
    original_auth_code: str
    original_retrieval_ref_no: str


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
    extended_description: str = ""

    @property
    def approved(self) -> bool:
        return self.result.is_success


class Connector(Protocol):
    name: str

    def authorize(self, request: AuthRequest) -> NetworkAnswer: ...

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer: ...
