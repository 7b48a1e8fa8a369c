"""Built-in risk screening (risk.systemID=INTERNAL), documented in docs/api.md ("Risk").

A score from 0 to 100 from simple, explainable rules; DECLINE stops the payment (100.400.311),
CHALLENGE and ACCEPT let it proceed (a challenge becomes a 3-D Secure step with the 3DS work).
Other systemIDs name external risk systems, which are not connected: no score is given.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

INTERNAL = "INTERNAL"
ACCEPT, CHALLENGE, DECLINE = "ACCEPT", "CHALLENGE", "DECLINE"
DECISIONS = (ACCEPT, CHALLENGE, DECLINE)

HIGH_AMOUNT = Decimal("10000.00")


@dataclass(frozen=True)
class Assessment:
    score: str
    decision: str


def assess(*, system_id: str, amount: Decimal | None, data: Mapping[str, Any]) -> Assessment | None:
    """Score a payment of `amount` with its data groups (`data`, by dotted name)."""
    if system_id != INTERNAL:
        return None
    flat = data
    score = 0
    if (amount or Decimal("0")) >= HIGH_AMOUNT:
        score += 60
    billing, shipping = flat.get("billing.country"), flat.get("shipping.country")
    if billing and shipping and billing != shipping:
        score += 20
    if not flat.get("customer.email"):
        score += 10
    if flat.get("customer.ip") and flat.get("risk.parameters[BLOCKED_IP]") == flat.get(
        "customer.ip"
    ):
        score = 100
    forced = str(flat.get("risk.parameters[FORCE_DECISION]", "")).upper()
    if forced in DECISIONS:
        decision = forced
    else:
        decision = DECLINE if score >= 70 else CHALLENGE if score >= 40 else ACCEPT
    return Assessment(str(min(score, 100)), decision)
