"""The Transaction group (docs/issuer.md): balances, money in and out, holds, reversals and
the histories, over the ledger (issuer.cards.money). Every operation that moves or sets aside
money carries a requestorReference: the same reference and body answer the stored answer,
another body is refused (800.110.110)."""

from datetime import timedelta
from typing import Any

from django.core.paginator import Paginator
from django.utils import timezone

from core import results
from core.errors import ParameterError
from core.fields import AN, Choice, Date, Ranged
from core.tables import MANDATORY, OPTIONAL, F, Table

from ..cards import money
from ..cards.models import TransactionType
from .common import (
    AMOUNT,
    AMOUNT_RULES,
    CARD_REFERENCE,
    CHANNEL,
    CURRENCY,
    EXPIRY_MONTH,
    EXPIRY_RULES,
    EXPIRY_YEAR,
    MERCHANT,
    ORIGINAL,
    REQUESTOR_REFERENCE,
    SECURITY_CODE,
    card_for,
    expiry_of,
    money_request,
    original_for,
    stamp,
    where,
)
from .fields import CardReference, Seconds
from .registry import Answer, Call, group

transaction = group("transaction")

MOVE = [CARD_REFERENCE, REQUESTOR_REFERENCE, AMOUNT, CURRENCY]
DESCRIPTION = F("description", AN(200), OPTIONAL)


@transaction("BalanceInquiry", Table([CARD_REFERENCE]), "ledger and available balance")
def balance_inquiry(call: Call) -> Answer:
    found = card_for(call)
    return (
        results.REQUEST_SUCCEEDED,
        {"cardReference": found.reference, **money.balances(card=found)},
        None,
    )


@transaction(
    "LoadFund",
    Table([*MOVE, DESCRIPTION], rules=AMOUNT_RULES),
    "put money on a prepaid card",
)
def load_fund(call: Call) -> Answer:
    f = call.fields
    return money.load(
        request=money_request(call), card=card_for(call), amount=f["amount"], currency=f["currency"]
    )


@transaction(
    "Withdraw",
    Table([*MOVE, *MERCHANT], rules=AMOUNT_RULES),
    "cash out (an ATM or a counter)",
)
def withdraw(call: Call) -> Answer:
    f = call.fields
    return money.withdraw(
        request=money_request(call),
        card=card_for(call),
        amount=f["amount"],
        currency=f["currency"],
        where=where(call, channel="POS"),
    )


TRANSFER = Table(
    [
        *MOVE,
        F(
            "targetCardReference",
            CardReference(),
            MANDATORY,
            meaning="another card, on another account",
            secret=True,
        ),
        DESCRIPTION,
    ],
    rules=AMOUNT_RULES,
)


@transaction("TransferFund", TRANSFER, "from one of the requestor's cards to another")
def transfer_fund(call: Call) -> Answer:
    f = call.fields
    source, target = card_for(call), card_for(call, "targetCardReference")
    if source.account_id == target.account_id:
        raise ParameterError(
            [("targetCardReference", "***", "must be a card on another account than cardReference")]
        )
    return money.transfer(
        request=money_request(call),
        source=source,
        target=target,
        amount=f["amount"],
        currency=f["currency"],
    )


PURCHASE = Table(
    [
        *MOVE,
        F("channel", CHANNEL, MANDATORY, meaning="the limits' channel"),
        *MERCHANT,
        SECURITY_CODE,
        EXPIRY_MONTH,
        EXPIRY_YEAR,
    ],
    rules=[*AMOUNT_RULES, *EXPIRY_RULES],
)


@transaction("Purchase", PURCHASE, "pay a merchant (status, expiry, limits and funds checked)")
def purchase(call: Call) -> Answer:
    f = call.fields
    return money.purchase(
        request=money_request(call),
        card=card_for(call),
        amount=f["amount"],
        currency=f["currency"],
        where=where(call),
        security_code=f.get("cvv2") or "",
        expiry=expiry_of(f),
    )


REFUND = Table([ORIGINAL, REQUESTOR_REFERENCE, AMOUNT, CURRENCY], rules=AMOUNT_RULES)


@transaction("Refund", REFUND, "give back (part of) a Purchase")
def refund(call: Call) -> Answer:
    f = call.fields
    return money.refund(
        request=money_request(call),
        original=original_for(call),
        amount=f["amount"],
        currency=f["currency"],
    )


@transaction(
    "Reversal",
    Table([ORIGINAL, REQUESTOR_REFERENCE]),
    "undo a Purchase, Withdraw or LoadFund, once",
)
def reversal(call: Call) -> Answer:
    return money.reversal(request=money_request(call), original=original_for(call))


BLOCK = Table(
    [
        *MOVE,
        F(
            "expiry",
            Seconds(60, 30 * 24 * 3600),
            OPTIONAL,
            meaning="seconds until the hold lapses (default LEDGER_HOLD_LIFETIME_HOURS)",
        ),
        *MERCHANT,
    ],
    rules=AMOUNT_RULES,
)


