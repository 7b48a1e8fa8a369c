"""TransferFund between two of the requestor's cards, and the issuer's own movements on a card:
ServiceCharge (a fee) and Credit/DebitAdjustment (a correction). The issuer's movements check
no card data (status, expiry, code) and count for no limit: only a closed account refuses money
out, and money in respects the product's maximum balance."""

from decimal import Decimal

from ...ledger import services as ledger
from ..models import Card, CardTransaction, TransactionStatus, TransactionType
from .checks import Decline, card_problem, credit_problem, currency_check, funds_problem
from .movement import ADJUSTMENTS, FEES, Done, Movement, move, pay_in, pay_out
from .requests import Answer, Request


def transfer(
    *, request: Request, source: Card, target: Card, amount: Decimal, currency: str
) -> Answer:
    """From one prepaid card of the requestor to another, in one journal. Both cards are
    locked (primary-key order); the TRANSFER is the source's record (the answer), the
    TRANSFER_IN the target's, pointing at it."""

    def check(locked_source: Card, locked_target: Card) -> Decline:
        currency_check(card=locked_source, currency=currency)
        currency_check(card=locked_target, currency=currency)
        return (
            card_problem(card=locked_source)
            or credit_problem(card=locked_target, amount=amount)
            or funds_problem(card=locked_source, amount=amount)
        )

    def act(locked_source: Card, locked_target: Card) -> Done:
        journal = ledger.post(
            kind="TRANSFER",
            lines=[
                (locked_source.account.ledger, -amount),
                (locked_target.account.ledger, amount),
            ],
        )

        def credit_side(row: CardTransaction) -> None:
            CardTransaction.objects.create(
                client_id=request.client_id,
                requestor_reference=None,
                request_hash=request.digest,
                type=TransactionType.TRANSFER_IN,
                status=TransactionStatus.APPROVED,
                result_code=row.result_code,
                card=locked_target,
                account=locked_target.account,
                amount=amount,
                currency=currency,
                journal=journal,
                original=row,
                answer={},
            )

        return Done(journal=journal, then=credit_side)

    movement = Movement(type=TransactionType.TRANSFER, amount=amount, currency=currency)
    return move(request=request, cards=[source, target], movement=movement, check=check, act=act)


def service_charge(*, request: Request, card: Card, amount: Decimal, currency: str) -> Answer:
    """ServiceCharge: the issuer's fee, to its fees account."""
    return pay_out(
        request=request,
        movement=Movement(type=TransactionType.SERVICE_CHARGE, amount=amount, currency=currency),
        card=card,
        purpose=FEES,
        cardholder=False,
    )


def adjust(*, request: Request, card: Card, amount: Decimal, currency: str, credit: bool) -> Answer:
    """CreditAdjustment / DebitAdjustment: the issuer corrects a balance (no card checks)."""
    if credit:
        return pay_in(
            request=request,
            movement=Movement(
                type=TransactionType.CREDIT_ADJUSTMENT, amount=amount, currency=currency
            ),
            card=card,
            purpose=ADJUSTMENTS,
        )
    return pay_out(
        request=request,
        movement=Movement(type=TransactionType.DEBIT_ADJUSTMENT, amount=amount, currency=currency),
        card=card,
        purpose=ADJUSTMENTS,
        cardholder=False,
    )
