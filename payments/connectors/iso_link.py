"""The ISO 8583 connector: a payment's request over a persistent TCP link to the network
(`PAYMENTS_NETWORK_URL=iso8583://host:port`), answered by the network host or a real processor.

One link per process (docs/decisions.md, "The ISO 8583 link"), opened on first use and after a
fork, signed on (0800, code 001) before its first request. Many requests are in flight on it at
once: each waits on an event of its own (its thread holds nothing else: no database connection,
engine.complete gives it back before the call), a reader thread matches every answer to its request
by STAN (field 11) and RRN (field 37), and checks the terminal and merchant (41, 42) it echoes.
An answer that matches nothing in flight (it came after its request's timeout) is dropped here:
the payment it belonged to is reversed by the janitor, never booked.

A connection that drops fails every request in flight on it at once (ConnectorUnavailable: the
payment stays IN_FLIGHT, the janitor resolves it) and is reopened by the next request. An echo
(0800, code 301) every `PAYMENTS_NETWORK_ECHO_SECONDS` keeps the link's state: while the last echo
failed, requests are refused at once with NetworkDown ("network unavailable") instead of waiting
out the timeout; while down it probes every second (reconnecting and signing on when the
connection is gone), and the first echo answered brings the link back.

At DEBUG the logger `payments.connectors.iso_link` traces every message sent and received,
masked (iso_messages.masked_fields: no PAN, expiry, track 2, PIN block or CVV2).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from core import metrics
from core.results import TRANSACTION_SUCCEEDED, Result

from . import iso_messages as iso
from . import simulator
from .base import (
    AuthRequest,
    ConnectorUnavailable,
    NetworkAnswer,
    NetworkUnreachable,
    ReferenceRequest,
)
from .ids import answer_ids
from .responses import result_for

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 3.0
DOWN_PROBE_SECONDS = 1.0  # how often a link that is down tries to come back
NO_TERMINAL = "ECOM0000"  # field 41 of a payment without a terminal (e-commerce)


class NetworkDown(NetworkUnreachable):
    """The link is down (its last echo or sign-on failed): nothing was sent."""


@dataclass
class _Waiting:
    event: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, str] | None = None
    lost: bool = False
    terminal: tuple[str, str] = ("", "")


class Link:
    """A persistent connection to the network with many requests in flight."""

    def __init__(self, host: str, port: int, *, bitmap: str, echo_seconds: float) -> None:
        self.host, self.port, self.bitmap = host, port, bitmap
        self.echo_seconds = echo_seconds
        self._down = False
        self._socket: socket.socket | None = None
        self._send_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._waiting: dict[tuple[str, str], _Waiting] = {}
        self._stan = 0
        self._echo_thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._wake = threading.Event()  # the echo's wait cut short (the link went down, closed)

    # --- the connection -------------------------------------------------------------------

    def _connected(self) -> socket.socket:
        with self._state_lock:
            if self._socket is not None:
                return self._socket
            try:
                sock = socket.create_connection((self.host, self.port), timeout=CONNECT_TIMEOUT_S)
            except OSError as exc:
                self.down = True
                self._start_echo()  # it probes; meanwhile payments are declined at once
                raise NetworkDown(f"cannot reach the network ({exc.strerror or exc})") from None
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._socket = sock
            threading.Thread(
                target=self._read, args=(sock,), name="iso8583-reader", daemon=True
            ).start()
        try:
            self._network_message(iso.SIGN_ON, CONNECT_TIMEOUT_S)
        except ConnectorUnavailable:
            self._lost(sock)
            self.down = True
            self._start_echo()
            raise NetworkDown("the network refused or did not answer the sign-on") from None
        self.down = False
        self._start_echo()
        return sock

    def _read(self, sock: socket.socket) -> None:
        frames = iso.FrameReader()
        try:
            while data := sock.recv(65536):
                for message in frames.feed(data):
                    self._answered(message)
        except OSError:
            pass
        self._lost(sock)

    def _answered(self, message: bytes) -> None:
        try:
            fields = iso.decode(message, self.bitmap)
        except iso.MessageError as exc:
            logger.warning("network link: an answer it cannot read (%s)", exc)
            return
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("network link: received %s", iso.masked_fields(fields))
        key = (fields.get("11", ""), fields.get("37", ""))
        with self._state_lock:
            waiting = self._waiting.get(key)
            if waiting is None or (fields.get("41", ""), fields.get("42", "")) != waiting.terminal:
                waiting = None
            else:
                del self._waiting[key]
        if waiting is None:
            metrics.NETWORK_UNANSWERED.labels(reason="late").inc()
            logger.warning(
                "network link: an answer %s for STAN %s that nothing waits for (late)",
                fields.get("t"),
                key[0],
            )
            return
        waiting.answer = fields
        waiting.event.set()

    def _lost(self, sock: socket.socket) -> None:
        """The connection is gone: every request in flight on it is unanswered."""
        with self._state_lock:
            if self._socket is not sock:
                return
            self._socket = None
            lost, self._waiting = self._waiting, {}
        with contextlib.suppress(OSError):
            sock.close()
        for waiting in lost.values():
            waiting.lost = True
            waiting.event.set()

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        sock = self._socket
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            self._lost(sock)

    # --- requests -------------------------------------------------------------------------

    @property
    def down(self) -> bool:
        return self._down

    @down.setter
    def down(self, value: bool) -> None:
        went_down = value and not self._down
        self._down = value
        if went_down:
            self._wake.set()  # the echo starts probing at once
        metrics.NETWORK_LINK_UP.set(0 if value else 1)

    def exchange(self, fields: dict[str, str], timeout: float) -> dict[str, str]:
        """Send one request and wait up to `timeout` seconds for its answer."""
        try:
            if self.down and self._echoing() and fields.get("t") != iso.NETWORK:
                raise NetworkDown("the network link is down")  # the echo brings it back
            sock = self._connected()
        except NetworkDown:
            metrics.NETWORK_UNANSWERED.labels(reason="down").inc()
            raise
        metrics.NETWORK_IN_FLIGHT.inc()
        started = time.monotonic()
        try:
            answer = self._exchange(sock, fields, timeout)
        finally:
            metrics.NETWORK_IN_FLIGHT.dec()
        metrics.NETWORK_ANSWER_SECONDS.labels(message=fields["t"]).observe(
            time.monotonic() - started
        )
        return answer

    def _exchange(
        self, sock: socket.socket, fields: dict[str, str], timeout: float
    ) -> dict[str, str]:
        key = (fields["11"], fields.get("37", ""))
        waiting = _Waiting(terminal=(fields.get("41", ""), fields.get("42", "")))
        message = iso.frame(iso.encode(fields, self.bitmap))
        if logger.isEnabledFor(logging.DEBUG):  # the message trace: card data masked
            logger.debug("network link: sent %s", iso.masked_fields(fields))
        with self._state_lock:
            if key in self._waiting:
                raise ConnectorUnavailable(f"STAN {key[0]} is already in flight on the link")
            self._waiting[key] = waiting
        try:
            with self._send_lock:
                sock.sendall(message)
        except OSError:
            self._lost(sock)
            metrics.NETWORK_UNANSWERED.labels(reason="lost").inc()
            raise ConnectorUnavailable("the connection to the network was lost") from None
        if not waiting.event.wait(timeout):
            with self._state_lock:
                self._waiting.pop(key, None)
            metrics.NETWORK_UNANSWERED.labels(reason="timeout").inc()
            raise ConnectorUnavailable(f"no answer from the network in {timeout:g} s")
        if waiting.lost or waiting.answer is None:
            metrics.NETWORK_UNANSWERED.labels(reason="lost").inc()
            raise ConnectorUnavailable("the connection to the network was lost")
        return waiting.answer

    def _network_message(self, code: str, timeout: float) -> dict[str, str]:
        with self._state_lock:
            self._stan = self._stan % 999999 + 1
            stan = f"{self._stan:06d}"
        fields = {"t": iso.NETWORK, "7": datetime.now(UTC).strftime("%m%d%H%M%S"), "11": stan,
                  "70": code}  # fmt: skip
        answer = self.exchange(fields, timeout)
        if answer.get("39", "00") != "00":
            raise ConnectorUnavailable(f"the network answered {code} with {answer.get('39')}")
        return answer

    # --- the echo -------------------------------------------------------------------------

    def _echoing(self) -> bool:
        return self._echo_thread is not None and self._echo_thread.is_alive()

    def _start_echo(self) -> None:
        if self.echo_seconds <= 0 or self._echoing():
            return
        self._echo_thread = threading.Thread(target=self._echo, name="iso8583-echo", daemon=True)
        self._echo_thread.start()

    def _echo(self) -> None:
        """Every `echo_seconds` while the link is up; every DOWN_PROBE_SECONDS (at most) while
        it is down, so that a network back (a host restarted, a line restored) takes payments
        again within a second, not an echo interval."""
        while not self._closed.is_set():
            self._wake.wait(
                min(self.echo_seconds, DOWN_PROBE_SECONDS) if self.down else self.echo_seconds
            )
            self._wake.clear()
            if self._closed.is_set():
                return
            self.echo()

    def echo(self) -> bool:
        """One echo test: the link is up when it is answered."""
        try:
            self._network_message(iso.ECHO, min(self.echo_seconds, 5.0) or 5.0)
        except ConnectorUnavailable:
            if not self.down:
                logger.error("network link down: the echo test was not answered")
            self.down = True
            return False
        if self.down:
            logger.info("network link up again: the echo test was answered")
        self.down = False
        return True


# --- one link per process ---------------------------------------------------------------------

_links: dict[tuple[str, int, str], tuple[int, Link]] = {}
_links_lock = threading.Lock()


def link_for(url: str, bitmap: str) -> Link:
    parts = urlsplit(url)  # checked when the settings were read (config/settings.py)
    assert parts.hostname is not None and parts.port is not None
    key = (parts.hostname, parts.port, bitmap)
    with _links_lock:
        found = _links.get(key)
        if found is None or found[0] != os.getpid():  # a fork inherits no link
            link = Link(
                parts.hostname,
                parts.port,
                bitmap=bitmap,
                echo_seconds=float(settings.PAYMENTS_NETWORK_ECHO_SECONDS),
            )
            _links[key] = (os.getpid(), link)
            return link
        return found[1]


def close_links() -> None:
    with _links_lock:
        links = [link for _, link in _links.values()]
        _links.clear()
    for link in links:
        link.close()


# --- the connector ----------------------------------------------------------------------------


class Iso8583Connector:
    name = "iso8583"
    remote = True

    def __init__(self) -> None:
        self.timeout = float(settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS)
        self.bitmap = settings.PAYMENTS_NETWORK_BITMAP
        self.link = link_for(settings.PAYMENTS_NETWORK_URL, self.bitmap)

    def authorize(self, request: AuthRequest) -> NetworkAnswer:
        answer = self.link.exchange(authorization_fields(request), self.timeout)
        return answer_of(answer, request.reference, "auth")

    def follow_up(self, request: ReferenceRequest) -> NetworkAnswer:
        if request.advice:
            return advice_owed(request)
        answer = self.link.exchange(follow_up_fields(request), self.timeout)
        return answer_of(answer, request.reference, "follow-up")

    def advise(self, request: ReferenceRequest, *, repeat: bool) -> str:
        """Send a reversal advice (0420, or 0421 when it is sent again) and wait for its 0430:
        answers the network's field 39. ConnectorUnavailable when it is not acknowledged."""
        fields = follow_up_fields(request)
        fields["t"] = iso.REVERSAL_ADVICE_REPEAT if repeat else iso.REVERSAL_ADVICE
        return self.link.exchange(fields, self.timeout).get("39", "")

    def inquire(self, request: AuthRequest | ReferenceRequest) -> NetworkAnswer | None:
        """ISO 8583 has no inquiry. What became of a lost authorization cannot be asked, so the
        janitor reverses it. A follow-up is sent again with its own STAN and RRN: a capture's
        advice as 0221 and a refund as 0201 (repeats, which the network answers with the answer
        it gave when it took the first, doing nothing twice, and takes now when it never saw
        it), a reversal anew (acknowledged whether or not it reversed already). Either way the
        answer is the network's, so the platform books what the network booked. A repeat left
        unanswered, or a link that is down, raises: the follow-up stays in flight, its amount
        reserved, and the janitor repeats it at its next run (it gives up only after
        PAYMENTS_FOLLOW_UP_GIVE_UP_HOURS: janitor.py), since the network may have done it."""
        if not isinstance(request, ReferenceRequest):
            return None
        if request.payment_type == "RV":
            return self.follow_up(request)
        fields = follow_up_fields(request)
        fields["t"] = iso.REPEAT_OF[fields["t"]]
        answer = self.link.exchange(fields, self.timeout)
        return answer_of(answer, request.reference, "follow-up")


