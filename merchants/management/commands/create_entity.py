"""python manage.py create_entity --type PARTICIPATOR --entity-id BANK0001 [--name NAME]

Prints one JSON object {"entityId", "entityType", "token"} on stdout. The token is shown only here.
"""

import json
import re

from django.core.management.base import BaseCommand, CommandError, CommandParser

from merchants.models import Entity, EntityType
from merchants.services import entity_create


class Command(BaseCommand):
    help = "Create a participator entity (a bank or channel) and print its one-time token as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--type",
            required=True,
            choices=[EntityType.PARTICIPATOR],
            help="Entity type; merchants get their entity from merchant/create.",
        )
        parser.add_argument("--entity-id", required=True, help="8 uppercase letters/digits")
        parser.add_argument("--name", default="")

    def handle(self, *args, **options) -> None:  # type: ignore[no-untyped-def]
        entity_id = options["entity_id"]
        if not re.fullmatch(r"[A-Z0-9]{8}", entity_id):
            raise CommandError("--entity-id must be exactly 8 uppercase letters or digits")
        if Entity.objects.filter(entity_id=entity_id).exists():
            raise CommandError(f"entity {entity_id} already exists")
        entity, token = entity_create(
            entity_type=options["type"], entity_id=entity_id, name=options["name"]
        )
        self.stdout.write(
            json.dumps(
                {"entityId": entity.entity_id, "entityType": entity.entity_type, "token": token}
            )
        )
