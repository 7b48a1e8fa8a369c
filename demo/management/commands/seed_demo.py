"""python manage.py seed_demo [--base-url URL] [--rotate]: the embedded demo's participator,
merchant, terminal, merchant portal user and staff user.

Safe to run again, and keeps what exists: the demo's tokens and passwords are kept in
settings.DEMO_CREDENTIALS_FILE (var/demo-credentials.json for the embedded SQLite database, a file
named after the database for a DATABASE_URL; git-ignored, mode 0600), so every run prints the same
credentials and a token saved from an earlier run keeps working. The platform stores tokens and
passwords only hashed and shows them once; this file is the demo's exception (docs/decisions.md,
"Hardening (issue 9)"). The file names its database: one of another database is refused, never
overwritten. A token a person changed since (in the portal or the admin) is kept and reported,
not shown. A credential the file should hold and does not (a deleted or corrupt file) is rotated,
the file rewritten, and the command says so. `--rotate` makes new ones for all. Prints the
credentials and a curl that creates a merchant, with `--base-url` (make run passes its own
address).

It also gives the demo merchant a recent past (demo.history): payments on the previous business
days, settled and filed, so Settlements, Daily files and the reports are not empty.
"""

import hmac
import json
import os
import secrets
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from core.bearer import token_hash
from demo.credentials import database_label
from demo.history import seed_history
from issuer import demo as issuer_demo
from issuer.cards import money as issuer_money
from issuer.cards import services as issuer_services
from merchants.models import (
    Entity,
    EntityTokenChange,
    EntityType,
    Merchant,
    PortalUser,
    ThreeDSStatus,
)
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
APPROVER_USER = "approver"  # a second staff member: approves another's held refunds
APPROVER_PERMISSIONS = ("view_payment", "view_paymentaction", "approve_paymentaction")

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


def shown_path(path: Path) -> str:
    """The path relative to the project when it is inside it (what a reader types)."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(settings.BASE_DIR))
    except ValueError:
        return str(absolute)


def read_credentials(path: Path) -> dict[str, Any] | None:
    """The kept credentials, or None when there is no usable file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Write `data` as JSON readable by its owner only, replacing the file in one step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# The issuer's demo requestor (issuer_demo registers it): the demo cards are its.
ISSUER_REQUESTOR = "oob-client"
# Who the command is in a token's history; "system" is what earlier versions wrote.
SEEDERS = ("seed_demo", "system")
KEPT_TOKEN = "(yours: changed since, kept)"


