"""Statements per request on the hot paths (issue 21), and how many of them the ORM compiles
per request (core.prepared compiles the rest once per process): counts are deterministic, so
they are tested where times are not (bench/compare.py measures the times). Counted after warm-up
requests, without the savepoints a test's own transaction turns the services' transactions into
(in production each is a BEGIN and a COMMIT, which bench/compare.py lists apart).

The counts, and what each statement is:

- a DB payment (6; 5 before issue 34's acquirer STAN, 4 before issue 32's amount limits, 6
  before issue 21): the bearer token's entity with its merchant; the claim's STAN from the
  day's sequence; the claim's INSERT; the maximum per payment in its currency (plain
  SQL, merchants.selectors); the on-us look-up by the card's fingerprint; the answer's UPDATE
  (written only while IN_FLIGHT).
- a token (3, 5 before issue 21): the requestor; the jti's INSERT; the access token's audit
  row.
- a JWE BalanceInquiry (3, 5 before issue 21): the requestor's key; the card with its
  product's letter; the ledger account with its holds' total.
- an issuer Purchase (8): the card with its letter; the card locked; its limits; the ledger
  account locked with its holds' total; the journal; its entries; the balances (one UPDATE);
  the CardTransaction.
- an on-us DB (15; 14 before issue 34, 13 before issue 32, 26 before issue 21): the payment's
  6; the payment locked, since the local issuer is asked under its lock; the issuer's card by
  the number's fingerprint;
  then a Purchase's 7 after its card (the card locked, its limits, the ledger account with its
  holds, the journal, its entries, the balances, the CardTransaction).
"""

import uuid
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from issuer import demo
from issuer.cards import services
from issuer.cards.models import Card
from issuer.operations import lookup, perform
from tests.issuer.conftest import (  # noqa: F401 - fixtures
    _issuer_key_files,
    _rsa_2048,
    issuer_keys,
    make_requestor,
)
from tests.issuer.test_api import Api
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db
CLIENT = "oob-client"
TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def statements(call: Callable[[], Any]) -> list[str]:
    """The SQL one call sends, without the savepoints of the test's own transaction."""
    with CaptureQueriesContext(connection) as captured:
        call()
    return [
        q["sql"] for q in captured.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]


def test_a_db_payment_sends_six_statements(merchant_api, merchant):
    payer = Payer(merchant_api, merchant)
    payer.pay("DB")
    sent = statements(lambda: payer.pay("DB"))
    assert len(sent) == 6, sent
    assert "tracecounter" in sent[1] or "payments_next_stan" in sent[1]  # the day's STAN
    assert "merchants_amountlimit" in sent[3]
    assert sent[0].startswith("SELECT") and "merchants_merchant" in sent[0]  # one join
    assert sent[-1].startswith("UPDATE") and "IN_FLIGHT" in sent[-1]


def purchase_of(card: Card) -> Callable[[], dict[str, Any]]:
    operation = lookup("transaction", "Purchase")

    def buy() -> dict[str, Any]:
        payload = {
            "cardReference": card.reference,
            "requestorReference": uuid.uuid4().hex,
            "amount": "1.00",
            "currency": "EUR",
            "channel": "ECOMMERCE",
        }
        answer = perform(operation, client_id=CLIENT, payload=payload)
        assert answer["result"]["code"] == "000.000.000", answer
        return answer

    return buy


def test_an_issuer_purchase_sends_eight_statements():
    """21 before issue 21."""
    cards = demo.demo_cards(CLIENT)
    buy = purchase_of(cards.prepaid)
    buy()
    buy()  # the issuer's settlement account is known from here on
    sent = statements(buy)
    assert len(sent) <= 8, sent
    if connection.features.has_select_for_update:  # not SQLite, which locks the whole database
        assert sum(1 for sql in sent if "FOR UPDATE" in sql) == 2  # the card, its ledger account


def test_a_purchase_answers_the_balances_it_posted():
    """The answer's balances come from the locked read and the posting, not a new read: they
    are still the ledger's."""
    cards = demo.demo_cards(CLIENT)
    answer = purchase_of(cards.prepaid)()
    ledger = cards.prepaid.account.ledger
    ledger.refresh_from_db()
    assert answer["ledgerBalance"] == f"{ledger.balance:.2f}"
    inquiry = perform(
        lookup("transaction", "BalanceInquiry"),
        client_id=CLIENT,
        payload={"cardReference": cards.prepaid.reference},
    )
    assert {k: answer[k] for k in ("ledgerBalance", "availableBalance", "heldAmount")} == {
        k: inquiry[k] for k in ("ledgerBalance", "availableBalance", "heldAmount")
    }


