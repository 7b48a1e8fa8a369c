"""Row locks of the ledger, in one place. Accounts are always locked in primary-key order, so two
movements never wait for each other in a circle; a hold is locked after its account. Every lock
is taken inside the caller's transaction and holds until it commits."""

from collections.abc import Iterable

from .models import Hold, LedgerAccount


def accounts_lock(*, accounts: Iterable[LedgerAccount]) -> dict[int, LedgerAccount]:
    """The accounts' rows, locked in primary-key order, by primary key."""
    pks = sorted({account.pk for account in accounts})
    locked = LedgerAccount.objects.select_for_update().filter(pk__in=pks).order_by("pk")
    return {account.pk: account for account in locked}


def hold_lock(*, hold: Hold) -> Hold:
    """The hold's row, locked after its account's."""
    accounts_lock(accounts=[hold.account])
    return Hold.objects.select_for_update().get(pk=hold.pk)
