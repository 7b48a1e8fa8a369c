"""The network host: the far end of the ISO 8583 link (`manage.py network_host`).

An asyncio server that answers the link with the in-process simulator's decisions
(simulator.py: every documented test card, AVS, CVV, the slow, lost and silent cards), each
request in a task of its own so that a slow answer holds up no other. For tests and benches it
adds a latency (`latency_ms` plus or minus `jitter_ms`), a drop rate (that share of requests is
never answered), and commands: `close_connections()` drops every connection, `silent` stops
answering (the link's echo fails too), `stop()` ends it. The management command maps SIGUSR1 to
closing the connections and SIGUSR2 to toggling silence.

It honours the simulator's test settings: the slow card waits on the simulator's gate
(`PAYMENTS_SIMULATOR_GATE`, `PAYMENTS_SIMULATOR_SLOW_SECONDS`, a test's `simulator.held()` when
the host runs in the test's process) in a thread of its own, and `PAYMENTS_SIMULATOR_LOG` gets a
line per authorization and follow-up as the in-process simulator writes it. A log line never
carries card data.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import random

from django.conf import settings

from core.results import TRANSACTION_SUCCEEDED

from . import iso_messages as iso
from . import simulator
from .base import AuthRequest, ConnectorUnavailable, NetworkAnswer, ReferenceRequest

logger = logging.getLogger(__name__)


GATE_TIMEOUT_S = 300.0
GATED_THREADS = 256
FOLLOW_UPS_KEPT = 100_000
FOLLOW_UP_TYPES = frozenset({"CP", "RF", "PR"})  # the follow-ups a repeat may ask about again

PAYMENT_TYPE_OF = {
    (iso.AUTHORIZATION, "51"): "CV",
    (iso.AUTHORIZATION, ""): "PA",
    (iso.FINANCIAL, "000000"): "DB",
    (iso.FINANCIAL, "260000"): "CD",
    (iso.FINANCIAL, "200000"): "RF",
    (iso.ADVICE, "000000"): "CP",
}


def payment_type_of(fields: dict[str, str]) -> str:
    kind = iso.ORIGINAL_OF.get(fields["t"], fields["t"])  # a repeat is its original's type
    if kind == iso.AUTHORIZATION:
        return PAYMENT_TYPE_OF[(kind, "51" if fields.get("25") == "51" else "")]
    if kind in (iso.REVERSAL, iso.REVERSAL_ADVICE, iso.REVERSAL_ADVICE_REPEAT):
        return "RV"
    return PAYMENT_TYPE_OF.get((kind, fields.get("3", "")), "")


def request_of(fields: dict[str, str]) -> AuthRequest | ReferenceRequest:
    """The simulator's request for a message (the inverse of iso_link.message_of)."""
    extra = iso.parse_subelements(fields.get("48", ""))
    payment_type = payment_type_of(fields)
    currency = iso.currency_alpha(fields.get("49", ""))
    priced = "4" in fields and "49" in fields  # a verification may carry no currency
    amount = iso.amount_of(fields["4"], fields["49"]) if priced else None
    if payment_type in ("PA", "CV", "DB", "CD"):
        expiry = fields.get("14", "")
        return AuthRequest(
            payment_type=payment_type,
            amount=amount,
            currency=currency,
            brand="",
            pan=fields.get("2", ""),
            expiry_month=expiry[2:],
            expiry_year=expiry[:2],
            cvv=extra.get(iso.CVV2, ""),
            billing_street=extra.get(iso.BILLING_STREET, ""),
            billing_postcode=extra.get(iso.BILLING_POSTCODE, ""),
            entry_mode=fields.get("22", "")[:2],
            reference=extra.get(iso.REFERENCE, ""),
            stored_credential={
                name: extra[tag] for name, tag in iso.STORED_CREDENTIAL_TAGS.items() if tag in extra
            },
        )
    return ReferenceRequest(
        payment_type=payment_type,
        amount=amount,
        currency=currency,
        original_auth_code=extra.get(iso.ORIGINAL_AUTH_CODE, ""),
        original_retrieval_ref_no=fields.get("37", ""),
        reference=extra.get(iso.REFERENCE, ""),
        original_reference=extra.get(iso.ORIGINAL_REFERENCE, ""),
        card_bin=extra.get(iso.CARD_BIN, ""),
        card_last4=extra.get(iso.CARD_LAST4, ""),
    )


