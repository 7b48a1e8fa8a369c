"""python manage.py vault_rotate [--batch 500] [--dry-run]

Re-encrypts every vault ciphertext that is not under the active key (VAULT_ACTIVE_KEY_ID): every
column an app registered with `core.vault.register` (card numbers, entity tokens, ...), in
batches, each row locked and rewritten in its own transaction. Progress goes to stderr; one line
per column, then "done", to stdout. Run it after adding a new key to VAULT_KEYS and making it
active; when it reports nothing left under the old key, the old key can be removed.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from core import vault


class Command(BaseCommand):
    help = "Re-encrypt every vault ciphertext (card numbers, tokens) under the active key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=500)
        parser.add_argument("--dry-run", action="store_true", help="count only")

    def handle(self, *args: Any, **options: Any) -> None:
        active = vault.active_key_id()
        bars: dict[str, tqdm] = {}

        def started(entry: vault.VaultField, total: int) -> None:
            self.stdout.write(f"{entry.label}: {total} to re-encrypt under key {active}")
            if total and not options["dry_run"]:
                bars[entry.label] = tqdm(
                    total=total, desc=entry.label, unit="row", file=self.stderr._out
                )

        def progressed(entry: vault.VaultField, count: int) -> None:
            bars[entry.label].update(count)

        report = vault.vault_rotate(
            batch=options["batch"],
            dry_run=options["dry_run"],
            on_start=started,
            on_batch=progressed,
        )
        for bar in bars.values():
            bar.close()
        for rotated in report:
            if not options["dry_run"]:
                self.stdout.write(
                    f"{rotated.label}: {rotated.rewritten}/{rotated.stale} re-encrypted"
                )
        self.stdout.write("done")
