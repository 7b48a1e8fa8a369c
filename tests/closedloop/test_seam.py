"""The seam between acquirer and issuer (issue 24): the issuer plugs into payments' port and
answers ISO 8583 response codes; payments maps them with its own table and never reads the
issuer's result codes. Unplugged, the issuer's own cards go to the network."""

from decimal import Decimal

import pytest

from issuer import acquiring, demo
from issuer import results as issuer_results
from issuer.cards import onus
from issuer.cards.models import Card, CardTransaction
from payments.connectors import onus_port
from tests.closedloop.test_onus import balances, pay
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db
APPROVED = "000.000.000"


@pytest.fixture(autouse=True)
def _quick_pin_hash(settings):
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000


@pytest.fixture
def cards():  # type: ignore[no-untyped-def]
    return demo.demo_cards("oob-client")


@pytest.fixture
def payer(merchant_api, merchant) -> Payer:
    return Payer(merchant_api, merchant)


def test_the_issuer_is_plugged_into_the_acquirers_port():
    assert isinstance(onus_port.registered(), acquiring.AcquirerPort)


@pytest.mark.parametrize(
    ("setup", "amount", "response", "expected"),
    [
        ("none", "10.00", "00", APPROVED),
        ("none", "500.01", "51", "800.100.203"),
        ("lost", "10.00", "41", "800.100.165"),
        ("stolen", "10.00", "43", "800.100.159"),
        ("suspended", "10.00", "62", "800.100.168"),
    ],
)
def test_the_merchant_sees_the_issuers_iso_response_code(
    payer, cards, setup, amount, response, expected
):
    if setup != "none":
        Card.objects.filter(pk=cards.prepaid.pk).update(status=setup.upper())
    answer = pay(payer, cards.prepaid, "DB", amount).json()
    assert answer["result"]["code"] == expected, answer
    assert answer["resultDetails"]["AcquirerResponse"] == response


def test_an_issuer_reason_without_a_response_code_of_its_own_is_do_not_honour(payer, cards):
    """A credit above the prepaid product's maximum balance (10000.00): the issuer declines it
    with its own 100.550.320, which the merchant used to get; now the acquirer's 05."""
    answer = pay(payer, cards.prepaid, "CD", "9600.00").json()
    assert answer["result"]["code"] == "800.100.152", answer
    assert answer["resultDetails"]["AcquirerResponse"] == "05"
    declined = CardTransaction.objects.get(requestor_reference=answer["id"])
    assert (declined.status, declined.result_code) == ("DECLINED", "100.550.320")
    assert balances(cards.prepaid) == ("500.00", "500.00")


@pytest.mark.parametrize(
    ("issuer_result", "response"),
    [
        (issuer_results.INSUFFICIENT_FUNDS, "51"),
        (issuer_results.CARD_EXPIRED, "54"),
        (issuer_results.SECURITY_CODE_MISMATCH, "N7"),
        (issuer_results.CARD_LOST, "41"),
        (issuer_results.CARD_STOLEN, "43"),
        (issuer_results.CARD_NOT_ACTIVE, "62"),
        (issuer_results.ACCOUNT_NOT_ACTIVE, "78"),
        (issuer_results.LIMIT_EXCEEDED, "61"),
        (issuer_results.COUNT_LIMIT_EXCEEDED, "65"),
        (issuer_results.NOT_APPLICABLE, "57"),
        (issuer_results.NOT_ENABLED, "57"),
        (issuer_results.TRANSACTION_NOT_FOUND, "25"),
        (issuer_results.CANNOT_REFUND, "12"),
        (issuer_results.CANNOT_REVERSE, "12"),
        (issuer_results.HOLD_NOT_OPEN, "12"),
        (issuer_results.DUPLICATE_REFERENCE, "94"),
        (issuer_results.CURRENCY_NOT_ACCOUNTS, "05"),
        (issuer_results.MAX_BALANCE_EXCEEDED, "05"),
    ],
)
def test_the_issuers_decision_carries_a_neutral_decline(issuer_result, response):
    decision = acquiring.decision_for(onus.Decision(issuer_result, "itx_1"))
    assert decision == onus_port.IssuerDecision(response, issuer_result.description, "itx_1")
    assert not decision.approved


def test_a_follow_up_on_an_original_the_issuer_never_saw_is_declined_as_not_found(cards):
    decision = onus_port.registered().follow_up(  # type: ignore[union-attr]
        onus_port.LedgerFollowUp("CP", "cp-1", "no-such-payment", Decimal("1.00"), "EUR")
    )
    assert (decision.response_code, decision.transaction_id) == ("25", "")


def test_unplugged_the_issuers_own_card_goes_to_the_network(payer, cards):
    issuer = onus_port.registered()
    onus_port.issuer_register(None)
    try:
        answer = pay(payer, cards.prepaid, "DB", "10.00").json()
    finally:
        onus_port.issuer_register(issuer)
    assert answer["result"]["code"] == APPROVED, answer
    assert answer["additionalData"]["RequestId"].startswith("SIM")  # the simulator's
    assert not CardTransaction.objects.filter(client_id=onus.ACQUIRER).exists()
    assert balances(cards.prepaid) == ("500.00", "500.00")

    # Plugged in again, the same card pays on-us.
    answer = pay(payer, cards.prepaid, "DB", "10.00").json()
    on_us = CardTransaction.objects.get(client_id=onus.ACQUIRER)
    assert answer["additionalData"]["RequestId"] == on_us.reference
    assert balances(cards.prepaid) == ("490.00", "490.00")