@transaction("BlockFund", BLOCK, "set money aside (a hold: the available balance drops)")
def block_fund(call: Call) -> Answer:
    f = call.fields
    expires_at = None
    if f.get("expiry"):
        expires_at = timezone.now() + timedelta(seconds=f["expiry"])
    return money.block(
        request=money_request(call),
        card=card_for(call),
        amount=f["amount"],
        currency=f["currency"],
        where=where(call),
        expires_at=expires_at,
    )


@transaction("UnblockFund", Table([ORIGINAL, REQUESTOR_REFERENCE]), "release a BlockFund's hold")
def unblock_fund(call: Call) -> Answer:
    return money.unblock(request=money_request(call), original=original_for(call))


@transaction(
    "ServiceCharge",
    Table([*MOVE, DESCRIPTION], rules=AMOUNT_RULES),
    "charge the issuer's fee",
)
def service_charge(call: Call) -> Answer:
    f = call.fields
    return money.service_charge(
        request=money_request(call), card=card_for(call), amount=f["amount"], currency=f["currency"]
    )


VERIFICATION = Table(
    [CARD_REFERENCE, REQUESTOR_REFERENCE, SECURITY_CODE, EXPIRY_MONTH, EXPIRY_YEAR, *MERCHANT],
    rules=EXPIRY_RULES,
)


@transaction("Verification", VERIFICATION, "can the card pay (no money moves)")
def verification(call: Call) -> Answer:
    f = call.fields
    return money.verification(
        request=money_request(call),
        card=card_for(call),
        security_code=f.get("cvv2") or "",
        expiry=expiry_of(f),
        where=where(call),
    )


ADJUSTMENT = Table(
    [*MOVE, F("description", AN(200), MANDATORY, meaning="why")],
    rules=AMOUNT_RULES,
)


@transaction("DebitAdjustment", ADJUSTMENT, "correct a balance down")
def debit_adjustment(call: Call) -> Answer:
    f = call.fields
    return money.adjust(
        request=money_request(call),
        card=card_for(call),
        amount=f["amount"],
        currency=f["currency"],
        credit=False,
    )


@transaction("CreditAdjustment", ADJUSTMENT, "correct a balance up")
def credit_adjustment(call: Call) -> Answer:
    f = call.fields
    return money.adjust(
        request=money_request(call),
        card=card_for(call),
        amount=f["amount"],
        currency=f["currency"],
        credit=True,
    )


HISTORY = Table(
    [
        CARD_REFERENCE,
        F("fromDate", Date("YYYYMMDD"), OPTIONAL, meaning="first day (the issuer's time zone)"),
        F("toDate", Date("YYYYMMDD"), OPTIONAL, meaning="last day, included"),
        F("type", Choice(tuple(TransactionType.values)), OPTIONAL),
        F("page", Ranged(1, 999999, what="a page", code="UN"), OPTIONAL, meaning="default 1"),
        F(
            "pageSize",
            Ranged(1, 100, digits=3, what="records per page", code="UN"),
            OPTIONAL,
            meaning="default 20",
        ),
    ]
)


def _record(row: Any) -> dict[str, Any]:
    record = {
        "transactionId": row.reference,
        "type": row.type,
        "status": row.status,
        "resultCode": row.result_code,
        "amount": f"{row.amount:.2f}",
        "currency": row.currency,
        "cardReference": row.card.reference if row.card_id else "",
        "createdAt": stamp(row.created_at),
    }
    for name, value in (
        ("requestorReference", row.requestor_reference),
        ("merchantName", row.merchant_name),
        ("mcc", row.mcc),
        ("channel", row.channel),
        ("region", row.region),
        ("description", row.description),
        ("originalTransactionId", row.original.reference if row.original_id else ""),
    ):
        if value:
            record[name] = value
    if row.reversed:
        record["reversed"] = True
    return record


def _page(call: Call, rows: Any) -> Answer:
    f = call.fields
    size = int(f.get("pageSize") or 20)
    number = int(f.get("page") or 1)
    pages = Paginator(rows, size)
    items = pages.page(number).object_list if number <= pages.num_pages else []
    fields = {
        "cardReference": f["cardReference"],
        "page": number,
        "pageSize": size,
        "totalRecords": pages.count,
        "records": [_record(row) for row in items],
    }
    return results.REQUEST_SUCCEEDED, fields, None


def _window(call: Call) -> dict[str, Any]:
    since, until = money.day_bounds(
        first=call.fields.get("fromDate"), last=call.fields.get("toDate")
    )
    return {"since": since, "until": until, "type": call.fields.get("type") or ""}


@transaction("TransactionHistory", HISTORY, "what moved the account's money, newest first")
def transaction_history(call: Call) -> Answer:
    return _page(call, money.history(card=card_for(call), **_window(call)))


@transaction("AuthorizationHistory", HISTORY, "every authorization, approved or declined")
def authorization_history(call: Call) -> Answer:
    return _page(call, money.authorizations(card=card_for(call), **_window(call)))