def _common(request: AuthRequest | ReferenceRequest, kind: str) -> dict[str, str]:
    """The fields every request carries: times, STAN, acquirer, RRN, terminal and merchant. The
    STAN and RRN are the acquirer's (assigned at the claim) or, where none were, derived from the
    request's reference as the in-process simulator derives them."""
    derived = answer_ids(request.reference, kind)
    now = datetime.now(UTC)
    return {
        **iso.times(now, timezone.localtime(now).replace(tzinfo=None)),
        "11": request.stan or derived["stan"],
        "32": settings.PAYMENTS_ACQUIRER_ID,
        "37": request.retrieval_ref_no or derived["retrieval_ref_no"],
        "41": f"{request.terminal_id or NO_TERMINAL:<8}",
        "42": f"{request.merchant_id:<15}",
    }


def authorization_fields(request: AuthRequest) -> dict[str, str]:
    kind, processing = iso.MESSAGE_OF[request.payment_type]
    verification = request.payment_type == "CV"
    extra = {
        iso.CVV2: request.cvv,
        iso.BILLING_STREET: request.billing_street,
        iso.BILLING_POSTCODE: request.billing_postcode,
        **{
            tag: request.stored_credential.get(name, "")
            for name, tag in iso.STORED_CREDENTIAL_TAGS.items()
        },
        iso.SCHEME_TOKEN: "1" if request.scheme_token else "",
        iso.REFERENCE: request.reference,
    }
    fields = {
        "t": kind,
        "2": request.pan,
        "3": processing,
        "4": iso.amount_field(None if verification else request.amount, request.currency),
        **_common(request, "auth"),
        "14": f"{request.expiry_year[-2:]}{request.expiry_month.zfill(2)}",
        "18": (request.mcc or "5999")[:4],
        "22": f"{(request.entry_mode or '81')[:2]}0",
        "25": "51" if verification else ("59" if request.entry_mode == "81" else "00"),
        "43": _acceptor(request.merchant_name, request.merchant_country),
        "48": iso.subelements(extra),
    }
    if request.currency:  # a verification without an amount has none
        fields["49"] = iso.currency_field(request.currency)
    return fields


