"""python manage.py register_requestor --client-id oob-client --jwks-file requestor.json
--scopes "START_OOB CHECK_OOB"   (or --jwks-uri https://requestor.example/jwks.json)

Creates or updates a requestor client: its django-oauth-toolkit Application (confidential,
client credentials, no usable secret) and its RequestorProfile. The JWK set must hold public
keys only: an EC P-256 key with a kid (verifies its client assertions) and an RSA key of at
least 2048 bits with a kid (the issuer encrypts answers to it). issuer.requestors validates, as
it does for the admin.
"""

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from issuer.protocol import requestors


class Command(BaseCommand):
    help = "Register (or update) a requestor client with its public JWK set and scopes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--client-id", required=True)
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--jwks-file", type=Path, help="a JSON file with the public JWK set")
        source.add_argument("--jwks-uri", help="where the requestor publishes its JWK set")
        parser.add_argument(
            "--scopes", required=True, help='space separated, e.g. "START_OOB CHECK_OOB"'
        )
        parser.add_argument("--name", default="", help="a display name (default: the client id)")

    def handle(self, *args: Any, **options: Any) -> None:
        jwks = None
        if options["jwks_file"]:
            try:
                jwks = json.loads(options["jwks_file"].read_text())
            except OSError as exc:
                raise CommandError(f"cannot read {options['jwks_file']}: {exc}") from exc
            except ValueError as exc:
                raise CommandError(f"{options['jwks_file']} is not JSON: {exc}") from exc
            if not isinstance(jwks, dict):
                raise CommandError(f'{options["jwks_file"]}: a JWK set is {{"keys": [...]}}')
        try:
            profile = requestors.requestor_register(
                client_id=options["client_id"],
                jwks=jwks,
                jwks_uri=options["jwks_uri"] or "",
                scopes=options["scopes"],
                name=options["name"],
            )
        except ValidationError as exc:
            raise CommandError(_describe(exc)) from exc
        keys = requestors.requestor_keys(profile)
        source = profile.jwks_uri or "the stored JWK set"
        self.stdout.write(f"registered requestor {profile.application.client_id}")
        self.stdout.write(f"  keys from {source}:")
        for line in requestors.kids_summary(keys.items()):
            self.stdout.write(f"    {line}")
        self.stdout.write(f"  scopes: {profile.scopes}")


def _describe(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items())
    return "; ".join(exc.messages)
