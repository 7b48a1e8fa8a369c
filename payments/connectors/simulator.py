"""A deterministic card network, documented in docs/api.md ("Test cards").

The answer depends only on the card number, the expiry, the CVV and the billing postcode, so a
test or an integrator can produce every outcome on purpose. Identifiers (STAN, RRN, ARN,
AuthCode) are random but well-formed.
"""

import secrets

from core.results import TRANSACTION_SUCCEEDED

from .. import results
from .base import AuthRequest, NetworkAnswer, ReferenceRequest

# card number -> (result, AcquirerResponse, macResponse, cvvResponse override)
DECLINES = {
    "4000000000000002": (results.DECLINED_INVALID_CARD, "14", "03", ""),
    "4000000000009995": (results.DECLINED_INSUFFICIENT_FUNDS, "51", "02", ""),
    "4000000000000127": (results.DECLINED_INVALID_CVV, "N7", "", "N"),
}
TIMEOUT_CARD = "4000000000000119"

# billing.postcode -> avsResponse; any other postcode with a street is a full match (F).
AVS_BY_POSTCODE = {"00000": "N", "99999": "A", "11111": "Z"}


def _digits(n: int) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(n))


def _auth_code() -> str:
    return "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(6))


class SimulatorConnector:
    name = "simulator"

    def authorize(self, request: AuthRequest) -> NetworkAnswer:
        ids = {"stan": _digits(6), "retrieval_ref_no": _digits(12), "acquirer_ref_no": _digits(23)}
        avs = self._avs(request)
        cvv = "M" if request.cvv else "P"
        if request.pan == TIMEOUT_CARD:
            return NetworkAnswer(
                results.TIMEOUT_UNCERTAIN,
                acquirer_response="91",
                avs_response="U",
                cvv_response="U",
                **ids,
            )
        declined = DECLINES.get(request.pan)
        if declined:
            result, acquirer, mac, cvv_override = declined
            return NetworkAnswer(
                result,
                acquirer_response=acquirer,
                mac_response=mac,
                avs_response=avs,
                cvv_response=cvv_override or cvv,
                **ids,
            )
        return NetworkAnswer(
            TRANSACTION_SUCCEEDED,
            auth_code=_auth_code(),
            acquirer_response="00",
            avs_response=avs,
            cvv_response=cvv,
            **ids,
        )

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        return NetworkAnswer(
            TRANSACTION_SUCCEEDED,
            auth_code=request.original_auth_code,
            acquirer_response="00",
            stan=_digits(6),
            retrieval_ref_no=request.original_retrieval_ref_no,
            acquirer_ref_no=_digits(23),
        )

    @staticmethod
    def _avs(request: AuthRequest) -> str:
        if not (request.billing_street and request.billing_postcode):
            return "U"
        return AVS_BY_POSTCODE.get(request.billing_postcode, "F")


def get_connector() -> SimulatorConnector:
    return SimulatorConnector()
