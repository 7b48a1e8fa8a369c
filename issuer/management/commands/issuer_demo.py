"""python manage.py issuer_demo [--base-url URL]: a working issuer for the embedded demo.

`make run` runs it with its own address, after seed_demo:

- the issuer's signing and encryption keys, when there are none (`issuer_keys generate`);
- the demo requestor `oob-client` (every scope of the catalogue) and its demo cards
  (issuer.demo: crd_demo_prepaid with 500.00 EUR, crd_demo_debit linked to a bank account with
  2500.00 EUR). Its private keys are made once and kept in settings.DEMO_REQUESTOR_KEY_FILE
  (var/demo-requestor/oob-client.json,
  git-ignored, mode 0600) with its client id and the issuer's base URL beside them, so
  `issuer_client --key-file var/demo-requestor/oob-client.json ...` needs no other option
  (docs/issuer.md). It is registered again only when its registration differs from the file.

Demo only: a real requestor makes and keeps its own keys and registers the public half
(docs/issuer.md, "for your own requestor").
"""

import json
import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from issuer import demo
from issuer.cards import money
from issuer.protocol import keys, requestors
from issuer.protocol.client import generate_keys, public_jwks, split_keys

CLIENT_ID = "oob-client"
SCOPES = "START_OOB CHECK_OOB OTP APPLICATION CUSTOMER ACCOUNT CARD TRANSACTION TOKEN PARAMETER"


def shown_path(path: Path | str) -> str:
    """A path relative to the project when it is inside it (what a reader types). Not resolved:
    .venv/bin/python is a link to an interpreter without the project's packages."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(settings.BASE_DIR))
    except ValueError:
        return str(absolute)


def read_private_keys(path: Path) -> list[dict[str, Any]] | None:
    """The private keys of the demo requestor's file, or None when it has no usable pair."""
    try:
        data = json.loads(path.read_text())
        split_keys(data)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return list(data["keys"])


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Write `data` as JSON readable by its owner only (the folder too), in one step."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(partial, path)


class Command(BaseCommand):
    help = (
        "Demo only: generate the issuer keys when there are none and keep the demo requestor "
        "oob-client registered, its private keys in var/demo-requestor/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--base-url",
            default=None,
            help="the issuer's address, written beside the requestor's keys (default: "
            "ISSUER_BASE_URL; make run passes its own)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        base = (options["base_url"] or settings.ISSUER_BASE_URL).rstrip("/")
        out = self.stdout.write

        if not all(keys.all_keys(use) for use in (keys.SIG, keys.ENC)):
            call_command("issuer_keys", "generate", stdout=self.stdout)

        path = Path(settings.DEMO_REQUESTOR_KEY_FILE)
        private = read_private_keys(path)
        if private is None:
            if path.exists():
                self.stderr.write(
                    self.style.WARNING(f"{shown_path(path)} holds no usable keys: new ones made")
                )
            private = generate_keys()["keys"]
        document = {"client_id": CLIENT_ID, "base_url": base, "keys": private}
        try:
            current = json.loads(path.read_text())
        except (OSError, ValueError):
            current = None
        if current != document:
            write_private(path, document)

        public = public_jwks(document)
        profile = requestors.requestor_get(CLIENT_ID)
        if (
            profile is None
            or profile.jwks_uri
            or profile.jwks != public
            or set(profile.scopes.split()) != set(SCOPES.split())
        ):
            requestors.requestor_register(
                client_id=CLIENT_ID, jwks=public, scopes=SCOPES, name="Demo requestor"
            )
            verb = "registered" if profile is None else "registered again (it had other keys)"
            out(f"Demo requestor {CLIENT_ID} {verb}")

        cards = demo.demo_cards(CLIENT_ID)
        python = shown_path(sys.executable) if sys.executable else "python"
        out(f"Issuer: token endpoint {base}/oauth2/token, JWKS {base}/.well-known/jwks.json")
        out(
            f"  demo requestor {CLIENT_ID} ({SCOPES}), private keys and base URL in "
            f"{shown_path(path)}"
        )
        out(
            f"  {python} manage.py issuer_client --key-file {shown_path(path)} "
            "--scopes START_OOB token"
        )
        for card in (cards.prepaid, cards.debit):
            balance = money.balances(card=card)
            out(
                f"  demo {card.product.kind} card {card.reference}: {card.masked} "
                f"{card.expiry}, PIN {demo.DEMO_PIN}, available "
                f"{balance['availableBalance']} {balance['currency']}"
            )
