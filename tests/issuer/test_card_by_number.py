"""CardInfoInquiry by card number (issue 23): a requestor that has only a card's number (the
on-us card `seed_demo` prints) finds its own card's cardReference; another requestor's number
answers like an unknown one; the number is never echoed, answered or logged. The issuer's "no
card number in any field" rule allows it there and in Replacement's cardNumber only: an
explicit list (registry.CARD_NUMBER_FIELDS)."""

import json
import logging
import re
from io import StringIO

import pytest
from django.core.management import call_command

from issuer import demo, operations
from issuer.cards import services
from issuer.operations import registry
from issuer.operations.registry import CARD_NUMBER_FIELDS
from tests.factories import MerchantFactory
from tests.issuer.test_operations import CLIENT, call, code

pytestmark = pytest.mark.django_db
NOT_FOUND = "700.100.110"
INVALID = "200.300.404"
GROUPS = ("customer", "card")


@pytest.fixture
def cards():  # type: ignore[no-untyped-def]
    MerchantFactory()
    return demo.demo_cards(CLIENT)


def errors(answer):  # type: ignore[no-untyped-def]
    return {e["name"]: e for e in answer["result"].get("parameterErrors", [])}


@pytest.mark.parametrize("group", GROUPS)
def test_the_requestors_own_card_is_found_by_its_number(cards, group):
    number = services.card_number(card=cards.prepaid)

    answer = call(group, "CardInfoInquiry", cardNumber=number)

    assert code(answer) == "000.000.100", answer
    assert answer["cardReference"] == demo.PREPAID_CARD
    assert answer["maskedCardNumber"] == cards.prepaid.masked
    assert number not in json.dumps(answer)
    by_reference = call(group, "CardInfoInquiry", cardReference=demo.PREPAID_CARD)
    envelope = ("id", "timestamp", "ndc")
    assert {k: v for k, v in answer.items() if k not in envelope} == {
        k: v for k, v in by_reference.items() if k not in envelope
    }


@pytest.mark.parametrize("group", GROUPS)
def test_another_requestors_number_answers_like_an_unknown_one(cards, group):
    theirs = services.card_number(card=cards.debit)
    unknown = "4595000000000018"  # Luhn-valid, in the demo BIN, issued to nobody
    assert services.card_by_number(number=unknown) is None

    another = call(group, "CardInfoInquiry", client="another", cardNumber=theirs)
    nobody = call(group, "CardInfoInquiry", cardNumber=unknown)

    assert code(another) == code(nobody) == NOT_FOUND
    assert another["result"] == nobody["result"]
    assert theirs not in json.dumps(another)


@pytest.mark.parametrize("group", GROUPS)
def test_the_number_is_never_echoed_in_an_error(cards, group):
    number = services.card_number(card=cards.prepaid)

    both = call(group, "CardInfoInquiry", cardReference=demo.PREPAID_CARD, cardNumber=number)
    neither = call(group, "CardInfoInquiry")
    letters = call(group, "CardInfoInquiry", cardNumber=number[:-1] + "x")

    assert code(both) == code(neither) == code(letters) == INVALID
    assert set(errors(both)) == {"cardNumber"} and errors(both)["cardNumber"]["value"] == "***"
    assert set(errors(neither)) == {"cardReference"}
    assert errors(letters)["cardNumber"]["value"] == "***"
    for answer in (both, neither, letters):
        assert number[:-1] not in json.dumps(answer)


def test_the_number_is_in_no_log_line_and_nothing_is_written(cards, caplog):
    caplog.set_level(logging.DEBUG)
    number = services.card_number(card=cards.prepaid)
    before = StringIO()
    call_command("dumpdata", "issuer", stdout=before)

    for group in GROUPS:
        call(group, "CardInfoInquiry", cardNumber=number)
        call(group, "CardInfoInquiry", client="another", cardNumber=number)
        call(group, "CardInfoInquiry", cardReference=demo.PREPAID_CARD, cardNumber=number)

    after = StringIO()
    call_command("dumpdata", "issuer", stdout=after)
    assert number not in caplog.text
    assert after.getvalue() == before.getvalue()


# --- the "no card number in any field" rule ---------------------------------------------------


def test_a_card_number_may_be_sent_in_the_listed_fields_only():
    assert CARD_NUMBER_FIELDS == {
        ("card", "Replacement"): "cardNumber",
        ("card", "CardInfoInquiry"): "cardNumber",
        ("customer", "CardInfoInquiry"): "cardNumber",
    }
    pan = "4111111111111111"
    takes = {
        (key, row.name)
        for key, op in operations.IMPLEMENTED.items()
        for row in op.table
        if row.secret and registry._takes_a_card_number(row)
    }
    assert takes == {(key, name) for key, name in CARD_NUMBER_FIELDS.items()}
    for (group, name), field in CARD_NUMBER_FIELDS.items():
        row = operations.lookup(group, name).table.by_name[field]  # type: ignore[union-attr]
        assert row.secret and row.type.parse(pan) == pan


def test_a_card_number_anywhere_else_is_still_refused(cards):
    pan = services.card_number(card=cards.prepaid)
    as_reference = call("card", "CardInfoInquiry", cardReference=pan)
    in_a_name = call(
        "transaction",
        "Purchase",
        cardReference=demo.PREPAID_CARD,
        requestorReference="p-pan",
        amount="1.00",
        currency="EUR",
        merchantName=f"Shop {pan}",
    )

    assert code(as_reference) == code(in_a_name) == INVALID
    assert "never a card number" in errors(as_reference)["cardReference"]["message"]
    assert errors(in_a_name)["merchantName"]["message"] == "must not carry a card number (PAN)"
    assert pan not in json.dumps(as_reference) + json.dumps(in_a_name)


def test_registering_a_secret_row_that_takes_a_card_number_unlisted_fails(monkeypatch):
    """The exception stays explicit: a secret row (skipped by the rule) that would take a card
    number must be listed."""
    from core.fields import N
    from core.tables import F, Table

    key = ("card", "PINVerify")
    monkeypatch.delitem(registry.IMPLEMENTED, key)
    loose = Table([F("pin", N(19, min=4), secret=True)])
    with pytest.raises(AssertionError, match="CARD_NUMBER_FIELDS"):
        registry.register(*key, table=loose, summary="x")(lambda call: None)  # type: ignore[arg-type,return-value]
    assert key not in registry.IMPLEMENTED


def test_seed_demo_prints_the_on_us_cards_reference_and_its_balance_line(settings, tmp_path):
    """A new user looks the on-us card's balance up with BalanceInquiry: the printed line names
    its cardReference and gives the issuer_client command for it."""
    settings.DEMO_CREDENTIALS_FILE = tmp_path / "demo-credentials.json"
    out = StringIO()
    call_command("seed_demo", stdout=out)
    text = out.getvalue()

    [line] = [ln for ln in text.splitlines() if "on-us card:" in ln]
    number, reference, requestor = re.search(
        r"on-us card: (\d{16}) \S+ cvv \d{3} \(cardReference (\S+), requestor (\S+)\)", line
    ).groups()  # type: ignore[union-attr]
    assert services.card_of_number(client_id=requestor, number=number).reference == reference
    [balance] = [ln for ln in text.splitlines() if "its balance:" in ln]
    assert (
        "issuer_client --key-file" in balance
        and f'transaction BalanceInquiry \'{{"cardReference": "{reference}"}}\'' in balance
    )
    answer = call("transaction", "BalanceInquiry", client=requestor, cardReference=reference)
    assert answer["availableBalance"] == "500.00"
