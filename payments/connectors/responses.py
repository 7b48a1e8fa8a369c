"""ISO 8583 response codes (field 39) and the result code a merchant gets for each: the one
table through which a card's issuer's answer becomes a payment's `result.code`.

The simulator's test cards answer these codes, and so does the platform's own issuer through its
port (onus_port.IssuerDecision): an issuer's reason reaches the merchant as the same code whichever
way the card went, and payments never reads an issuer's own result codes. docs/api.md ("ISO 8583
response codes") lists the table.
"""

from core import results as core_results
from core.results import Result

from .. import results

APPROVED = "00"
DO_NOT_HONOUR = "05"

RESPONSES: dict[str, tuple[Result, str]] = {
    # code: (what the merchant gets, what the code means)
    APPROVED: (core_results.TRANSACTION_SUCCEEDED, "approved"),
    DO_NOT_HONOUR: (results.DECLINED_BY_ISSUER, "do not honour"),
    "14": (results.DECLINED_INVALID_CARD, "invalid card number"),
    "41": (core_results.DECLINED_CARD_LOST, "lost card, pick up"),
    "43": (core_results.DECLINED_CARD_STOLEN, "stolen card, pick up"),
    "51": (results.DECLINED_INSUFFICIENT_FUNDS, "insufficient funds"),
    "54": (results.CARD_EXPIRED, "expired card"),
    "57": (results.DECLINED_INVALID_CARD, "transaction not permitted to cardholder"),
    "61": (core_results.DECLINED_LIMIT_EXCEEDED, "exceeds withdrawal amount limit"),
    "62": (core_results.DECLINED_CARD_NOT_ACTIVE, "restricted card"),
    "65": (core_results.DECLINED_COUNT_LIMIT_EXCEEDED, "exceeds withdrawal frequency limit"),
    "78": (core_results.DECLINED_ACCOUNT_NOT_ACTIVE, "blocked, first used, or account closed"),
    "91": (results.TIMEOUT_UNCERTAIN, "issuer or switch inoperative"),
    "N7": (results.DECLINED_INVALID_CVV, "CVV2 mismatch"),
}


def result_for(response_code: str) -> Result:
    """The merchant's result code for an issuer's ISO 8583 response code; a code without a row
    of its own is a decline (do not honour)."""
    return RESPONSES.get(response_code, RESPONSES[DO_NOT_HONOUR])[0]
