"""python manage.py network_host [--host 127.0.0.1] [--port 8583] [--latency-ms 0] [--jitter-ms 0]
                                 [--drop-rate 0] [--bitmap binary|hex]

The network host: answers the ISO 8583 link (PAYMENTS_NETWORK_URL=iso8583://host:port) with the
simulator's decisions (payments/connectors/network_host.py), every request in a task of its own.
Prints `listening on host:port` when it takes connections (port 0: a free one). SIGUSR1 closes
every connection (the link reopens), SIGUSR2 toggles silence (nothing answered, echoes included),
SIGTERM or Ctrl-C stops it.
"""

import asyncio
import contextlib
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.connectors.network_host import NetworkHost


class Command(BaseCommand):
    help = "Answer the ISO 8583 network link with the simulator's decisions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8583)
        parser.add_argument("--latency-ms", type=float, default=0.0)
        parser.add_argument("--jitter-ms", type=float, default=0.0)
        parser.add_argument("--drop-rate", type=float, default=0.0, help="share never answered")
        parser.add_argument("--bitmap", choices=("binary", "hex"), default=None)
        parser.add_argument("--seed", type=int, default=None, help="of the jitter and the drops")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 <= options["drop_rate"] <= 1:
            raise CommandError("--drop-rate must be between 0 and 1")
        if options["latency_ms"] < 0 or not 0 <= options["jitter_ms"] <= options["latency_ms"]:
            raise CommandError("--latency-ms must be >= 0 and --jitter-ms between 0 and it")
        host = NetworkHost(
            bitmap=options["bitmap"] or settings.PAYMENTS_NETWORK_BITMAP,
            latency_ms=options["latency_ms"],
            jitter_ms=options["jitter_ms"],
            drop_rate=options["drop_rate"],
            seed=options["seed"],
        )
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(self._serve(host, options["host"], options["port"]))

    async def _serve(self, host: NetworkHost, address: str, port: int) -> None:
        try:
            bound = await host.start(address, port)
        except OSError as exc:
            raise CommandError(f"cannot listen on {address}:{port}: {exc.strerror}") from None
        loop = asyncio.get_running_loop()
        stopped = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stopped.set)
        loop.add_signal_handler(signal.SIGUSR1, host.close_connections)
        loop.add_signal_handler(signal.SIGUSR2, lambda: setattr(host, "silent", not host.silent))
        self.stdout.write(f"listening on {address}:{bound}")
        self.stdout.flush()
        serving = asyncio.create_task(host.serve_forever())
        await stopped.wait()
        await host.stop()
        serving.cancel()
        self.stdout.write(f"stopped: received={host.received} answered={host.answered}")