def answer_fields(fields: dict[str, str], answer: NetworkAnswer) -> dict[str, str]:
    """The answer message: the request's matching fields echoed, the decision added."""
    echoed: dict[str, str] = {
        name: fields[name]
        for name in ("3", "4", "7", "11", "12", "13", "32", "37", "41", "42", "49", "90")
        if name in fields
    }
    reply: dict[str, str] = {"t": iso.ANSWER_OF[fields["t"]], **echoed}
    reply["39"] = answer.acquirer_response or "00"
    if answer.auth_code:
        reply["38"] = answer.auth_code
    additional = (answer.avs_response or " ") + (answer.cvv_response or " ") + answer.mac_response
    if additional.strip():
        reply["44"] = additional
    if answer.network_reference:
        reply["62"] = answer.network_reference
    return reply


def decide(fields: dict[str, str]) -> dict[str, str] | None:
    """The simulator's answer to one request message, or None when the network never answers
    it (the lost and silent cards; the slow card when its gate stays shut past the timeout).
    Blocking: the slow card's gate may wait."""
    kind = fields["t"]
    if kind == iso.NETWORK:
        return {"t": iso.NETWORK_ANSWER, "7": fields.get("7", ""), "11": fields["11"],
                "39": "00", "70": fields.get("70", "")}  # fmt: skip
    request = request_of(fields)
    network = simulator.SimulatorConnector()
    # The slow card's answer comes when its gate opens, however late: the link, not the network,
    # decides how long to wait (a late answer is the link's to drop).
    network.timeout = GATE_TIMEOUT_S
    try:
        if isinstance(request, AuthRequest):
            answer = network.authorize(request)
        else:
            answer = network.follow_up(request)
    except ConnectorUnavailable:
        return None
    return answer_fields(fields, answer)


