"""A deterministic card network, documented in docs/api.md ("Test cards").

The answer depends only on the card number, the expiry, the CVV and the billing postcode, so a
test or an integrator can produce every outcome on purpose. Identifiers (STAN, RRN, ARN,
AuthCode) are derived from the platform's reference of the request, so the network gives the
same ones again when it is asked later what became of a request (`inquire`).

It stands for a remote network: called outside any database transaction, with a timeout. Three
test cards show what a network can do to an answer:
- SLOW_CARD: the answer comes when the gate opens (by default after a short delay; a test holds
  it and releases it when it wants, in this process or, on PostgreSQL, across processes);
- LOST_CARD: the network approves, but the answer never arrives (ConnectorUnavailable); asked
  later, it says approved;
- SILENT_CARD: no answer, and asked later the network cannot say (the janitor reverses it).
A merchant-initiated payment (standingInstruction.source MIT) of MIT_DECLINED_AMOUNT is declined
for insufficient funds, whatever its card: the decline a RESUBMISSION follows.
`PAYMENTS_SIMULATOR_LOG` (a file path) records every authorization and follow-up the network
receives, one line each, so a test can count them across processes.
"""

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Protocol

from django.conf import settings
from django.db import connection

from core.results import TRANSACTION_SUCCEEDED, Result

from .base import AuthRequest, ConnectorUnavailable, NetworkAnswer, ReferenceRequest
from .ids import answer_ids, auth_code
from .responses import result_for

# card number -> (AcquirerResponse: the ISO 8583 response code, macResponse, cvvResponse
# override); the result code is the response code's (responses.py).
DECLINES = {
    "4000000000000002": ("14", "03", ""),
    "4000000000009995": ("51", "02", ""),
    "4000000000000127": ("N7", "", "N"),
}
NO_FUNDS_CARD = "4000000000009995"
# A merchant-initiated payment (MIT) of this amount is declined for insufficient funds (51).
MIT_DECLINED_AMOUNT = Decimal("51.00")
TIMEOUT_CARD = "4000000000000119"  # the network answers "timeout, uncertain" (900.100.300)
SLOW_CARD = "4000000000000150"
LOST_CARD = "4000000000000168"
SILENT_CARD = "4000000000000176"

# billing.postcode -> avsResponse; any other postcode with a street is a full match (F).
AVS_BY_POSTCODE = {"00000": "N", "99999": "A", "11111": "Z"}
CLEARING_INSTITUTE = "Simulator"  # resultDetails.clearingInstituteName of its answers
ADVISORY_LOCK_KEY = 0x510C  # the PostgreSQL advisory lock a cross-process test holds


def card_of(request: AuthRequest | ReferenceRequest) -> str:
    """The test card a request is about (a follow-up knows only BIN and last four)."""
    if isinstance(request, AuthRequest):
        return request.pan
    for card in (SLOW_CARD, LOST_CARD, SILENT_CARD):
        if (card[:6], card[-4:]) == (request.card_bin, request.card_last4):
            return card
    return ""


# --- the gate of the slow card ----------------------------------------------------------------


class Gate(Protocol):
    def wait(self, timeout: float) -> bool:
        """Block until the answer may go; False when `timeout` seconds passed first."""


class DelayGate:
    """The slow card for integrators: the answer comes after PAYMENTS_SIMULATOR_SLOW_SECONDS."""

    def wait(self, timeout: float) -> bool:
        delay = float(getattr(settings, "PAYMENTS_SIMULATOR_SLOW_SECONDS", 2.0))
        time.sleep(min(delay, timeout))
        return delay <= timeout


class HeldGate:
    """A gate a test holds in this process: calls wait until `release()`; `waiting` counts them."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.waiting = 0

    def wait(self, timeout: float) -> bool:
        with self._arrived:
            self.waiting += 1
            self._arrived.notify_all()
        return self._open.wait(timeout)

    def wait_for_callers(self, count: int, timeout: float = 30.0) -> bool:
        """Block until `count` calls are held (the test's side)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self.waiting >= count, timeout)

    def release(self) -> None:
        self._open.set()


class AdvisoryLockGate:
    """A gate held across processes (PostgreSQL): the test holds an advisory lock; the network
    call waits for it on its own connection, outside any transaction."""

    def wait(self, timeout: float) -> bool:
        with connection.cursor() as cursor:
            # set_config, not SET: a SET takes no bound parameter (server-side binding).
            cursor.execute(
                "SELECT set_config('lock_timeout', %s, false)", [f"{int(timeout * 1000)}ms"]
            )
            try:
                cursor.execute("SELECT pg_advisory_lock(%s)", [ADVISORY_LOCK_KEY])
            except Exception:  # noqa: BLE001 - lock_timeout: the network did not answer in time
                return False
            finally:
                cursor.execute("RESET lock_timeout")
            cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_LOCK_KEY])
        return True


