"""Row locks of the ledger, in one place. Accounts are always locked in primary-key order, so two
movements never wait for each other in a circle; a hold is locked after its account. Every lock
is taken inside the caller's transaction and holds until it commits."""

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from django.db import connection
from django.utils import timezone

from core.prepared import INTEGER, MOMENT, PreparedRead
from core.rows import Insert

from .models import Entry, Hold, Journal, LedgerAccount
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


# --- a posting's writes, as plain SQL (core/rows.py; services.post) -----------------------------

JOURNAL: Insert[Journal] = Insert(
    Journal,
    'INSERT INTO "issuer_journal" ("kind", "description", "created_at") VALUES (%s, %s, %s) '
    'RETURNING "id"',
)
ENTRIES: Insert[Entry] = Insert(
    Entry,
    'INSERT INTO "issuer_entry" ("journal_id", "account_id", "currency", "amount") '
    'VALUES (%s, %s, %s, %s) RETURNING "id"',
)
# Every balance a journal moves, in one statement: (account, delta) pairs then the accounts.
_BALANCES = (
    'UPDATE "issuer_ledgeraccount" SET "balance" = CASE "id" {} ELSE "balance" END '
    'WHERE "id" IN ({})'
)
_MOVE = 'WHEN %s THEN "balance" + %s'


def balances_move(*, moves: list[tuple[int, Decimal]]) -> None:
    """Move each account of `moves` (pk, delta; the pks in order, as every lock takes them) by
    its delta, in one UPDATE."""
    if not moves:
        return
    sql = _BALANCES.format(" ".join([_MOVE] * len(moves)), ", ".join(["%s"] * len(moves)))
    params: list[int | Decimal] = [value for move in moves for value in move]
    params += [pk for pk, _ in moves]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
