"""BlockFund, its captures and UnblockFund: money set aside on a card's account (an
authorization: the available balance drops, the ledger balance does not), posted in parts, or
released. A hold stops counting when released or expired; it is locked (after the card and its
ledger account) before it is read, so a capture and a release cannot both take it."""

from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from core.errors import ApplicationError

from ... import results
from ...ledger import services as ledger
from ...ledger.lock_objects import hold_lock
from ...ledger.models import Hold
from ..models import Card, CardTransaction, TransactionType
from .checks import Decline, card_problem, currency_check, funds_problem, limit_problem
from .movement import SETTLEMENT, Done, Movement, issuer_account, move, post_to
from .requests import NOWHERE, Answer, Request, Where


def block(
    *,
    request: Request,
    card: Card,
    amount: Decimal,
    currency: str,
    where: Where = NOWHERE,
    expires_at: datetime | None = None,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    counts: bool = False,
) -> Answer:
    """BlockFund: a hold on the card's account (an authorization): the available balance
    drops, the ledger balance does not; it stops counting when released or expired. `counts`:
    an authorization that the card's limits count (the acquirer's PA; its captures do not
    count again)."""

    def check(locked: Card) -> Decline:
        currency_check(card=locked, currency=currency)
        problem = card_problem(card=locked, security_code=security_code, expiry=expiry)
        if problem is None and counts:
            problem = limit_problem(card=locked, where=where, amount=amount)
        return problem or funds_problem(card=locked, amount=amount)

    def act(locked: Card) -> Done:
        hold = ledger.hold_place(
            account=locked.account.ledger,
            amount=amount,
            reason=request.requestor_reference,
            expires_at=expires_at,
        )
        return Done(hold=hold, counts=counts)

    movement = Movement(type=TransactionType.BLOCK, amount=amount, currency=currency, where=where)
    return move(request=request, cards=[card], movement=movement, check=check, act=act)


def _open_hold(original: CardTransaction) -> Hold:
    """The BlockFund's hold, locked; refused when it is not a BlockFund's, or no longer
    counts (released or expired)."""
    hold = original.hold
    if original.type != TransactionType.BLOCK or hold is None:
        raise ApplicationError(results.TRANSACTION_NOT_FOUND, "not a BlockFund transaction")
    hold = hold_lock(hold=hold)
    if hold.released_at is not None or hold.expires_at <= timezone.now():
        raise ApplicationError(results.HOLD_NOT_OPEN)
    return hold


def capture(*, request: Request, original: CardTransaction, amount: Decimal) -> Answer:
    """Post (part of) a BlockFund's hold: the hold shrinks by `amount` (released when nothing
    is left) and the money moves to the issuer's settlement account, in one transaction. Not
    more than is still held; not from a hold that was released or has expired."""

    def act(card: Card) -> Done:
        hold = _open_hold(original)
        if amount > hold.amount:
            raise ApplicationError(results.HOLD_NOT_OPEN, f"only {hold.amount:.2f} is held")
        ledger.hold_reduce(hold=hold, amount=amount)
        counter = issuer_account(purpose=SETTLEMENT, currency=original.currency)
        journal = post_to(kind=TransactionType.PURCHASE, card=card, amount=-amount, counter=counter)
        return Done(journal=journal)

    movement = Movement(
        type=TransactionType.PURCHASE,
        amount=amount,
        currency=original.currency,
        where=Where(
            channel=original.channel,
            country="",
            merchant_name=original.merchant_name,
            mcc=original.mcc,
        ),
        original=original,
    )
    return move(request=request, cards=[original.card], movement=movement, act=act)


def unblock(*, request: Request, original: CardTransaction) -> Answer:
    """UnblockFund: release a BlockFund's hold (all that is left of it), once, while it still
    counts."""

    def act(card: Card) -> Done:
        hold = _open_hold(original)
        ledger.hold_release(hold=hold)
        return Done(amount=hold.amount)

    movement = Movement(
        type=TransactionType.UNBLOCK,
        amount=original.amount,
        currency=original.currency,
        original=original,
    )
    return move(request=request, cards=[original.card], movement=movement, act=act)