_gate: Gate | None = None


def gate() -> Gate:
    if _gate is not None:
        return _gate
    if getattr(settings, "PAYMENTS_SIMULATOR_GATE", "delay") == "advisory-lock":
        return AdvisoryLockGate()
    return DelayGate()


@contextmanager
def held() -> Iterator[HeldGate]:
    """`with held() as gate:` slow-card answers wait until `gate.release()` (tests)."""
    global _gate
    previous, _gate = _gate, HeldGate()
    try:
        yield _gate
    finally:
        _gate.release()
        _gate = previous


# --- the network ------------------------------------------------------------------------------


def _log(kind: str, reference: str) -> None:
    path = getattr(settings, "PAYMENTS_SIMULATOR_LOG", "")
    if path:
        with open(path, "a") as log:  # one short append: atomic across processes
            log.write(f"{kind} {reference}\n")


class SimulatorConnector:
    name = "simulator"
    remote = True

    def __init__(self) -> None:
        self.timeout = float(getattr(settings, "PAYMENTS_CONNECTOR_TIMEOUT_SECONDS", 30.0))

    def authorize(self, request: AuthRequest) -> NetworkAnswer:
        _log("authorize", request.reference)
        self._deliver(request)
        return self._authorization(request)

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        _log(f"follow-up {request.payment_type}", request.reference)
        self._deliver(request)
        return self._follow_up(request)

    def inquire(self, request: AuthRequest | ReferenceRequest) -> NetworkAnswer | None:
        reversal = isinstance(request, ReferenceRequest) and request.payment_type == "RV"
        if card_of(request) == SILENT_CARD and not reversal:
            return None
        if isinstance(request, AuthRequest):
            return self._authorization(request)
        return self._follow_up(request)

    @staticmethod
    def _answer(result: Result, **fields: str) -> NetworkAnswer:
        return NetworkAnswer(result, clearing_institute=CLEARING_INSTITUTE, **fields)

    def _deliver(self, request: AuthRequest | ReferenceRequest) -> None:
        """What happens to the answer on its way back (a reversal is always acknowledged: it is
        how a lost answer is cleaned up)."""
        if isinstance(request, ReferenceRequest) and request.payment_type == "RV":
            return
        card = card_of(request)
        if card in (LOST_CARD, SILENT_CARD):
            raise ConnectorUnavailable("no answer from the network")
        if card == SLOW_CARD and not gate().wait(self.timeout):
            raise ConnectorUnavailable(f"no answer from the network in {self.timeout:g} s")

    def _authorization(self, request: AuthRequest) -> NetworkAnswer:
        ids = answer_ids(request.reference, "auth", request.stan, request.retrieval_ref_no)
        avs = self._avs(request)
        cvv = "M" if request.cvv else "P"
        if request.pan == TIMEOUT_CARD:
            return self._answer(
                result_for("91"),
                acquirer_response="91",
                avs_response="U",
                cvv_response="U",
                **ids,
            )
        declined = DECLINES.get(request.pan)
        if (
            declined is None
            and request.stored_credential.get("source") == "MIT"
            and request.amount == MIT_DECLINED_AMOUNT
        ):
            declined = DECLINES[NO_FUNDS_CARD]  # so a RESUBMISSION can be tried
        if declined:
            acquirer, mac, cvv_override = declined
            return self._answer(
                result_for(acquirer),
                acquirer_response=acquirer,
                mac_response=mac,
                avs_response=avs,
                cvv_response=cvv_override or cvv,
                **ids,
            )
        return self._answer(
            TRANSACTION_SUCCEEDED,
            auth_code=auth_code(request.reference),
            acquirer_response="00",
            avs_response=avs,
            cvv_response=cvv,
            **ids,
        )

    def _follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        ids = answer_ids(request.reference, "follow-up", request.stan)
        return self._answer(
            TRANSACTION_SUCCEEDED,
            auth_code=request.original_auth_code,
            acquirer_response="00",
            stan=ids["stan"],
            retrieval_ref_no=request.original_retrieval_ref_no or request.retrieval_ref_no,
            acquirer_ref_no=ids["acquirer_ref_no"],
            network_reference=ids["network_reference"],
        )

    @staticmethod
    def _avs(request: AuthRequest) -> str:
        if not (request.billing_street and request.billing_postcode):
            return "U"
        return AVS_BY_POSTCODE.get(request.billing_postcode, "F")


def get_connector() -> SimulatorConnector:
    return SimulatorConnector()
