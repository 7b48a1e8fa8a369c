"""The load generators' shared parts: a keep-alive HTTP client that records latencies and
errors, and the orderly stop of client processes and gunicorn."""

import http.client
import signal
import sys
from collections.abc import Callable
from typing import Any

from bench._server import stop_process

REQUEST_TIMEOUT_S = 15.0
MAX_ERROR_SAMPLES = 10


class KeepAliveClient:
    """One client on one connection to 127.0.0.1:`port`. gunicorn's sync workers close every
    connection after the answer, so it reconnects as needed; `connects` counts how often. A
    kept-alive socket the server had already closed is retried once on a fresh one (the request
    never reached the application)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None
        self.errors = 0
        self.error_samples: list[str] = []
        self.connects = 0

    def post(self, path: str, body: str, headers: dict[str, str]) -> tuple[int, str, bytes]:
        """(status, Content-Type, body)."""
        for attempt in range(2):
            if self.conn is None or self.conn.sock is None:
                if self.conn is not None:
                    self.conn.close()
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S
                )
                self.conn.connect()
                self.connects += 1
            try:
                self.conn.request("POST", path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                if response.will_close:
                    self.conn.close()
                return response.status, response.getheader("Content-Type", ""), data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.conn.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def error(self, record: bool, message: str) -> None:
        if record:
            self.errors += 1
        if len(self.error_samples) < MAX_ERROR_SAMPLES:
            self.error_samples.append(message)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def counts(self) -> dict[str, Any]:
        return {
            "errors": self.errors,
            "error_samples": self.error_samples,
            "connects": self.connects,
        }


def stop_all(stop: Any, procs: list[Any], gunicorn: Any) -> None:
    """The clients (signalled, then joined or terminated) and gunicorn, in that order."""
    if stop is not None:
        stop.set()
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=5)
    stop_process(gunicorn)


def interrupted() -> None:
    print("\ninterrupted: stopping clients and gunicorn", file=sys.stderr)


class SetupError(RuntimeError):
    """What a benchmark cannot start with (its database made with other keys): `run_main`
    prints it in one line and exits with status 2, nothing measured."""


def run_main(
    *,
    prepare: Callable[[], Any],
    profile: Callable[[Any], None] | None,
    load: Callable[[Any], dict[str, Any]],
) -> int:
    """A benchmark's main: SIGTERM stops it like Ctrl-C; `prepare` (database, Django, seed) then
    the profile (when asked) or the load run. Exit status 0, 1 when the run had errors, 2 when it
    could not start (SetupError), 130 when interrupted."""

    def on_sigterm(signum: int, frame: Any) -> None:  # noqa: ARG001 - signal handler signature
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        seed = prepare()
        if profile is not None:
            profile(seed)
            return 0
        from django.db import connections

        connections.close_all()  # the load clients and gunicorn open their own
        outcome = load(seed)
    except KeyboardInterrupt:
        return 130
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if outcome["errors"] == 0 else 1
