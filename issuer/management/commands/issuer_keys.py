"""python manage.py issuer_keys generate|rotate|list|prune

- generate: create the signing (EC P-256) and encryption (RSA) keys of each kind that has none.
- rotate: create a new key of each kind; it becomes active at once (new tokens are signed with it,
  clients should encrypt to it), while the old ones stay published, and keep verifying and
  decrypting, for ISSUER_ACCESS_TOKEN_SECONDS.
- list: every key file with its status: active, published (until when) or expired.
- prune: delete key files past their grace period.

Keys are files in ISSUER_KEYS_DIR (issuer.keys); production keeps them in a KMS or HSM.
"""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from issuer.protocol import keys

USES = (keys.SIG, keys.ENC)


class Command(BaseCommand):
    help = "Generate, rotate, list or prune the issuer's signing and encryption keys."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["generate", "rotate", "list", "prune"])

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")()

    def _creation_time(self, existing: list[keys.IssuerKey]) -> datetime:
        # Key files are stamped to the second and the newest stamp is the active key: a key made
        # in the same second as the current one must still sort after it.
        now = datetime.now(UTC)
        if existing:
            now = max(now, existing[0].created + timedelta(seconds=1))
        return now

    def _generate(self) -> None:
        for use in USES:
            existing = keys.all_keys(use)
            if existing:
                self.stdout.write(
                    f"{use}: a key exists ({existing[0].kid}); use `rotate` for a new one"
                )
                continue
            key = keys.generate(use, now=self._creation_time(existing))
            self.stdout.write(f"{use}: generated {key.kid} ({keys.ALG[use]}) in {key.path}")

    def _rotate(self) -> None:
        grace = timedelta(seconds=settings.ISSUER_ACCESS_TOKEN_SECONDS)
        for use in USES:
            previous = keys.all_keys(use)
            key = keys.generate(use, now=self._creation_time(previous))
            line = f"{use}: new active key {key.kid} ({keys.ALG[use]})"
            if previous:
                line += (
                    f"; {previous[0].kid} stays published until {(key.created + grace).isoformat()}"
                )
            self.stdout.write(line)

    def _list(self) -> None:
        grace = timedelta(seconds=settings.ISSUER_ACCESS_TOKEN_SECONDS)
        rows = []
        for use in USES:
            found = keys.all_keys(use)
            live = {k.kid for k in keys.live_keys(use)}
            for index, key in enumerate(found):
                if index == 0:
                    status = "active"
                else:
                    until = (found[index - 1].created + grace).isoformat()
                    status = (
                        f"published until {until}" if key.kid in live else f"expired since {until}"
                    )
                rows.append((use, key.kid, key.created.isoformat(), status))
        if not rows:
            self.stdout.write(f"no issuer keys in {keys.keys_dir()}: run `issuer_keys generate`")
            return
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        header = ("use", "kid", "created", "status")
        widths = [max(w, len(h)) for w, h in zip(widths, header, strict=False)]
        for row in (header, *rows):
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            self.stdout.write("  ".join([*cells, row[3]]))

    def _prune(self) -> None:
        removed = keys.prune()
        if not removed:
            self.stdout.write("nothing to prune: every key is active or still published")
        for path in removed:
            self.stdout.write(f"removed {path.name}")
