"""The identifiers a network gives an answer (ARN, its request id, the approval code), derived
from the platform's reference of the request: asked again later (`inquire`, a replay), a
connector gives the same ones. The STAN and RRN are the acquirer's, assigned at the claim
(payments/services/trace.py) and echoed; derived here only for a request that has none (a
payment claimed before they were assigned). The simulator and the on-us connector both use
them."""

import hashlib

AUTH_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"


def _digits(seed: bytes, count: int) -> str:
    number = int.from_bytes(hashlib.sha256(seed).digest(), "big")
    return f"{number % 10**count:0{count}d}"


def answer_ids(
    reference: str, kind: str, stan: str = "", retrieval_ref_no: str = ""
) -> dict[str, str]:
    """stan, retrieval_ref_no, acquirer_ref_no and network_reference (NetworkAnswer's names) of
    the request `reference` of this `kind` ("auth" or "follow-up"), with the acquirer's STAN and
    RRN where it has them."""
    seed = f"{kind}:{reference}".encode()
    return {
        "stan": stan or _digits(seed + b"stan", 6),
        "retrieval_ref_no": retrieval_ref_no or _digits(seed + b"rrn", 12),
        "acquirer_ref_no": _digits(seed + b"arn", 23),
        "network_reference": "SIM" + _digits(seed + b"request", 15),
    }


def auth_code(reference: str) -> str:
    """The six-character approval code of the authorization `reference`."""
    digest = hashlib.sha256(f"auth:{reference}".encode()).digest()
    return "".join(AUTH_CODE_ALPHABET[byte % len(AUTH_CODE_ALPHABET)] for byte in digest[:6])
