"""The cardholder's side: the 3-D Secure channel (SecureRegist), the customer's contact and KYC
status (InfoUpdate), and the account a card draws on (AccountLinkage, the account's status).

Each change locks its row (lock_objects.py; a closing account's ledger account too, through the
ledger's lock module) and checks after the lock: an account is closed only when it holds
nothing, neither money nor blocked funds.
"""

from collections.abc import Mapping

from django.db import transaction

from core.errors import ApplicationError, ParameterError

from ... import results
from ...ledger.lock_objects import accounts_lock
from ...ledger.services import held
from ..lock_objects import account_lock, card_lock, customer_lock
from ..models import (
    ACCOUNT_LIFECYCLE,
    AccountStatus,
    Card,
    CardAccount,
    Customer,
    ProductKind,
    SecureChannel,
)
from .applying import account_create


def secure_register(*, card: Card, channel: str) -> Card:
    """SecureRegist: the channel of the cardholder's 3-D Secure challenges: a one-time
    password by SMS (the customer's mobile) or e-mail, or out of band in the issuer's app;
    NONE unregisters."""
    customer = card.customer
    if (channel == SecureChannel.SMS and not customer.mobile) or (
        channel == SecureChannel.EMAIL and not customer.email
    ):
        raise ApplicationError(results.NO_CONTACT_FOR_CHANNEL)
    with transaction.atomic():
        card = card_lock(card=card)
        card.secure_channel = channel
        card.save(update_fields=["secure_channel", "updated_at"])
    return card


CUSTOMER_UPDATABLE = (
    "email",
    "mobile",
    "address_line1",
    "address_line2",
    "city",
    "postcode",
    "country",
    "kyc_status",
)


def customer_update(*, customer: Customer, changes: Mapping[str, str]) -> Customer:
    with transaction.atomic():
        customer = customer_lock(customer=customer)
        for name, value in changes.items():
            assert name in CUSTOMER_UPDATABLE, name
            setattr(customer, name, value)
        customer.save()
    return customer


def account_link(*, card: Card, iban: str = "", account: CardAccount | None = None) -> Card:
    """AccountLinkage: a debit card to a bank account (its IBAN: the customer's account with it,
    made when new); a prepaid card to another e-money account of the same customer and
    currency."""
    with transaction.atomic():
        card = card_lock(card=card)
        if card.product.kind == ProductKind.DEBIT:
            if not iban:
                raise ParameterError([("iban", None, "a debit card is linked to an IBAN")])
            found = CardAccount.objects.filter(
                customer=card.customer, product=card.product, iban=iban
            ).first()
            account = found or account_create(
                customer=card.customer, product=card.product, iban=iban
            )
        else:
            if account is None:
                raise ParameterError(
                    [("accountReference", None, "a prepaid card is linked to an account")]
                )
            if account.customer_id != card.customer_id or account.currency != card.product.currency:
                raise ParameterError(
                    [
                        (
                            "accountReference",
                            account.reference,
                            "an account of the card's customer in the product's currency",
                        )
                    ]
                )
        card.account = account
        card.save(update_fields=["account", "updated_at"])
    return card


def account_set_status(*, account: CardAccount, target: str, actor: str) -> CardAccount:
    """Account StatusUpdate (ACCOUNT_LIFECYCLE; CLOSED is final and needs an empty account)."""
    with transaction.atomic():
        account = account_lock(account=account)
        if not ACCOUNT_LIFECYCLE.allows(account.status, target):
            raise ApplicationError(
                results.ACCOUNT_STATUS_NOT_ALLOWED,
                f"an account in status {account.status} cannot become {target}",
            )
        money = accounts_lock(accounts=[account.ledger])[account.ledger_id]
        if target == AccountStatus.CLOSED and (money.balance != 0 or held(account=money) != 0):
            raise ApplicationError(
                results.ACCOUNT_STATUS_NOT_ALLOWED,
                f"the account still holds {money.balance:.2f} {money.currency} (or blocked "
                "funds): pay it out before closing it",
            )
        ACCOUNT_LIFECYCLE.apply(account, target, actor=actor)
    return account