class Command(BaseCommand):
    help = "Seed (or keep) the demo participator, merchant, terminal, portal user and staff user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--base-url",
            default=None,
            help="the demo's address in the printed URLs and curl (default: ISSUER_BASE_URL)",
        )
        parser.add_argument(
            "--rotate",
            action="store_true",
            help="new tokens and passwords for every demo credential",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        base = (options["base_url"] or settings.ISSUER_BASE_URL).rstrip("/")
        path = Path(settings.DEMO_CREDENTIALS_FILE)
        database = database_label(connection.settings_dict)
        kept = read_credentials(path)
        if kept is not None and kept.get("database", database) != database:
            raise CommandError(
                f"{shown_path(path)} holds the demo credentials of another database "
                f"({kept['database']}), not of {database}: nothing was changed. Set "
                "DEMO_CREDENTIALS_FILE to a file of this database's own."
            )
        self.rotate = options["rotate"]
        self.saved = kept or {}
        self.replaced: list[str] = []
        self.changed_by_people: list[str] = []

        with transaction.atomic():
            credentials = self.seed()
            write_private(path, {"baseUrl": base, "database": database, **credentials})

        for change in self.changed_by_people:
            self.stderr.write(
                f"kept the {change}: not shown (`seed_demo --rotate` makes new ones for all)"
            )
        if self.replaced:
            why = (
                "was missing or unreadable" if kept is None else "is corrupt: it did not hold them"
            )
            self.stderr.write(
                self.style.WARNING(
                    f"{shown_path(path)} {why}: rotated the existing "
                    f"{', '.join(self.replaced)} and wrote the new ones to it"
                )
            )
        # Outside the transaction: the payment services call the network between their own.
        days = seed_history(merchant=Merchant.objects.get(merchant_id=MERCHANT_ID))
        # The days the demo has, for the docs' report examples (docs/api.md: $FIRST, $DAY).
        write_private(
            path, {**(read_credentials(path) or {}), "historyDays": [f"{d:%Y%m%d}" for d in days]}
        )
        self.stdout.write(
            f"Demo history: the merchant's payments of {days[0]:%Y-%m-%d} to {days[-1]:%Y-%m-%d}, "
            "settled and filed (portal: Settlements, Daily files)"
        )
        self.show(base, path, credentials)

    # --- the objects ---------------------------------------------------------------------------

    def seed(self) -> dict[str, Any]:
        bank_token: str | None
        merchant_token: str | None
        bank = Entity.objects.filter(entity_id=PARTICIPATOR_ID).first()
        if bank is None:
            bank, bank_token = entity_create(
                entity_type=EntityType.PARTICIPATOR, entity_id=PARTICIPATOR_ID, name="Demo Bank"
            )
        else:
            bank_token = self.token_of(bank, "participator")

        merchant = Merchant.objects.filter(merchant_id=MERCHANT_ID).first()
        if merchant is None:
            merchant, merchant_token = merchant_create(
                participator=bank,
                merchant_id=MERCHANT_ID,
                values=MERCHANT_VALUES,
                changed_by="seed_demo",
            )
        else:
            merchant_token = self.token_of(merchant.entity, "merchant")

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

        portal_user, portal_password = self.user_with_password(PORTAL_USER, "portal")
        PortalUser.objects.update_or_create(user=portal_user, defaults={"merchant": merchant})

        staff, staff_password = self.user_with_password(STAFF_USER, "staff")
        if not (staff.is_staff and staff.is_superuser):
            staff.is_staff = staff.is_superuser = True
            staff.save(update_fields=["is_staff", "is_superuser"])

        approver, approver_password = self.user_with_password(APPROVER_USER, "approver")
        if not approver.is_staff:
            approver.is_staff = True
            approver.save(update_fields=["is_staff"])
        approver.user_permissions.add(
            *Permission.objects.filter(
                content_type__app_label="payments", codename__in=APPROVER_PERMISSIONS
            )
        )

        return {
            "participator": {
                "entityId": PARTICIPATOR_ID,
                "entityType": "PARTICIPATOR",
                "token": bank_token,
            },
            "merchant": {
                "merchantId": MERCHANT_ID,
                "entityId": merchant.entity.entity_id,
                "entityType": "MERCHANT",
                "token": merchant_token,
            },
            "terminal": {"terminalId": TERMINAL_ID},
            "staff": {"username": STAFF_USER, "password": staff_password},
            "approver": {"username": APPROVER_USER, "password": approver_password},
            "portal": {"username": PORTAL_USER, "password": portal_password},
        }

    def kept(self, role: str, field: str) -> str:
        value = (self.saved.get(role) or {}).get(field) if not self.rotate else None
        return value if isinstance(value, str) else ""

    def token_of(self, entity: Entity, role: str) -> str | None:
        """The kept token when it is still the entity's; None (kept, not shown) when a person
        changed it since (the portal, the admin); else a new one."""
        token = self.kept(role, "token")
        if token and hmac.compare_digest(token_hash(token), entity.token_hash):
            return token
        if not self.rotate:
            last = EntityTokenChange.objects.filter(entity=entity).first()  # newest first
            if last is not None and last.changed_by not in SEEDERS:
                self.changed_by_people.append(
                    f"{role} token (…{entity.token_last4}), changed by {last.changed_by} on "
                    f"{last.changed_at:%Y-%m-%d %H:%M} UTC"
                )
                return None
            self.replaced.append(f"{role} token")
        return entity_rotate_token(entity=entity, changed_by="seed_demo")

    def user_with_password(self, username: str, role: str) -> tuple[User, str]:
        """The user (created when missing) and its password: the kept one when it still works,
        else a new one."""
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User(username=username)
        else:
            password = self.kept(role, "password")
            if password and user.check_password(password):
                return user, password
            if not self.rotate:
                self.replaced.append(f"{role} password")
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save()
        return user, password

    # --- the output ----------------------------------------------------------------------------

    def show(self, base: str, path: Path, credentials: dict[str, Any]) -> None:
        bank_token = credentials["participator"]["token"] or KEPT_TOKEN
        merchant = credentials["merchant"]
        out = self.stdout.write
        if self.rotate:
            out("--rotate: new tokens and passwords for every demo credential")
        out(f"Demo credentials (kept in {shown_path(path)}; `seed_demo --rotate` makes new ones):")
        out(
            f"  participator  entityId={PARTICIPATOR_ID} entityType=PARTICIPATOR token={bank_token}"
        )
        out(
            f"  merchant      merchant.id={MERCHANT_ID} entityId={merchant['entityId']} "
            f"entityType=MERCHANT token={merchant['token'] or KEPT_TOKEN}"
        )
        out(
            f"  terminal      pos.terminalId={TERMINAL_ID} (entityType=POS with the merchant token)"
        )
        out(
            f"  staff admin   {base}/admin/  user={STAFF_USER} "
            f"password={credentials['staff']['password']}"
        )
        out(
            f"  second staff  {base}/admin/  user={APPROVER_USER} "
            f"password={credentials['approver']['password']} (approves another's held refunds)"
        )
        out(f"  portal user   user={PORTAL_USER} password={credentials['portal']['password']}")
        cards = issuer_demo.demo_cards(ISSUER_REQUESTOR)
        for card in (cards.prepaid, cards.debit):
            balance = issuer_money.balances(card=card)
            out(
                f"  issuer card   {card.reference} ({card.product.kind}, requestor "
                f"{ISSUER_REQUESTOR}): {card.masked} {card.expiry}, PIN {issuer_demo.DEMO_PIN}, "
                f"available {balance['availableBalance']} {balance['currency']}"
            )
        prepaid = cards.prepaid
        # Pay with it right away: the acquirer sends it to the issuer's ledger. The issuer names
        # it by its cardReference (BalanceInquiry and every catalogue operation take that; a
        # CardInfoInquiry with the number finds it too).
        out(
            f"  on-us card: {issuer_services.card_number(card=prepaid)} {prepaid.expiry} "
            f"cvv {issuer_services.card_cvv2(card=prepaid)} (cardReference {prepaid.reference}, "
            f"requestor {ISSUER_REQUESTOR})"
        )
        key_file = shown_path(Path(settings.DEMO_REQUESTOR_KEY_FILE))
        balance_payload = json.dumps({"cardReference": prepaid.reference})
        out(
            f"  its balance:  .venv/bin/python manage.py issuer_client --key-file {key_file} "
            f"--scopes TRANSACTION transaction BalanceInquiry '{balance_payload}'"
        )
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
