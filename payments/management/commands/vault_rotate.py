"""python manage.py vault_rotate [--batch 500] [--dry-run]

Re-encrypts every vault ciphertext (card numbers, entity tokens) that is not under the active
key (VAULT_ACTIVE_KEY_ID), in batches, each row locked and rewritten in its own transaction,
printing progress. Run it after adding a new key to VAULT_KEYS and making it active; when it
reports nothing left under the old key, the old key can be removed from VAULT_KEYS.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from core import vault
from merchants.models import Entity
from merchants.services import TOKEN_PURPOSE
from payments.cards import PAN_PURPOSE
from payments.models import Payment

TARGETS: list[tuple[Any, str, str]] = [
    (Payment, "pan_ciphertext", PAN_PURPOSE),
    (Entity, "token_ciphertext", TOKEN_PURPOSE),
]


class Command(BaseCommand):
    help = "Re-encrypt card numbers and entity tokens under the active vault key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=500)
        parser.add_argument("--dry-run", action="store_true", help="count only")

    def handle(self, *args, **options) -> None:  # type: ignore[no-untyped-def]
        active = vault.active_key_id()
        prefix = f"v1:{active}:"
        for model, field, purpose in TARGETS:
            stale = model.objects.exclude(**{field: ""}).exclude(**{f"{field}__startswith": prefix})
            total = stale.count()
            label = f"{model._meta.label}.{field}"
            self.stdout.write(f"{label}: {total} to re-encrypt under key {active}")
            if options["dry_run"] or not total:
                continue
            done = 0
            while True:
                with transaction.atomic():
                    rows = list(
                        stale.select_for_update(skip_locked=True).order_by("pk")[: options["batch"]]
                    )
                    for row in rows:
                        plain = vault.decrypt(getattr(row, field), purpose=purpose)
                        setattr(row, field, vault.encrypt(plain, purpose=purpose))
                        row.save(update_fields=[field])
                done += len(rows)
                self.stdout.write(f"{label}: {done}/{total}")
                if not rows:
                    break
        self.stdout.write("done")
