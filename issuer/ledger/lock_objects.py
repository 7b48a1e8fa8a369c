"""Row locks of the ledger, in one place. Accounts are always locked in primary-key order, so two
movements never wait for each other in a circle; a hold is locked after its account. Every lock
is taken inside the caller's transaction and holds until it commits."""

from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone

from core.prepared import INTEGER, MOMENT, PreparedRead

from .models import Hold, LedgerAccount
from .selectors import held_total


def accounts_lock(*, accounts: Iterable[LedgerAccount]) -> dict[int, LedgerAccount]:
    """The accounts' rows, locked in primary-key order, by primary key."""
    pks = sorted({account.pk for account in accounts})
    locked = LedgerAccount.objects.select_for_update().filter(pk__in=pks).order_by("pk")
    return {account.pk: account for account in locked}


def hold_lock(*, hold: Hold) -> Hold:
    """The hold's row, locked after its account's."""
    accounts_lock(accounts=[hold.account])
    return Hold.objects.select_for_update().get(pk=hold.pk)


# Every funds check takes this lock: its SQL is compiled once per process (core.prepared).
_ACCOUNT_LOCK_WITH_HELD = PreparedRead(
    lambda pk, now: (
        LedgerAccount.objects.select_for_update(of=("self",))
        .annotate(held_total=held_total(now=now))
        .filter(pk=pk)
    ),
    pk=INTEGER,
    now=MOMENT,
)


def account_lock_with_held(*, account: LedgerAccount, now: datetime | None = None) -> LedgerAccount:
    """The account's row, locked, with `held_total`: what its holds still set aside at `now`
    (not released, not expired), read in the same statement (the lock and the funds check are
    one round trip). The holds' rows are not locked: a hold is placed, reduced and released
    only under its account's lock."""
    return _ACCOUNT_LOCK_WITH_HELD.get(pk=account.pk, now=now or timezone.now())
