"""python manage.py portal_user create --merchant MERCHANT_ID --email EMAIL
python manage.py portal_user deactivate|activate|reset-password --email EMAIL
python manage.py portal_user list --merchant MERCHANT_ID

Bank staff's command for a merchant's portal users (the admin's merchant page does the same).
`create` and `reset-password` print one JSON object on stdout with the one-time password, shown
only here: the user signs in at /portal/login/ with the email and that password, and chooses its
own password first. Every refusal is a CommandError, with nothing written.
"""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import ApplicationError
from merchants.models import Merchant, PortalUser
from merchants.selectors import portal_user_get, portal_users_of
from merchants.services import (
    portal_user_create,
    portal_user_reset_password,
    portal_user_set_active,
)

ACTOR = "command:portal_user"
LOGIN_PATH = "/portal/login/"


class Command(BaseCommand):
    help = (
        "Create, deactivate, re-activate, list a merchant's portal users or reset a password; "
        "create and reset-password print a one-time password as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser(
            "create", help="a new portal user of a merchant, with a one-time password"
        )
        create.add_argument("--merchant", required=True, help="merchant.id (1 to 15 digits)")
        create.add_argument("--email", required=True, help="the user's email and user name")
        create.add_argument(
            "--role",
            choices=[role.lower() for role in PortalUser.Role.values],
            default="administrator",
            help="what the user may do in the portal (default: administrator)",
        )
        for name, what in (
            ("deactivate", "refuse the user's sign-in and end its sessions"),
            ("activate", "let a deactivated user sign in again"),
            ("reset-password", "a new one-time password (the old one and sessions end)"),
        ):
            action = actions.add_parser(name, help=what)
            action.add_argument("--email", required=True, help="the portal user's email")
        listing = actions.add_parser("list", help="a merchant's portal users")
        listing.add_argument("--merchant", required=True, help="merchant.id")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "create":
                self.create(
                    self.merchant(options["merchant"]), options["email"], options["role"].upper()
                )
            elif action == "list":
                self.list(self.merchant(options["merchant"]))
            else:
                self.change(action, self.portal_user(options["email"]))
        except ApplicationError as exc:
            raise CommandError(exc.description) from None

    def merchant(self, merchant_id: str) -> Merchant:
        merchant = Merchant.objects.filter(merchant_id=merchant_id.strip()).first()
        if merchant is None:
            raise CommandError(f"no merchant with merchant.id {merchant_id}")
        return merchant

    def portal_user(self, email: str) -> PortalUser:
        portal_user = portal_user_get(username=email)
        if portal_user is None:
            raise CommandError(f"no portal user {email}")
        return portal_user

    def create(self, merchant: Merchant, email: str, role: str) -> None:
        portal_user, password = portal_user_create(
            merchant=merchant, email=email, changed_by=ACTOR, role=role
        )
        self.answer(portal_user, password=password)

    def change(self, action: str, portal_user: PortalUser) -> None:
        if action == "reset-password":
            password = portal_user_reset_password(portal_user=portal_user, changed_by=ACTOR)
            self.answer(portal_user, password=password)
            return
        changed = portal_user_set_active(
            portal_user=portal_user, active=action == "activate", changed_by=ACTOR
        )
        self.answer(portal_user, changed=changed)

    def list(self, merchant: Merchant) -> None:
        for portal_user in portal_users_of(merchant=merchant):
            self.answer(portal_user)

    def answer(self, portal_user: PortalUser, **extra: Any) -> None:
        user = portal_user.user
        data = {
            "merchantId": portal_user.merchant.merchant_id,
            "username": user.get_username(),
            "active": user.is_active,
            "mustChangePassword": portal_user.must_change_password,
            "role": portal_user.role.lower(),
            **extra,
        }
        if "password" in extra:
            data["signIn"] = LOGIN_PATH
        self.stdout.write(json.dumps(data))