class NetworkHost:
    def __init__(
        self,
        *,
        bitmap: str | None = None,
        latency_ms: float = 0.0,
        jitter_ms: float = 0.0,
        drop_rate: float = 0.0,
        seed: int | None = None,
    ) -> None:
        self.bitmap = bitmap or settings.PAYMENTS_NETWORK_BITMAP
        self.latency_ms = latency_ms
        self.jitter_ms = jitter_ms
        self.drop_rate = drop_rate
        self.silent = False
        self.received = 0
        self.answered = 0
        self.seen: collections.Counter[str] = collections.Counter()  # message types received
        self._random = random.Random(seed)  # noqa: S311 - latency and drops, not secrets
        # The reversal advices taken (STAN, RRN): a repeat (0421, or a 0420 sent again) is
        # acknowledged again but reverses, and is logged, once. In memory: a restarted host
        # forgets them (a real network keeps them), so a repeat after a restart logs again.
        self.advised: set[tuple[str, str]] = set()
        # The captures and refunds taken, by type, STAN, RRN, terminal, merchant and the
        # acquirer's reference (field 48 RF: a test database that rolls its STAN sequence back
        # reuses STANs), each with its answer once decided: a repeat (0201, 0221) of one taken,
        # or the original arriving after its repeat, gets the same answer, and the follow-up is
        # done, and logged, once. The latest FOLLOW_UPS_KEPT, in memory: a restarted host takes
        # a repeat as new (a real network keeps its duplicate detection; docs/operations.md,
        # "The network link").
        self.answers: collections.OrderedDict[
            tuple[str, ...], asyncio.Future[dict[str, str] | None]
        ] = collections.OrderedDict()
        self._server: asyncio.base_events.Server | None = None
        # The slow card's answers wait on its gate, each in a thread: as many at once as a test
        # or a bench holds (asyncio's default executor has cpu + 4).
        self._gated = concurrent.futures.ThreadPoolExecutor(GATED_THREADS, "network-host-gate")
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self, host: str, port: int) -> int:
        self._server = await asyncio.start_server(self._connection, host, port)
        return int(self._server.sockets[0].getsockname()[1])

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    def close_connections(self) -> None:
        for writer in list(self._writers):
            writer.close()

    async def stop(self) -> None:
        self.close_connections()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self._gated.shutdown(wait=False, cancel_futures=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        frames = iso.FrameReader()
        tasks: set[asyncio.Task[None]] = set()
        try:
            while data := await reader.read(65536):
                for message in frames.feed(data):
                    task = asyncio.create_task(self._answer(message, writer))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _answer(self, message: bytes, writer: asyncio.StreamWriter) -> None:
        self.received += 1
        try:
            fields = iso.decode(message, self.bitmap)
        except iso.MessageError as exc:
            logger.warning("network host: a message it cannot read (%s)", exc)
            return
        self.seen[fields["t"]] += 1
        if self.silent or (self.drop_rate and self._random.random() < self.drop_rate):
            return
        # A capture or refund is known by its type, STAN and RRN from the moment it arrives: a
        # repeat of it (or the original arriving late, after its repeat) gets the first one's
        # answer when that comes, and nothing is done twice.
        kind = iso.ORIGINAL_OF.get(fields["t"], fields["t"])
        reference = iso.parse_subelements(fields.get("48", "")).get(iso.REFERENCE, "")
        key = (kind, *(fields.get(name, "") for name in ("11", "37", "41", "42")), reference)
        taken = kind in iso.REPEAT_OF and payment_type_of(fields) in FOLLOW_UP_TYPES
        reply: dict[str, str] | None
        if taken and key in self.answers:
            first = await asyncio.shield(self.answers[key])
            reply = None if first is None else {**first, "t": iso.ANSWER_OF[fields["t"]]}
        else:
            answered: asyncio.Future[dict[str, str] | None] | None = None
            if taken:
                answered = self.answers[key] = asyncio.get_running_loop().create_future()
                while len(self.answers) > FOLLOW_UPS_KEPT:
                    self.answers.popitem(last=False)
            try:
                reply = await self._decide(fields)
            except BaseException:
                if answered is not None:
                    answered.set_result(None)  # a repeat waiting on it is not answered either
                raise
            if answered is not None:
                answered.set_result(reply)
        if reply is None or writer.is_closing() or self.silent:
            return
        writer.write(iso.frame(iso.encode(reply, self.bitmap)))
        self.answered += 1
        with contextlib.suppress(ConnectionError, OSError):
            await writer.drain()

    async def _decide(self, fields: dict[str, str]) -> dict[str, str] | None:
        """The answer to one message after the host's latency, or None (never answered)."""
        delay = self.latency_ms + self._random.uniform(-self.jitter_ms, self.jitter_ms)
        if delay > 0:
            await asyncio.sleep(delay / 1000)
        if fields["t"] in (iso.REVERSAL_ADVICE, iso.REVERSAL_ADVICE_REPEAT):
            return self._advised(fields)
        if _may_wait(fields):  # the slow card's gate may block: a thread of the host's own
            return await asyncio.get_running_loop().run_in_executor(self._gated, decide, fields)
        return decide(fields)

    def _advised(self, fields: dict[str, str]) -> dict[str, str]:
        """A reversal advice is acknowledged (0430, 00), every time it comes; it reverses once."""
        key = (fields.get("11", ""), fields.get("37", ""))
        if key in self.advised:
            return answer_fields(fields, NetworkAnswer(TRANSACTION_SUCCEEDED))
        self.advised.add(key)
        return decide(fields) or answer_fields(fields, NetworkAnswer(TRANSACTION_SUCCEEDED))


def _may_wait(fields: dict[str, str]) -> bool:
    if fields["t"] == iso.NETWORK:
        return False
    return simulator.card_of(request_of(fields)) == simulator.SLOW_CARD
