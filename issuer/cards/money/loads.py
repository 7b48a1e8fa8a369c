"""LoadFund and Withdraw: money into a prepaid card's account from the issuer's funding
account, and cash out of it (counted by the card's limits, like a purchase)."""

from decimal import Decimal

from ..models import Card, TransactionType
from .movement import CASH, FUNDING, Movement, pay_in, pay_out
from .requests import NOWHERE, Answer, Request, Where


def load(*, request: Request, card: Card, amount: Decimal, currency: str) -> Answer:
    """LoadFund: up to the product's maximum balance, on a card that has not ended and an
    ACTIVE account."""
    return pay_in(
        request=request,
        movement=Movement(type=TransactionType.LOAD, amount=amount, currency=currency),
        card=card,
        purpose=FUNDING,
    )


def withdraw(
    *,
    request: Request,
    card: Card,
    amount: Decimal,
    currency: str,
    where: Where = NOWHERE,
    security_code: str = "",
    expiry: tuple[int, int] | None = None,
) -> Answer:
    """Withdraw (cash): an ACTIVE card in date, within its limits and its available balance."""
    return pay_out(
        request=request,
        movement=Movement(
            type=TransactionType.WITHDRAW, amount=amount, currency=currency, where=where
        ),
        card=card,
        purpose=CASH,
        security_code=security_code,
        expiry=expiry,
    )
