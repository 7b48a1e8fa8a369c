"""python manage.py seed_demo: a participator, a merchant, a terminal and a portal user.

Safe to run again: existing demo objects are kept and their tokens rotated, so the printed
credentials always work. Prints the credentials and a curl that creates a merchant.
"""

import secrets
from datetime import date

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from merchants.models import Entity, EntityType, Merchant, PortalUser, ThreeDSStatus
from merchants.services import (
    entity_create,
    entity_rotate_token,
    merchant_3ds_enrol,
    merchant_create,
)
from terminals.models import Terminal
from terminals.services import terminal_create

PARTICIPATOR_ID = "BANK0001"
MERCHANT_ID = "10000001"
TERMINAL_ID = "T0000001"
PORTAL_USER = "merchant-admin"
STAFF_USER = "admin"

MERCHANT_VALUES = {
    "name": "Demo Coffee Roasters GmbH",
    "business": "DEMO COFFEE",
    "website": "www.demo.example",
    "street": "1 Demo Strasse",
    "postcode": "10115",
    "city": "Berlin",
    "state": "Berlin",
    "country": "DE",
    "phone": "+49-30-1234567",
    "mmcc": "5814",
    "vmcc": "5814",
    "pf_id": "PF000000001",
    "corporate_status": "0",
    "date_designed": date(2024, 1, 15),
}


class Command(BaseCommand):
    help = "Seed a demo participator, merchant, terminal, portal user and staff user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    @transaction.atomic
    def handle(self, *args, **options) -> None:  # type: ignore[no-untyped-def]
        bank = Entity.objects.filter(entity_id=PARTICIPATOR_ID).first()
        if bank is None:
            bank, bank_token = entity_create(
                entity_type=EntityType.PARTICIPATOR, entity_id=PARTICIPATOR_ID, name="Demo Bank"
            )
        else:
            bank_token = entity_rotate_token(entity=bank)

        merchant = Merchant.objects.filter(merchant_id=MERCHANT_ID).first()
        if merchant is None:
            merchant, merchant_token = merchant_create(
                participator=bank,
                merchant_id=MERCHANT_ID,
                values=MERCHANT_VALUES,
                changed_by="seed_demo",
            )
        else:
            merchant_token = entity_rotate_token(entity=merchant.entity)

        if merchant.threeds_status != ThreeDSStatus.ENROLLED:
            merchant_3ds_enrol(merchant=merchant, changed_by="seed_demo")

        if not Terminal.objects.filter(terminal_id=TERMINAL_ID).exists():
            terminal_create(
                merchant=merchant,
                terminal_id=TERMINAL_ID,
                changed_by="seed_demo",
                values={
                    "name": "Front desk",
                    "device_id": "123456789",
                    "device_info": "Demo Terminal 1",
                    "terminal_type": "POS",
                    "pin_entry_capability": "1",
                },
            )

        portal_password = secrets.token_urlsafe(12)
        portal_user = User.objects.filter(username=PORTAL_USER).first() or User(
            username=PORTAL_USER
        )
        portal_user.set_password(portal_password)
        portal_user.save()
        PortalUser.objects.update_or_create(user=portal_user, defaults={"merchant": merchant})

        staff_password = secrets.token_urlsafe(12)
        staff = User.objects.filter(username=STAFF_USER).first() or User(username=STAFF_USER)
        staff.is_staff = staff.is_superuser = True
        staff.set_password(staff_password)
        staff.save()

        base = options["base_url"]
        out = self.stdout.write
        out("Demo credentials (shown once; run seed_demo again for fresh ones):")
        out(
            f"  participator  entityId={PARTICIPATOR_ID} entityType=PARTICIPATOR token={bank_token}"
        )
        out(
            f"  merchant      merchant.id={MERCHANT_ID} entityId={merchant.entity.entity_id} "
            f"entityType=MERCHANT token={merchant_token}"
        )
        out(
            f"  terminal      pos.terminalId={TERMINAL_ID} (entityType=POS with the merchant token)"
        )
        out(f"  staff admin   {base}/admin/  user={STAFF_USER} password={staff_password}")
        out(f"  portal user   user={PORTAL_USER} password={portal_password}")
        out("")
        out("Create a merchant:")
        out(
            f"curl -s {base}/pay/v3/merchant/create \\\n"
            f"  -H 'Authorization: Bearer {bank_token}' \\\n"
            f"  -d entityId={PARTICIPATOR_ID} -d entityType=PARTICIPATOR "
            f"-d merchantTransactionId=create$(date +%s) \\\n"
            "  -d merchant.id=$(date +%s) -d 'merchant.name=Example Books Ltd' "
            "-d 'merchant.business=EXAMPLE BOOKS' \\\n"
            "  -d 'merchant.street=2 High Street' -d merchant.postcode=10117 "
            "-d merchant.city=Berlin -d merchant.state=Berlin \\\n"
            "  -d merchant.country=DE --data-urlencode merchant.phone=+49-30-7654321 "
            "-d merchant.mmcc=5942 "
            "-d merchant.vmcc=5942 \\\n"
            "  -d merchant.pfId=PF000000002 -d merchant.corporateStatus=0 "
            "-d merchant.dateDesigned=20240201"
        )
