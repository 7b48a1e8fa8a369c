"""The one shape of every money operation, and the issuer's side of every journal.

`move` runs an operation once per requestorReference (requests.once), in one transaction:

1. lock the card (or the cards of a transfer, in primary-key order; lock_objects.py);
2. `check` the locked card(s): a refusal is raised (nothing is stored: a wrong currency, an
   original that cannot be refunded), a decline is returned and recorded as the outcome;
3. otherwise `act`: post the journal, place, reduce or release the hold, which returns what it
   made (`Done`), and record the approval.

The record is the CardTransaction with the answer it gave (replayed for the same reference):
AuthorizationHistory and TransactionHistory read it, the limits count it. `pay_out` and `pay_in`
are the common movements of one card against one of the issuer's own accounts: one per purpose
and currency (`issuer_account`).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import results as core_results

from ... import results
from ...ledger import services as ledger
from ...ledger.models import AccountKind, Hold, Journal, LedgerAccount
from ..lock_objects import TRANSACTION_RECORD, cards_lock
from ..models import AccountStatus, Card, CardTransaction, TransactionStatus, TransactionType
from ..selectors import balances, balances_read
from .checks import (
    Decline,
    card_problem,
    credit_problem,
    currency_check,
    funds_problem,
    limit_problem,
)
from .requests import NOWHERE, Answer, Request, Where, once

FUNDING, SETTLEMENT, CASH, FEES, ADJUSTMENTS = "funding", "settlement", "cash", "fees", "adjust"


# The issuer's own accounts by code, once committed: they are never changed but by a posting
# (`balance = balance + delta` by primary key, which needs nothing of the row) nor deleted
# (their entries protect them), so a process reads each one once.
_issuer_accounts: dict[str, LedgerAccount] = {}


def issuer_account(*, purpose: str, currency: str) -> LedgerAccount:
    """The issuer's own account for a purpose and currency (made at first use). Kept in the
    process once known to be committed: read from the database, or made here and then
    committed (a rolled-back creation is never kept)."""
    code = f"issuer:{purpose}:{currency}"
    known = _issuer_accounts.get(code)
    if known is not None:
        return known
    account, created = LedgerAccount.objects.get_or_create(
        code=code,
        defaults={
            "name": f"issuer {purpose} {currency}",
            "kind": AccountKind.ISSUER,
            "currency": currency,
            "allow_negative": True,
        },
    )
    if created:
        transaction.on_commit(lambda: _issuer_accounts.setdefault(code, account))
    else:
        _issuer_accounts[code] = account
    return account


def issuer_accounts_forget() -> None:
    """Forget the issuer accounts this process knows (a test whose database was rolled back)."""
    _issuer_accounts.clear()


@dataclass(frozen=True)
class Movement:
    """What an operation records, approved or declined: its type, amount and currency (""
    for the locked card's account's: a Verification), where the card paid, and the
    transaction it refers to."""

    type: str
    amount: Decimal
    currency: str
    where: Where = NOWHERE
    original: CardTransaction | None = None


@dataclass(frozen=True)
class Done:
    """What an approved movement made: its journal or hold, whether the card's limits count it,
    the amount when only the lock could tell it (what was still held), and `then`, run with the
    recorded transaction (a transfer's credit side)."""

    journal: Journal | None = None
    hold: Hold | None = None
    counts: bool = False
    amount: Decimal | None = None
    then: Callable[[CardTransaction], Any] | None = field(default=None, compare=False)
    balances: dict[str, str] | None = None  # the answer's, when the movement knows them


def _nothing_to_check(*cards: Card) -> Decline:
    return None


def move(
    *,
    request: Request,
    cards: Sequence[Card],
    movement: Movement,
    act: Callable[..., Done],
    check: Callable[..., Decline] = _nothing_to_check,
) -> Answer:
    """Lock `cards`, `check` them, record a decline or `act` and record the approval (on the
    first card), once per requestorReference. `check` and `act` get the locked cards."""

    def run() -> Answer:
        locked = cards_lock(cards=cards)
        problem = check(*locked)
        if problem is not None:
            # Nothing was posted: a balance read under the lock (the funds check's) is current.
            read = locked[0].account.ledger
            known = balances_read(account=read) if hasattr(read, "held_total") else None
            row = record(
                request=request,
                movement=movement,
                card=locked[0],
                result=problem,
                done=Done(balances=known),
            )
            return problem, row.answer["fields"], row.reference
        done = act(*locked)
        approved = core_results.TRANSACTION_SUCCEEDED
        row = record(request=request, movement=movement, card=locked[0], result=approved, done=done)
        if done.then is not None:
            done.then(row)
        return approved, row.answer["fields"], row.reference

    return once(request=request, run=run)


def answer_fields(*, row: CardTransaction, known: dict[str, str] | None = None) -> dict[str, Any]:
    """The answer of a money operation: the transaction and the card's balances after it."""
    fields: dict[str, Any] = {
        "transactionId": row.reference,
        "requestorReference": row.requestor_reference,
        "type": row.type,
        "status": row.status,
        "amount": f"{row.amount:.2f}",
        "currency": row.currency,
    }
    fields["cardReference"] = row.card.reference
    if row.original is not None:
        fields["originalTransactionId"] = row.original.reference
    if row.hold is not None:
        fields["expiresAt"] = timezone.localtime(row.hold.expires_at).isoformat()
    fields.update(known if known is not None else balances(card=row.card))
    return fields


def record(
    *,
    request: Request,
    movement: Movement,
    card: Card,
    result: core_results.Result,
    done: Done = Done(),
) -> CardTransaction:
    """Write the operation's CardTransaction with its answer (stored for the replay)."""
    approved = result.is_success
    where = movement.where
    row = CardTransaction(
        client_id=request.client_id,
        requestor_reference=request.requestor_reference,
        request_hash=request.digest,
        type=movement.type,
        status=TransactionStatus.APPROVED if approved else TransactionStatus.DECLINED,
        result_code=result.code,
        card=card,
        account=card.account,
        amount=movement.amount if done.amount is None else done.amount,
        currency=movement.currency or card.account.currency,
        channel=where.channel,
        region=where.region if where.channel else "",
        merchant_name=where.merchant_name,
        mcc=where.mcc,
        description=request.description,
        journal=done.journal,
        hold=done.hold,
        original=movement.original,
        counts_for_limits=done.counts and approved,
    )
    fields = answer_fields(row=row, known=done.balances)
    row.answer = {"code": result.code, "fields": fields, "id": row.reference}
    return TRANSACTION_RECORD.insert(row)


def post_to(
    *,
    kind: str,
    card: Card,
    amount: Decimal,
    counter: LedgerAccount,
    description: str = "",
    funds_checked: bool = False,
) -> Journal:
    """Debit (amount < 0) or credit (amount > 0) the card's account against `counter`.
    `funds_checked`: `funds_problem` read the card's account under its lock in this
    transaction, and it is posted to as it was read."""
    account = card.account.ledger
    return ledger.post(
        kind=kind,
        lines=[(account, amount), (counter, -amount)],
        description=description,
        locked=[account] if funds_checked else [],
    )


def pay_out(
    *,
    request: Request,
    movement: Movement,
    card: Card,
    purpose: str,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    cardholder: bool = True,
) -> Answer:
    """Money out of a card's account to the issuer's `purpose` account. `cardholder`: the
    cardholder pays (the card's status, expiry and code are checked); else the issuer takes it
    (a fee, an adjustment: only a closed account refuses). A Purchase or Withdraw counts for
    the card's limits."""
    amount, currency = movement.amount, movement.currency
    counts = movement.type in (TransactionType.PURCHASE, TransactionType.WITHDRAW)

    def check(card: Card) -> Decline:
        currency_check(card=card, currency=currency)
        if cardholder:
            problem = card_problem(card=card, security_code=security_code, expiry=expiry)
        elif card.account.status == AccountStatus.CLOSED:
            problem = results.ACCOUNT_NOT_ACTIVE
        else:
            problem = None
        if problem is None and counts:
            problem = limit_problem(card=card, where=movement.where, amount=amount)
        return problem or funds_problem(card=card, amount=amount)

    def act(card: Card) -> Done:
        counter = issuer_account(purpose=purpose, currency=currency)
        kind = movement.type
        journal = post_to(
            kind=kind,
            card=card,
            amount=-amount,
            counter=counter,
            description=kind,
            funds_checked=True,  # `check` ends with funds_problem
        )
        # The funds check read the account under its lock; the posting kept it current.
        return Done(
            journal=journal, counts=counts, balances=balances_read(account=card.account.ledger)
        )

    return move(request=request, cards=[card], movement=movement, check=check, act=act)


def pay_in(
    *,
    request: Request,
    movement: Movement,
    card: Card,
    purpose: str,
    check: Callable[[Card], Decline] = _nothing_to_check,
) -> Answer:
    """Money into a card's account from the issuer's `purpose` account; `check` refuses what
    the operation itself does not allow (a refund of more than is left)."""
    amount, currency = movement.amount, movement.currency

    def checks(card: Card) -> Decline:
        currency_check(card=card, currency=currency)
        return check(card) or credit_problem(card=card, amount=amount)

    def act(card: Card) -> Done:
        counter = issuer_account(purpose=purpose, currency=currency)
        kind = movement.type
        journal = post_to(kind=kind, card=card, amount=amount, counter=counter, description=kind)
        return Done(journal=journal)

    return move(request=request, cards=[card], movement=movement, check=checks, act=act)
