"""Every write to payments: one public function per use case, keyword-only typed arguments.

| use case | function | module |
|---|---|---|
| PA preauthorization | `payment_authorize` | initial.py |
| DB debit | `payment_debit` | initial.py |
| CD credit | `payment_credit` | initial.py |
| CV card verification | `payment_verify` | initial.py |
| CP capture | `payment_capture` | referenced.py |
| RV reversal | `payment_reverse` | referenced.py |
| RF refund | `payment_refund` | referenced.py |
| PR POS refund | `payment_pos_refund` | referenced.py |
| close PAs past their validityPeriod | `payment_close_expired` | expiry.py |
| resolve payments left in flight | `payment_resolve_in_flight` | janitor.py |
| 3-D Secure start (in the payment's claim) | `threeds_start` | initial.py |
| 3-D Secure completion, expiry | `threeds_*` | payments/threeds/services.py |

The steps they share (claim the reference, ask the network outside any transaction, finalize,
replay) are in engine.py, the network's requests and the approval rule in network.py, the row
locks in lock_objects.py, the typed values in types.py.
"""

from .expiry import payment_close_expired
from .initial import (
    payment_authorize,
    payment_credit,
    payment_debit,
    payment_verify,
    threeds_requested,
)
from .janitor import Resolution, payment_resolve_in_flight
from .referenced import payment_capture, payment_pos_refund, payment_refund, payment_reverse
from .types import (
    NO_DETAILS,
    NO_THREEDS,
    Caller,
    Card,
    Details,
    Money,
    PaymentOutcome,
    SchemeToken,
    StandingInstructionRequest,
    StoredCard,
    ThreeDSRequest,
)

__all__ = [
    "NO_DETAILS",
    "NO_THREEDS",
    "Caller",
    "Card",
    "Details",
    "Money",
    "PaymentOutcome",
    "Resolution",
    "SchemeToken",
    "StandingInstructionRequest",
    "StoredCard",
    "ThreeDSRequest",
    "payment_authorize",
    "payment_capture",
    "payment_close_expired",
    "payment_credit",
    "payment_debit",
    "payment_pos_refund",
    "payment_refund",
    "payment_resolve_in_flight",
    "payment_reverse",
    "payment_verify",
    "threeds_requested",
]
