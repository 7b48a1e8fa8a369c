"""The simulated ACS (the card issuer's access control server): what it decides for a card,
deterministically (docs/api.md, "3-D Secure test cards"). The decision is made when the
authentication starts; the pages only carry the shopper through it."""

import base64
import secrets
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

CHALLENGE, FRICTIONLESS = "CHALLENGE", "FRICTIONLESS"
OTP = "1234"  # the one-time password that succeeds in the challenge
MAX_OTP_ATTEMPTS = 3
CHALLENGE_AMOUNT = Decimal("500.00")

# card number -> (flow, transStatus at the end, method step, version)
CARDS: dict[str, tuple[str | None, str, bool, str]] = {
    "4000000000001000": (FRICTIONLESS, "Y", False, "2.2.0"),
    "4000000000001091": (CHALLENGE, "Y", False, "2.2.0"),
    "4000000000001109": (FRICTIONLESS, "N", False, "2.2.0"),
    "4000000000001117": (FRICTIONLESS, "A", False, "2.2.0"),
    "4000000000001125": (None, "Y", True, "2.2.0"),
    "4000000000001133": (FRICTIONLESS, "Y", False, "2.1.0"),
}

# ECI by brand and transStatus (Mastercard numbers its ECIs differently).
ECI = {
    ("MASTER", "Y"): "02",
    ("MASTER", "A"): "01",
    ("MASTER", "N"): "00",
    ("*", "Y"): "05",
    ("*", "A"): "06",
    ("*", "N"): "07",
}


@dataclass(frozen=True)
class Decision:
    flow: str
    issuer_result: str
    method_required: bool
    version: str


def version_for(pan: str) -> str:
    return CARDS.get(pan, (None, "Y", False, "2.2.0"))[3]


def decide(
    *,
    pan: str,
    amount: Decimal,
    challenge_indicator: str,
    risk_decision: str,
    flags: dict[str, Any],
) -> Decision:
    """Frictionless or challenge, in this order: the test card, customParameters[3DS2_flow],
    challengeIndicator 04 (mandated), a risk CHALLENGE, the amount (500.00 or more), then
    challengeIndicator 03 (requested); 02 (no challenge) and 01 leave it frictionless."""
    card_flow, result, method, version = CARDS.get(pan, (None, "Y", False, "2.2.0"))
    method = method or str(flags.get("3DS2_method", "")).lower() == "true"
    forced = str(flags.get("3DS2_flow", "")).lower()
    if card_flow is not None:
        flow = card_flow
    elif forced in ("challenge", "frictionless"):
        flow = forced.upper()
    elif (
        challenge_indicator == "04"
        or risk_decision == "CHALLENGE"
        or amount >= CHALLENGE_AMOUNT
        or challenge_indicator == "03"
    ):
        flow = CHALLENGE
    else:
        flow = FRICTIONLESS
    return Decision(flow, result, method, version)


def eci_for(brand: str, trans_status: str) -> str:
    return ECI.get((brand, trans_status)) or ECI.get(("*", trans_status), "07")


def authentication_value() -> str:
    """A CAVV-like 20-byte value, base64."""
    return base64.b64encode(secrets.token_bytes(20)).decode()
