"""Paying with the card and money back: Purchase, the acquirer's credit (CD), Refund, Reversal,
and Verification (can the card pay, moving nothing).

A Purchase and a Verification check the card (status, expiry, security code) and a Purchase its
limits and funds, all under the card's lock. A Refund gives back at most what is left of an
approved, unreversed Purchase, with the Purchase's row locked after the card's so two refunds
cannot both take the last of it; a Reversal undoes a Purchase, Withdraw or LoadFund once.
"""

from decimal import Decimal

from django.db.models import Sum

from core.errors import ApplicationError

from ... import results
from ..lock_objects import transaction_lock
from ..models import Card, CardTransaction, TransactionStatus, TransactionType
from .checks import Decline, card_problem, funds_problem
from .movement import (
    CASH,
    FUNDING,
    SETTLEMENT,
    Done,
    Movement,
    issuer_account,
    move,
    pay_in,
    pay_out,
    post_to,
)
from .requests import NOWHERE, Answer, Request, Where


def purchase(
    *,
    request: Request,
    card: Card,
    amount: Decimal,
    currency: str,
    where: Where = NOWHERE,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
) -> Answer:
    """Purchase: posted at once to the issuer's settlement account; counted by the limits."""
    return pay_out(
        request=request,
        movement=Movement(
            type=TransactionType.PURCHASE, amount=amount, currency=currency, where=where
        ),
        card=card,
        purpose=SETTLEMENT,
        security_code=security_code,
        expiry=expiry,
    )


def credit(*, request: Request, card: Card, amount: Decimal, currency: str) -> Answer:
    """A merchant's credit to the card (the acquirer's CD): money in from settlement, recorded
    as a CREDIT (not a Refund: it refers to no purchase), shown in AuthorizationHistory."""
    return pay_in(
        request=request,
        movement=Movement(type=TransactionType.CREDIT, amount=amount, currency=currency),
        card=card,
        purpose=SETTLEMENT,
    )


def refund(
    *, request: Request, original: CardTransaction, amount: Decimal, currency: str
) -> Answer:
    """Give back (part of) an approved, unreversed Purchase: at most what is left of it."""

    def check(card: Card) -> Decline:
        locked = transaction_lock(row=original)
        refunded = CardTransaction.objects.filter(
            original=locked, type=TransactionType.REFUND, status=TransactionStatus.APPROVED
        ).aggregate(total=Sum("amount"))["total"] or Decimal(0)
        if (
            locked.type != TransactionType.PURCHASE
            or locked.status != TransactionStatus.APPROVED
            or locked.reversed
            or refunded + amount > locked.amount
        ):
            raise ApplicationError(results.CANNOT_REFUND)
        return None

    if currency != original.currency:
        raise ApplicationError(results.CURRENCY_NOT_ACCOUNTS, "the currency must be the purchase's")
    return pay_in(
        request=request,
        movement=Movement(
            type=TransactionType.REFUND, amount=amount, currency=currency, original=original
        ),
        card=original.card,
        purpose=SETTLEMENT,
        check=check,
    )


REVERSIBLE = {TransactionType.PURCHASE, TransactionType.WITHDRAW, TransactionType.LOAD}
REVERSED_FROM: dict[str, str] = {
    TransactionType.PURCHASE: SETTLEMENT,
    TransactionType.WITHDRAW: CASH,
    TransactionType.LOAD: FUNDING,
}


def reversal(*, request: Request, original: CardTransaction) -> Answer:
    """Undo an approved Purchase, Withdraw or LoadFund, once: the opposite journal. A load
    that has been spent cannot be reversed (the prepaid balance never goes below zero)."""
    debit = original.type == TransactionType.LOAD  # a load's reversal takes the money back

    def check(card: Card) -> Decline:
        locked = transaction_lock(row=original)
        if (
            locked.type not in REVERSIBLE
            or locked.status != TransactionStatus.APPROVED
            or locked.reversed
            or locked.followers.filter(
                type=TransactionType.REFUND, status=TransactionStatus.APPROVED
            ).exists()
        ):
            raise ApplicationError(results.CANNOT_REVERSE)
        return funds_problem(card=card, amount=original.amount) if debit else None

    def act(card: Card) -> Done:
        counter = issuer_account(purpose=REVERSED_FROM[original.type], currency=original.currency)
        amount = -original.amount if debit else original.amount
        journal = post_to(
            kind="REVERSAL", card=card, amount=amount, counter=counter, funds_checked=debit
        )
        CardTransaction.objects.filter(pk=original.pk).update(reversed=True)
        return Done(journal=journal)

    movement = Movement(
        type=TransactionType.REVERSAL,
        amount=original.amount,
        currency=original.currency,
        original=original,
    )
    return move(request=request, cards=[original.card], movement=movement, check=check, act=act)


def verification(
    *,
    request: Request,
    card: Card,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
    where: Where = NOWHERE,
) -> Answer:
    """Verification: can the card pay (status, expiry, security code), without moving money."""

    def check(locked: Card) -> Decline:
        return card_problem(card=locked, security_code=security_code, expiry=expiry)

    movement = Movement(
        type=TransactionType.VERIFICATION, amount=Decimal(0), currency="", where=where
    )
    return move(request=request, cards=[card], movement=movement, check=check, act=lambda _: Done())
