"""Deliver every outbound notification that is due now (what beat's sweep does every minute),
with a progress bar on stderr.

    .venv/bin/python manage.py notifications_deliver [--batch 500]
"""

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from core import outbox


class Command(BaseCommand):
    help = "Deliver the outbound notifications that are due (retries, lost tasks)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--batch", type=int, default=500, help="at most this many per run")

    def handle(self, *args: Any, batch: int, **options: Any) -> None:
        due = outbox.due(batch=batch)
        outcomes: Counter[str] = Counter()
        for event_id in tqdm(due, desc="notifications", unit="msg", disable=not due):
            outcomes[outbox.deliver(event_id)] += 1
        if not due:
            self.stdout.write("no notification is due")
            return
        summary = ", ".join(f"{n} {what}" for what, n in sorted(outcomes.items()))
        self.stdout.write(f"{len(due)} due: {summary}")
