"""The network host of the ISO 8583 link, run by the tests: on a loopback port of its own, its
event loop in a thread of the test's process (so `simulator.held()` gates reach it), and the
fixtures that point the platform at it."""

import asyncio
import os
import threading
from collections.abc import Iterator

import pytest

from payments.connectors import iso_link
from payments.connectors.network_host import NetworkHost


class RunningHost:
    """A NetworkHost on a loopback port of its own, its event loop in a thread of the test."""

    def __init__(self, port: int = 0, **options) -> None:
        self.loop = asyncio.new_event_loop()
        self.host = NetworkHost(**options)
        self.port = port
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.port = self.loop.run_until_complete(self.host.start("127.0.0.1", self.port))
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert started.wait(10)
        self.url = f"iso8583://127.0.0.1:{self.port}"

    def call(self, function, *args) -> None:
        self.loop.call_soon_threadsafe(function, *args)

    def stop(self) -> None:
        if not self.loop.is_running():
            return  # stopped already
        asyncio.run_coroutine_threadsafe(self.host.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def network(settings) -> Iterator[RunningHost]:
    running = RunningHost(bitmap="binary", seed=7)
    settings.PAYMENTS_NETWORK_URL = running.url
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0  # no echo thread unless a test asks for one
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 5.0
    try:
        yield running
    finally:
        iso_link.close_links()
        running.stop()


@pytest.fixture
def network_log_path(tmp_path, settings):
    path = tmp_path / "network.log"
    path.touch()
    settings.PAYMENTS_SIMULATOR_LOG = str(path)
    return path


# --- the payment suites over the link (the PostgreSQL run of .ci/run) ------------------------

# PAYMENTS_TESTS_OVER_THE_LINK=1: every test of tests/payments runs with the ISO 8583 link to a
# network host of the worker's own (one per pytest process, in a thread, so the simulator's
# in-process gates still hold its answers), unless it is marked `in_process_network` (it tests
# what only the in-process simulator does: its inquiry, its derived identifiers).
OVER_THE_LINK = os.environ.get("PAYMENTS_TESTS_OVER_THE_LINK") == "1"


@pytest.fixture(scope="session")
def shared_network_host() -> Iterator[RunningHost]:
    running = RunningHost(bitmap="hex", seed=11)  # the other bitmap than the link's own tests
    try:
        yield running
    finally:
        iso_link.close_links()
        running.stop()


@pytest.fixture(autouse=True)
def _payments_over_the_link(request, settings) -> Iterator[None]:
    if (
        OVER_THE_LINK
        and not request.node.get_closest_marker("in_process_network")
        and "network" not in request.fixturenames  # a host of the test's own
    ):
        host = request.getfixturevalue("shared_network_host")
        settings.PAYMENTS_NETWORK_URL = host.url
        settings.PAYMENTS_NETWORK_BITMAP = "hex"
        settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0
    yield
