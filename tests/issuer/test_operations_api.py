"""The catalogue's operations through the real API (JWE both ways, access tokens, scopes), and
what only PostgreSQL's row locks can show: parallel purchases against a balance and a limit."""

import threading
from typing import Any

import pytest
from django.db import connection

from issuer import demo
from issuer.cards import money
from issuer.cards.models import Card, CardTransaction
from issuer.catalogue import CATALOGUE
from issuer.ledger.models import Entry
from issuer.operations import perform
from issuer.operations.registry import lookup
from tests.issuer.test_api import Api

GROUP_SCOPES = "APPLICATION CUSTOMER ACCOUNT CARD TRANSACTION TOKEN PARAMETER"


@pytest.fixture(autouse=True)
def _quick_pin_hash(settings):
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000


@pytest.fixture
def cards(db):  # type: ignore[no-untyped-def]
    return demo.demo_cards("oob-client")


@pytest.mark.django_db
def test_an_operation_through_the_jwe_api(issuer_keys, make_requestor, cards):
    api = Api(make_requestor("oob-client", scopes=GROUP_SCOPES), scope="TRANSACTION CARD")

    answer = api.call(
        "/issuer/v1/transaction/Purchase",
        {
            "cardReference": demo.PREPAID_CARD,
            "requestorReference": "p-1",
            "amount": "12.50",
            "currency": "EUR",
            "channel": "ECOMMERCE",
            "merchantName": "Shop",
        },
    )
    assert answer["result"]["code"] == "000.000.000"
    assert answer["amount"] == "12.50" and answer["availableBalance"] == "487.50"
    cvv = api.call("/issuer/v1/card/CVV2Inquiry", {"cardReference": demo.PREPAID_CARD})
    assert len(cvv["cvv2"]) == 3


@pytest.mark.django_db
def test_an_amount_finer_than_its_currency_is_refused_by_name_through_the_api(
    issuer_keys, make_requestor
):
    """The protocol answers every refusal in its JWE envelope (HTTP 200): 200.300.404 naming the
    field, nothing written; a JPY card's Purchase of 250.50 and its limit of 250.50 alike."""
    from tests.issuer.test_admin_limits import card_in

    card = card_in("JPY")
    api = Api(make_requestor("oob-client", scopes=GROUP_SCOPES), scope="TRANSACTION CARD")
    purchase = {
        "cardReference": card.reference,
        "requestorReference": "jpy-1",
        "amount": "250.50",
        "currency": "JPY",
        "channel": "POS",
    }
    answer = api.call("/issuer/v1/transaction/Purchase", purchase)
    assert answer["result"]["code"] == "200.300.404"
    assert [e["name"] for e in answer["result"]["parameterErrors"]] == ["amount"]
    assert not CardTransaction.objects.filter(card=card).exists()
    limits = [{"region": "DOMESTIC", "channel": "POS", "dailyAmount": "250.50"}]
    answer = api.call(
        "/issuer/v1/card/LimitSetting", {"cardReference": card.reference, "limits": limits}
    )
    assert answer["result"]["code"] == "200.300.404"
    assert [e["name"] for e in answer["result"]["parameterErrors"]] == ["limits[0].dailyAmount"]
    assert card.limits.get().daily_amount is None  # as card_in left it


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("group", "name"), sorted(k for k in CATALOGUE if k[0] != "authentication")
)
def test_every_group_needs_its_own_scope(issuer_keys, make_requestor, group, name):
    everything_else = " ".join(s for s in GROUP_SCOPES.split() if s != group.upper())
    api = Api(make_requestor("scoped", scopes=GROUP_SCOPES), scope=everything_else)

    response = api.post(f"/issuer/v1/{group}/{name}", b"not even a JWE")

    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"
    assert f'scope="{group.upper()}"' in response["WWW-Authenticate"]


def call(name: str, **payload: Any) -> dict[str, Any]:
    operation = lookup("transaction", name)
    assert operation is not None
    return perform(operation, client_id="oob-client", payload=payload)


def parallel(count: int, work) -> list[str]:  # type: ignore[no-untyped-def]
    outcomes: list[str] = []
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait()
        try:
            outcomes.append(work(index))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def purchase(index: int, amount: str, channel: str = "POS") -> str:
    answer = call(
        "Purchase",
        cardReference=demo.PREPAID_CARD,
        requestorReference=f"p-{index}",
        amount=amount,
        currency="EUR",
        channel=channel,
    )
    return str(answer["result"]["code"])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_fifty_parallel_purchases_on_a_card_that_can_pay_ten():
    cards = demo.demo_cards("oob-client")  # 500.00 EUR: ten purchases of 50.00

    codes = parallel(50, lambda i: purchase(i, "50.00"))

    assert codes.count("000.000.000") == 10
    assert codes.count("800.100.155") == 40
    balance = money.balances(card=Card.objects.get(pk=cards.prepaid.pk))
    assert balance["ledgerBalance"] == balance["availableBalance"] == "0.00"
    assert CardTransaction.objects.filter(type="PURCHASE").count() == 50
    ledger = cards.prepaid.account.ledger
    assert sum(e.amount for e in Entry.objects.filter(account=ledger)) == 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_limits_hold_under_concurrency():
    demo.demo_cards("oob-client")
    from issuer.cards import services
    from issuer.cards.models import CardLimit

    card = Card.objects.get(client_id="oob-client", reference=demo.PREPAID_CARD)
    services.limits_set(
        card=card,
        rows=[
            {"region": "DOMESTIC", "channel": "POS", "daily_count": 5},
            {"region": "DOMESTIC", "channel": "ECOMMERCE", "daily_amount": "30.00"},
        ],
    )
    assert CardLimit.objects.count() == 2

    pos = parallel(20, lambda i: purchase(i, "1.00"))
    web = parallel(20, lambda i: purchase(100 + i, "10.00", channel="ECOMMERCE"))

    assert pos.count("000.000.000") == 5 and pos.count("800.100.163") == 15
    assert web.count("000.000.000") == 3 and web.count("800.100.162") == 17
    assert money.balances(card=card)["ledgerBalance"] == "465.00"


@pytest.mark.django_db(transaction=True)
def test_the_client_calls_every_operation_of_the_catalogue(live_server, issuer_keys, settings):
    """issuer_demo as `make run` runs it, then every example of docs/issuer.md, in order,
    through the requestor client (as `issuer_client` sends them): JWE both ways."""
    from io import StringIO

    from django.core.management import call_command

    from issuer.management.commands.issuer_demo import CLIENT_ID
    from issuer.operations.examples import EXAMPLES, given_values
    from issuer.protocol.client import RequestorClient
    from tests.factories import MerchantFactory
    from tests.issuer.test_operations import fill, member

    settings.ISSUER_BASE_URL = live_server.url
    MerchantFactory()  # the demo's merchant: the prepaid card gets a token
    call_command("issuer_demo", "--base-url", live_server.url, stdout=StringIO())
    client = RequestorClient.from_key_file(
        settings.DEMO_REQUESTOR_KEY_FILE, base_url=live_server.url, client_id=CLIENT_ID
    )
    kept = given_values(CLIENT_ID)
    for group, name, payload, keep, expected in EXAMPLES:
        scope = lookup(group, name).scope  # type: ignore[union-attr]
        answer = client.call(group, name, fill(payload, kept), scopes=[scope])
        assert answer["result"]["code"] in ((expected,) if expected else SUCCESS), (name, answer)
        for label, path in keep.items():
            kept[label] = member(answer, path)


SUCCESS = ("000.000.000", "000.000.100")