def follow_up_fields(request: ReferenceRequest) -> dict[str, str]:
    if request.payment_type == "RV":
        kind, processing = iso.REVERSAL, "000000"
    else:
        kind, processing = iso.MESSAGE_OF[request.payment_type]
    extra = {
        iso.REFERENCE: request.reference,
        iso.ORIGINAL_REFERENCE: request.original_reference,
        iso.ORIGINAL_AUTH_CODE: request.original_auth_code,
        iso.CARD_BIN: request.card_bin,
        iso.CARD_LAST4: request.card_last4,
    }
    fields = {
        "t": kind,
        "3": processing,
        "4": iso.amount_field(request.amount, request.currency),
        **_common(request, "follow-up"),
        "48": iso.subelements(extra),
        "49": iso.currency_field(request.currency),
    }
    if request.original_retrieval_ref_no:
        fields["37"] = request.original_retrieval_ref_no  # the original's, as ISO 8583 has it
    if kind == iso.REVERSAL:
        original = request.original_stan or answer_ids(request.original_reference, "auth")["stan"]
        fields["90"] = f"0100{original}{fields['7']}{'0' * 22}"
    return fields


def advice_owed(request: ReferenceRequest) -> NetworkAnswer:
    """A reversal the acquirer asserts (transactionSource TIMEOUT: the original's answer never
    came, or came too late to be booked): approved at once, by the acquirer's own word, with an
    advice owed to the network (the finalize writes its row; payments.services.advices sends it
    until the network acknowledges). Nothing is sent from here."""
    ids = answer_ids(request.reference, "follow-up")
    return NetworkAnswer(
        TRANSACTION_SUCCEEDED,
        auth_code=request.original_auth_code,
        acquirer_response="00",
        stan=request.stan or ids["stan"],
        retrieval_ref_no=request.original_retrieval_ref_no or request.retrieval_ref_no,
        acquirer_ref_no=ids["acquirer_ref_no"],
        clearing_institute=simulator.CLEARING_INSTITUTE,
        owed_advice=iso.REVERSAL_ADVICE,
    )


def _acceptor(name: str, country: str) -> str:
    """Field 43: name (25), city (13), country (2)."""
    return f"{name[:25]:<25}{'':<13}{country[:2]:<2}"


def answer_of(fields: dict[str, str], reference: str, kind: str) -> NetworkAnswer:
    code = fields.get("39", "")
    additional = fields.get("44", "")
    result: Result = result_for(code)
    return NetworkAnswer(
        result,
        auth_code=fields.get("38", ""),
        acquirer_response=code,
        avs_response=additional[:1].strip(),
        cvv_response=additional[1:2].strip(),
        mac_response=additional[2:4].strip(),
        stan=fields.get("11", ""),
        retrieval_ref_no=fields.get("37", ""),
        acquirer_ref_no=answer_ids(reference, kind)["acquirer_ref_no"],
        network_reference=fields.get("62", ""),
        clearing_institute=simulator.CLEARING_INSTITUTE,  # the network the host stands for
    )
