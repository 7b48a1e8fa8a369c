"""The typed standing instruction a payment use case takes (re-exported by
payments.services.types)."""

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class StandingInstructionRequest:
    """standingInstruction.* of a payment (card on file). `mode` is defaulted by the API layer:
    REPEATED for a merchant-initiated payment (MIT), INITIAL for a cardholder-initiated one
    (CIT) that does not say."""

    source: str  # CIT or MIT
    mode: str  # INITIAL or REPEATED
    type: str = ""  # UNSCHEDULED, INSTALLMENT, RECURRING
    initial_transaction_id: str = ""
    industry_practice: str = ""
    expiry: date | None = None
    frequency: int | None = None  # minimum days between authorizations
    installments: int | None = None  # numberOfInstallments

    @property
    def merchant_initiated(self) -> bool:
        return self.source == "MIT"

    @property
    def initial(self) -> bool:
        return self.mode == "INITIAL"
