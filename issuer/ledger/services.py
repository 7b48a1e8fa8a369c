"""Posting to the ledger, and holds.

| use case | function |
|---|---|
| move money (a journal of balanced entries) | `post` |
| set money aside / release it | `hold_place`, `hold_release` |
| what an account may still spend | `available` |

Every account a journal or hold touches is locked (lock_objects.py: pk order, so two movements
never wait for each other in a circle) before its balance is read and written; a prepaid account
never goes below its holds' total nor below zero (`InsufficientFunds`).

Refusals are `ApplicationError`s like everywhere else: `InsufficientFunds` carries the issuer's
800.100.155 (the card services check the funds first and answer it as a decline, so it only
surfaces from a direct call); `Unbalanced` and `InvalidHold` are defects of the caller, never of
a requestor's input, and answer what any unexpected error does (999.999.999, HTTP 500 outside the
issuer's JWE API), logged where they are found."""

import contextlib
import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from core import results as core_results
from core.errors import ApplicationError

from .. import results
from .lock_objects import (
    ENTRIES,
    JOURNAL,
    account_lock_with_held,
    accounts_lock,
    balances_move,
    hold_lock,
)
from .models import Entry, Hold, Journal, LedgerAccount
from .selectors import holds_counting

logger = logging.getLogger("issuer.ledger")


class LedgerDefect(ApplicationError):
    """A call that would break the ledger's rules: a defect of the caller (HTTP 500, logged)."""

    http_status = 500
    default_result = core_results.UNEXPECTED_ERROR

    def __init__(self, description: str):
        logger.error("ledger refused: %s", description)
        super().__init__(None, description)


class Unbalanced(LedgerDefect):
    """A journal whose entries do not sum to zero in a currency (or an entry of 0)."""


class InvalidHold(LedgerDefect):
    """A hold of 0 or less, or reduced by more than it holds."""


class InsufficientFunds(ApplicationError):
    """An account that may not go below zero (or below its holds) would."""

    default_result = results.INSUFFICIENT_FUNDS

    def __init__(self, description: str):
        super().__init__(None, description)


def held(*, account: LedgerAccount, now: datetime | None = None) -> Decimal:
    """The total of the account's holds that still count at `now` (not released, not expired)."""
    total = Hold.objects.filter(holds_counting(now=now), account=account).aggregate(
        total=Sum("amount")
    )["total"]
    return total or Decimal(0)


def available(*, account: LedgerAccount, now: datetime | None = None) -> Decimal:
    """Ledger balance less the holds that count."""
    return account.balance - held(account=account, now=now)


def post(
    *,
    kind: str,
    lines: list[tuple[LedgerAccount, Decimal]],
    description: str = "",
    locked: Sequence[LedgerAccount] = (),
) -> Journal:
    """One journal of `lines` (account, signed amount), which must sum to zero per currency, in
    the caller's transaction (or one of its own).

    Every account that may not go below zero is read under its row lock with what its holds
    set aside (`account_lock_with_held`), in pk order, and checked: balance - held + change
    never below zero (`InsufficientFunds`, raised before anything is written). `locked`: the
    accounts the caller has already read so in this transaction (its funds check): they are not
    read again, and the posting keeps their `balance` current. Then the journal, its entries
    and every balance, the issuer's own accounts (allow_negative) included, in one UPDATE in pk
    order, so those rows, which every movement touches, stay locked only from there to the
    commit."""
    change = _balanced_change(lines)
    read = {account.pk: account for account in locked}
    guarded = sorted({account.pk for account, _ in lines if not account.allow_negative})
    within = transaction.get_connection().in_atomic_block
    with contextlib.nullcontext() if within else transaction.atomic():
        for pk in guarded:
            if pk not in read:
                read[pk] = account_lock_with_held(account=LedgerAccount(pk=pk))
            account = read[pk]
            held = account.held_total  # type: ignore[attr-defined]  # account_lock_with_held's
            if change[pk] < 0 and account.balance - held + change[pk] < 0:
                raise InsufficientFunds(f"{account} cannot pay {-change[pk]}")
        journal = JOURNAL.insert(Journal(kind=kind, description=description))
        entries = [
            Entry(journal=journal, account_id=account.pk, currency=account.currency, amount=amount)
            for account, amount in lines
        ]
        ENTRIES.insert_many(entries)
        balances_move(moves=sorted(change.items()))
        for pk in guarded:
            read[pk].balance += change[pk]
    return journal


def _balanced_change(lines: list[tuple[LedgerAccount, Decimal]]) -> dict[int, Decimal]:
    sums: dict[str, Decimal] = defaultdict(Decimal)
    for account, amount in lines:
        if amount == 0:
            raise Unbalanced("an entry of 0 moves nothing")
        sums[account.currency] += amount
    unbalanced = {currency: total for currency, total in sums.items() if total != 0}
    if unbalanced:
        raise Unbalanced(f"the entries do not sum to zero: {unbalanced}")
    change: dict[int, Decimal] = defaultdict(Decimal)
    for account, amount in lines:
        change[account.pk] += amount
    return change


def hold_place(
    *, account: LedgerAccount, amount: Decimal, reason: str = "", expires_at: datetime | None = None
) -> Hold:
    """Set `amount` aside on `account` (an authorization), until `expires_at` (by default the
    LEDGER_HOLD_LIFETIME_HOURS setting from now)."""
    if amount <= 0:
        raise InvalidHold("a hold is more than 0")
    expiry = expires_at or timezone.now() + timedelta(hours=settings.LEDGER_HOLD_LIFETIME_HOURS)
    with transaction.atomic():
        locked = accounts_lock(accounts=[account])[account.pk]
        if not locked.allow_negative and available(account=locked) < amount:
            raise InsufficientFunds(f"{locked} cannot hold {amount}")
        return Hold.objects.create(account=locked, amount=amount, reason=reason, expires_at=expiry)


def hold_reduce(*, hold: Hold, amount: Decimal) -> Hold:
    """Take `amount` off a locked hold (a capture): released when nothing is left."""
    if not 0 < amount <= hold.amount:
        raise InvalidHold("a hold is reduced by more than 0 and at most what it holds")
    if amount == hold.amount:
        hold.released_at = timezone.now()
        hold.save(update_fields=["released_at"])
    else:
        hold.amount -= amount
        hold.save(update_fields=["amount"])
    return hold


def hold_release(*, hold: Hold) -> Hold:
    with transaction.atomic():
        locked = hold_lock(hold=hold)
        if locked.released_at is None:
            locked.released_at = timezone.now()
            locked.save(update_fields=["released_at"])
    return locked
