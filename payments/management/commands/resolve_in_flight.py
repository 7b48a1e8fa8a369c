"""python manage.py resolve_in_flight [--older-than SECONDS] [--batch N]

Resolves payments left IN_FLIGHT longer than the connector's timeout (or --older-than): asks the
network what became of each and records it, or times it out and reverses it (payments.services.
janitor). Beat runs the same every minute; this is for an operator who wants it now. Prints the
counts last.
"""

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from payments.models import Payment, PaymentState
from payments.services import payment_resolve_in_flight


class Command(BaseCommand):
    help = "Resolve payments whose network answer never came (IN_FLIGHT past the timeout)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=float, default=None, metavar="SECONDS")
        parser.add_argument("--batch", type=int, default=200)

    def handle(self, *args: Any, **options: Any) -> None:
        older = options["older_than"]
        in_flight = Payment.objects.filter(state=PaymentState.IN_FLIGHT).count()
        self.stderr.write(f"{in_flight} payment(s) in flight")
        outcome = payment_resolve_in_flight(
            older_than=timedelta(seconds=older) if older is not None else None,
            batch=options["batch"],
        )
        self.stdout.write(
            f"resolved={outcome.resolved} reversed={outcome.reversed} skipped={outcome.skipped}"
        )
