"""The issuer's ledger: balanced journals only (the service, and PostgreSQL itself at commit),
balances beside the entries, holds that make the available balance (an expired one stops
counting at once), a prepaid account never below zero, even when many debit it at once."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.errors import error_answer
from issuer.ledger import services
from issuer.ledger.models import Hold
from issuer.models import AccountKind, Entry, Journal, LedgerAccount

pytestmark = pytest.mark.django_db
D = Decimal


def accounts():  # type: ignore[no-untyped-def]
    funding = LedgerAccount.objects.create(
        name="issuer funding", kind=AccountKind.ISSUER, currency="EUR", allow_negative=True
    )
    card = LedgerAccount.objects.create(name="card", kind=AccountKind.PREPAID, currency="EUR")
    return funding, card


def test_a_balanced_journal_moves_the_balances():
    funding, card = accounts()
    services.post(kind="LoadFund", lines=[(funding, D("-50.00")), (card, D("50.00"))])
    card.refresh_from_db()
    funding.refresh_from_db()
    assert (card.balance, funding.balance) == (D("50.00"), D("-50.00"))
    assert sum(e.amount for e in Entry.objects.all()) == 0


@pytest.mark.parametrize(
    "amounts", [(D("-50.00"), D("40.00")), (D("0"), D("0")), (D("-1.00"), D("1.01"))]
)
def test_an_unbalanced_journal_is_refused_and_nothing_is_written(amounts):
    funding, card = accounts()
    with pytest.raises(services.Unbalanced):
        services.post(kind="LoadFund", lines=[(funding, amounts[0]), (card, amounts[1])])
    assert not Journal.objects.exists() and not Entry.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's")
def test_postgresql_itself_refuses_a_journal_that_does_not_balance():
    funding, card = accounts()
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        journal = Journal.objects.create(kind="raw")
        Entry.objects.create(journal=journal, account=card, currency="EUR", amount=D("5.00"))
        # SET CONSTRAINTS ... IMMEDIATE: checked here, not at the test's own commit
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_prepaid_account_never_goes_below_zero():
    funding, card = accounts()
    services.post(kind="LoadFund", lines=[(funding, D("-10.00")), (card, D("10.00"))])
    with pytest.raises(services.InsufficientFunds):
        services.post(kind="Purchase", lines=[(card, D("-10.01")), (funding, D("10.01"))])
    card.refresh_from_db()
    assert card.balance == D("10.00")


def test_holds_make_the_available_balance_and_an_expired_one_stops_at_once():
    funding, card = accounts()
    services.post(kind="LoadFund", lines=[(funding, D("-10.00")), (card, D("10.00"))])
    soon = timezone.now() + timedelta(minutes=5)
    hold = services.hold_place(account=card, amount=D("8.00"), expires_at=soon)
    card.refresh_from_db()
    assert services.available(account=card) == D("2.00")
    with pytest.raises(services.InsufficientFunds):
        services.post(kind="Purchase", lines=[(card, D("-3.00")), (funding, D("3.00"))])
    assert services.available(account=card, now=soon + timedelta(seconds=1)) == D("10.00")
    services.hold_release(hold=hold)
    assert services.available(account=card) == D("10.00")
    with pytest.raises(services.InsufficientFunds):
        services.hold_place(account=card, amount=D("10.01"))


def test_the_ledgers_refusals_are_application_errors_with_result_codes():
    """Like every other refusal of the platform (core.errors): not enough money is the issuer's
    800.100.155; a journal that does not balance, or a hold of nothing, is a defect of the
    caller and answers as any unexpected error (HTTP 500, 999.999.999)."""
    funding, card = accounts()
    with pytest.raises(services.InsufficientFunds) as poor:
        services.post(kind="Purchase", lines=[(card, D("-1.00")), (funding, D("1.00"))])
    with pytest.raises(services.Unbalanced) as unbalanced:
        services.post(kind="LoadFund", lines=[(funding, D("-1.00")), (card, D("2.00"))])
    with pytest.raises(services.InvalidHold) as nothing:
        services.hold_place(account=card, amount=D("0"))
    answers = [error_answer(exc.value) for exc in (poor, unbalanced, nothing)]
    assert [(a.status, a.body["result"]["code"]) for a in answers] == [
        (200, "800.100.155"),
        (500, "999.999.999"),
        (500, "999.999.999"),
    ]
    assert not Journal.objects.exists() and not Hold.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_fifty_parallel_debits_of_a_card_that_can_pay_ten():
    funding, card = accounts()
    services.post(kind="LoadFund", lines=[(funding, D("-10.00")), (card, D("10.00"))])
    outcomes: list[str] = []
    start = threading.Barrier(50)

    def purchase() -> None:
        start.wait()
        try:
            services.post(kind="Purchase", lines=[(card, D("-1.00")), (funding, D("1.00"))])
            outcomes.append("paid")
        except services.InsufficientFunds:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=purchase) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    card.refresh_from_db()
    assert outcomes.count("paid") == 10 and outcomes.count("refused") == 40
    assert card.balance == 0
    assert sum(e.amount for e in Entry.objects.filter(account=card)) == 0


# --- moved from tests/core/test_prepared.py (issue 33): the one posting path ------------------


# The most entries core.prepared once wrote through one compiled statement (until issue 33).
MANY_ROWS = 8


def _accounts(*balances: str):  # type: ignore[no-untyped-def]
    from issuer.ledger.models import LedgerAccount

    return [
        LedgerAccount.objects.create(
            name=f"a{i}", kind="ISSUER", currency="EUR", balance=Decimal(b), allow_negative=True
        )
        for i, b in enumerate(balances)
    ]


def test_an_empty_checked_journal_is_written_and_moves_no_balance():
    from django.db import transaction

    from issuer.ledger import services
    from issuer.ledger.models import Journal, LedgerAccount

    [account] = _accounts("2.000")
    account.held_total = Decimal(0)  # type: ignore[attr-defined]  # as account_lock_with_held
    with transaction.atomic():
        journal = services.post(kind="PURCHASE", lines=[], locked=[account])
    assert Journal.objects.filter(pk=journal.pk, entries__isnull=True).exists()
    assert LedgerAccount.objects.get(pk=account.pk).balance == Decimal("2.000")


def test_a_checked_journal_longer_than_the_prepared_counts_moves_every_balance():
    from django.db import transaction

    from issuer.ledger import services
    from issuer.ledger.models import LedgerAccount

    accounts = _accounts(*["1.000"] * (MANY_ROWS + 2))  # more than one INSERT's counts were
    deltas = [Decimal("0.1")] * (len(accounts) - 1)
    lines = [*zip(accounts, deltas, strict=False), (accounts[-1], -sum(deltas))]
    accounts[0].held_total = Decimal(0)  # type: ignore[attr-defined]
    with transaction.atomic():
        services.post(kind="TRANSFER", lines=lines, locked=[accounts[0]])
    balances = dict(LedgerAccount.objects.values_list("pk", "balance"))
    assert [balances[a.pk] for a in accounts] == [Decimal("1.100")] * (len(accounts) - 1) + [
        Decimal("1.000") - sum(deltas)
    ]
