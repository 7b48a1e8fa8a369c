"""python manage.py send_reversal_advices [--all]

Sends the reversal advices (ISO 8583 0420/0421) the network is owed and has not acknowledged
(payments.services.advices): those due now, or with --all every one owed whatever its next
attempt, but for those another sender is sending now. Beat does the same every
PAYMENTS_ADVICE_SWEEP_SECONDS; this is for an operator who wants it now (docs/runbook.md,
"Reversal advices piling up"). Prints the counts last.
"""

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from payments.selectors import reversal_advices_outstanding
from payments.services.advices import send_owed


class Command(BaseCommand):
    help = "Send the reversal advices the network has not acknowledged yet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all", action="store_true", help="every advice owed, not only those due now"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stderr.write(f"{reversal_advices_outstanding()} reversal advice(s) owed")
        now = timezone.now() + (timedelta(days=3650) if options["all"] else timedelta(0))
        run = send_owed(now=now, batch=10_000)
        self.stdout.write(f"acknowledged={run.acknowledged} failed={run.failed}")