def test_a_token_sends_three_statements(client, issuer_keys, make_requestor):  # noqa: F811
    requestor = make_requestor(CLIENT, scopes="TRANSACTION")
    requestor.access_token(client, scope="TRANSACTION")
    sent = statements(lambda: requestor.access_token(client, scope="TRANSACTION"))
    assert len(sent) == 3, sent


def test_a_jwe_balance_inquiry_sends_three_statements(issuer_keys, make_requestor):  # noqa: F811
    api = Api(make_requestor(CLIENT, scopes="TRANSACTION"), scope="TRANSACTION")
    demo.demo_cards(CLIENT)
    path = "/issuer/v1/transaction/BalanceInquiry"
    api.call(path, {"cardReference": demo.PREPAID_CARD})
    sent = statements(lambda: api.call(path, {"cardReference": demo.PREPAID_CARD}))
    assert len(sent) == 3, sent


def on_us_debits(merchant_api, merchant) -> Callable[[], None]:  # type: ignore[no-untyped-def]
    """Approved on-us debits on the demo's prepaid card, after two to warm up."""
    cards = demo.demo_cards(CLIENT)
    number = services.card_number(card=cards.prepaid)
    payer = Payer(merchant_api, merchant)

    def pay() -> None:
        answer = payer.pay("DB", number=None, **on_us_card(cards.prepaid, number))
        assert answer.json()["result"]["code"] == "000.000.000", answer.json()

    pay()
    pay()
    return pay


def test_an_on_us_debit_sends_the_payments_and_the_purchases_statements(merchant_api, merchant):
    pay = on_us_debits(merchant_api, merchant)
    sent = statements(pay)
    assert len(sent) <= 15, sent


def on_us_card(card: Card, number: str) -> dict[str, str]:
    return {
        "card.number": number,
        "card.holder": "Jane Doe",
        "card.expiryMonth": f"{card.expiry_month:02d}",
        "card.expiryYear": str(card.expiry_year),
    }


# --- statements the ORM compiles per request ------------------------------------------------------
# The hot look-ups and writes are compiled once per process (core.prepared): after warm-up a
# request asks the ORM to compile only what is left below. Deterministic like the counts above.


def compiled(call: Callable[[], Any]) -> list[str]:
    """The queries the ORM compiled during one call (each asks Query.get_compiler once)."""
    from django.db.models.sql.query import Query

    seen: list[str] = []
    original = Query.get_compiler

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(f"{type(self).__name__} {self.model.__name__ if self.model else ''}")
        return original(self, *args, **kwargs)

    with mock.patch.object(Query, "get_compiler", counting):
        call()
    return seen


def test_a_db_payment_token_and_balance_inquiry_compile_nothing(
    merchant_api,
    merchant,
    client,
    issuer_keys,  # noqa: F811
    make_requestor,  # noqa: F811
):
    payer = Payer(merchant_api, merchant)
    payer.pay("DB")
    assert compiled(lambda: payer.pay("DB")) == []
    requestor = make_requestor(CLIENT, scopes="TRANSACTION")
    requestor.access_token(client, scope="TRANSACTION")
    assert compiled(lambda: requestor.access_token(client, scope="TRANSACTION")) == []
    api = Api(requestor, scope="TRANSACTION")
    demo.demo_cards(CLIENT)
    path = "/issuer/v1/transaction/BalanceInquiry"
    api.call(path, {"cardReference": demo.PREPAID_CARD})
    assert compiled(lambda: api.call(path, {"cardReference": demo.PREPAID_CARD})) == []


def test_a_purchase_compiles_nothing():
    """The journal's entries (one INSERT of as many rows as lines) and the balances' UPDATE (a
    CASE of as many accounts) are prepared once per count of them, as the rest is."""
    buy = purchase_of(demo.demo_cards(CLIENT).prepaid)
    buy()
    buy()
    assert compiled(buy) == []


def test_an_on_us_debit_compiles_nothing(merchant_api, merchant):
    """The payment's lock, the issuer's reads and writes and the payment's answer are
    prepared, the Purchase's journal included."""
    pay = on_us_debits(merchant_api, merchant)
    assert compiled(pay) == []
