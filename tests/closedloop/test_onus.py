"""The closed loop (issue 15): the acquirer pays on the platform's own cards through the issuer
ledger. Cards of the issuer's BIN ranges go to the on-us connector, which decides and posts in
the acquirer's finalize transaction; every other card keeps the simulator."""

from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest
from django.db import connection

from issuer import demo
from issuer.cards import money, onus, services
from issuer.cards.models import Card, CardTransaction
from issuer.ledger.models import Entry
from payments.models import Payment
from tests.merchants.test_concurrency import race
from tests.payments.conftest import VISA, Payer, card

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


def on_us(issued: Card, **extra: str) -> dict[str, str]:
    """The card fields a shopper types for one of the issuer's cards."""
    return card(
        services.card_number(card=issued),
        **{
            "card.expiryMonth": f"{issued.expiry_month:02d}",
            "card.expiryYear": str(issued.expiry_year),
            "card.cvv": services.card_cvv2(card=issued),
            **extra,
        },
    )


def pay(payer: Payer, issued: Card, kind: str = "DB", amount: str = "10.00", **extra: Any):  # type: ignore[no-untyped-def]
    return payer.pay(kind, amount=amount, number=None, **{**on_us(issued), **extra})


def balances(issued: Card) -> tuple[str, str]:
    found = money.balances(card=Card.objects.get(pk=issued.pk))
    return found["ledgerBalance"], found["availableBalance"]


def test_pa_captures_debit_refund_and_reversals_move_the_card(payer, cards):
    prepaid = cards.prepaid
    pa = pay(payer, prepaid, "PA", "100.00").json()
    assert pa["result"]["code"] == APPROVED, pa
    assert balances(prepaid) == ("500.00", "400.00")

    first = payer.ref("CP", pa["id"], "30.00").json()
    assert first["result"]["code"] == APPROVED, first
    assert balances(prepaid) == ("470.00", "400.00")
    second = payer.ref("CP", pa["id"], "20.00").json()
    assert second["result"]["code"] == APPROVED, second
    assert balances(prepaid) == ("450.00", "400.00")

    # A captured PA is not reversed (payments refuses it); the rest of its hold lapses with
    # the hold (the PA's validity end, or LEDGER_HOLD_LIFETIME_HOURS).
    from django.utils import timezone

    from issuer.ledger.models import Hold

    Hold.objects.update(expires_at=timezone.now())
    assert balances(prepaid) == ("450.00", "450.00")
    fresh = pay(payer, prepaid, "PA", "60.00").json()
    assert balances(prepaid) == ("450.00", "390.00")
    closed = payer.ref("RV", fresh["id"], amount=None, transactionSource="CARDHOLDER").json()
    assert closed["result"]["code"] == APPROVED, closed
    assert balances(prepaid) == ("450.00", "450.00")  # the reversed PA's hold is released

    sale = pay(payer, prepaid, "DB", "25.00").json()
    assert sale["result"]["code"] == APPROVED
    assert balances(prepaid) == ("425.00", "425.00")
    refund = payer.ref("RF", sale["id"], "10.00").json()
    assert refund["result"]["code"] == APPROVED, refund
    assert balances(prepaid) == ("435.00", "435.00")
    other = pay(payer, prepaid, "DB", "15.00").json()
    assert balances(prepaid) == ("420.00", "420.00")
    undone = payer.ref("RV", other["id"], amount=None, transactionSource="CARDHOLDER").json()
    assert undone["result"]["code"] == APPROVED, undone
    assert balances(prepaid) == ("435.00", "435.00")

    # Both sides recorded: the issuer's history shows the merchant's payments.
    rows = CardTransaction.objects.filter(client_id=onus.ACQUIRER, card=prepaid)
    assert {r.requestor_reference for r in rows} >= {pa["id"], sale["id"], refund["id"]}
    assert {r.merchant_name for r in rows if r.type == "PURCHASE"} == {payer.merchant.name}
    ledger = Card.objects.get(pk=prepaid.pk).account.ledger
    assert sum(e.amount for e in Entry.objects.filter(account=ledger)) == Decimal("435.00")


def test_a_credit_to_the_card_is_recorded_as_a_credit_and_shown_as_an_authorization(payer, cards):
    """The acquirer's CD is money in from settlement that refers to no purchase: the issuer
    records a CREDIT (it was recorded as a REFUND), and AuthorizationHistory lists it."""
    from tests.issuer.test_operations import call

    credit = pay(payer, cards.prepaid, "CD", "20.00").json()
    assert credit["result"]["code"] == APPROVED, credit
    assert balances(cards.prepaid) == ("520.00", "520.00")
    row = CardTransaction.objects.get(client_id=onus.ACQUIRER, requestor_reference=credit["id"])
    assert (row.type, row.status, row.original_id) == ("CREDIT", "APPROVED", None)

    history = call("transaction", "AuthorizationHistory", cardReference=cards.prepaid.reference)
    shown = [r for r in history["records"] if r["transactionId"] == row.reference]
    assert [r["type"] for r in shown] == ["CREDIT"], history


@pytest.mark.parametrize(
    ("setup", "fields", "expected"),
    [
        ("none", {"amount": "500.01"}, "800.100.203"),  # insufficient funds
        ("none", {"card.cvv": "000"}, "800.100.153"),
        ("lost", {}, "800.100.165"),
        ("stolen", {}, "800.100.159"),
        ("suspended", {}, "800.100.168"),
    ],
)
def test_issuer_declines_reach_the_merchant_as_a_network_would_give_them(
    payer, cards, setup, fields, expected
):
    prepaid = cards.prepaid
    if services.card_cvv2(card=prepaid) == "000":
        fields = {**fields, "card.cvv": "001"} if "card.cvv" in fields else fields
    if setup != "none":
        Card.objects.filter(pk=prepaid.pk).update(status=setup.upper())
    amount = fields.pop("amount", "10.00")
    answer = pay(payer, prepaid, "DB", amount, **fields).json()
    assert answer["result"]["code"] == expected, answer
    assert Payment.objects.get(pk=answer["id"]).result_code == expected
    declined = CardTransaction.objects.get(requestor_reference=answer["id"])
    assert declined.status == "DECLINED"
    assert balances(prepaid) == ("500.00", "500.00")


def test_a_debit_card_pays_from_its_linked_account(payer, cards):
    answer = pay(payer, cards.debit, "DB", "40.00").json()
    assert answer["result"]["code"] == APPROVED
    assert balances(cards.debit) == ("2460.00", "2460.00")


def test_other_cards_keep_the_simulator(payer, cards):
    answer = payer.pay("DB", amount="10.00", number=VISA).json()
    assert answer["result"]["code"] == APPROVED
    assert not CardTransaction.objects.filter(requestor_reference=answer["id"]).exists()


def test_the_card_limits_apply_by_channel(payer, cards):
    services.limits_set(
        card=cards.prepaid,
        rows=[{"region": "DOMESTIC", "channel": "ECOMMERCE", "per_transaction": Decimal("20")}],
    )
    assert pay(payer, cards.prepaid, "DB", "20.01").json()["result"]["code"] == "800.100.162"
    assert pay(payer, cards.prepaid, "DB", "20.00").json()["result"]["code"] == APPROVED


def test_a_failure_after_the_issuer_posted_leaves_neither_side_moved(payer, cards, monkeypatch):
    real = onus.authorize

    def posted_then_failed(request):  # type: ignore[no-untyped-def]
        real(request)  # the issuer has posted, in the acquirer's finalize transaction
        raise RuntimeError("injected failure between the issuer's posting and the acquirer")

    monkeypatch.setattr(onus, "authorize", posted_then_failed)
    payer.client.client.raise_request_exception = False
    response = pay(payer, cards.prepaid, "DB", "50.00")

    assert response.status_code == 500
    assert balances(cards.prepaid) == ("500.00", "500.00")
    assert not CardTransaction.objects.filter(client_id=onus.ACQUIRER).exists()
    payment = Payment.objects.get()
    assert payment.state == "IN_FLIGHT" and payment.captured_amount in (None, 0)

    # The janitor resolves it: the issuer never decided it, so it ends as timed out; still
    # nothing moved on the card.
    from datetime import timedelta

    from payments.services.janitor import payment_resolve_in_flight

    monkeypatch.setattr(onus, "authorize", real)
    payment_resolve_in_flight(older_than=timedelta(0))
    payment.refresh_from_db()
    assert payment.state != "IN_FLIGHT" and payment.result_code == "900.100.300"
    assert balances(cards.prepaid) == ("500.00", "500.00")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_debits_on_a_card_that_can_pay_five(merchant, merchant_api):
    cards = demo.demo_cards("oob-client")  # 500.00: five debits of 100.00
    payer = Payer(merchant_api, merchant)
    fields = on_us(cards.prepaid)

    answers = race(
        [lambda: payer.pay("DB", amount="100.00", number=None, **fields).json() for _ in range(20)]
    )

    codes = [a["result"]["code"] for a in answers]
    assert codes.count(APPROVED) == 5 and codes.count("800.100.203") == 15
    assert balances(cards.prepaid) == ("0.00", "0.00")
    approved = Payment.objects.filter(result_code=APPROVED)
    assert approved.count() == 5
    assert sum(p.captured_amount for p in approved) == Decimal("500.00")
    postings = CardTransaction.objects.filter(client_id=onus.ACQUIRER, status="APPROVED")
    assert postings.count() == 5


def test_seed_demo_prints_an_on_us_card_a_newcomer_can_pay_with(payer, settings, tmp_path):
    import re
    from io import StringIO

    from django.core.management import call_command

    settings.DEMO_CREDENTIALS_FILE = tmp_path / "demo-credentials.json"
    out = StringIO()
    call_command("seed_demo", stdout=out)
    [line] = [ln for ln in out.getvalue().splitlines() if "on-us card:" in ln]
    found = re.fullmatch(
        r"\s*on-us card: (\d{16}) (\d{2})/(\d{4}) cvv (\d{3}) "
        r"\(cardReference (crd_demo_prepaid), requestor oob-client\)",
        line,
    )
    assert found, line
    number, month, year, cvv, _reference = found.groups()

    answer = payer.pay(
        "DB",
        amount="12.00",
        number=None,
        **card(number, **{"card.expiryMonth": month, "card.expiryYear": year, "card.cvv": cvv}),
    ).json()

    assert answer["result"]["code"] == APPROVED, answer
    assert CardTransaction.objects.get(requestor_reference=answer["id"]).type == "PURCHASE"


def test_the_days_settlement_agrees_with_the_issuers_postings(payer, cards, merchant):
    from django.db.models import Sum
    from django.utils import timezone

    from reconciliation.models import FeePlan, FeeRule
    from reconciliation.settlement import settlement_run

    fee_plan = FeePlan.objects.create(
        merchant=merchant, scheme_fee=Decimal("0.02"), reserve_percent=Decimal("10"),
        reserve_days=7,
    )  # fmt: skip
    FeeRule.objects.create(plan=fee_plan, mdr_percent=Decimal("2.0"), fixed=Decimal("0.20"))
    pa = pay(payer, cards.prepaid, "PA", "100.00").json()
    payer.ref("CP", pa["id"], "30.00")
    payer.ref("CP", pa["id"], "20.00")
    sale = pay(payer, cards.prepaid, "DB", "25.00").json()
    payer.ref("RF", sale["id"], "10.00")
    other = pay(payer, cards.debit, "DB", "40.00").json()
    payer.ref("RV", other["id"], amount=None, transactionSource="CARDHOLDER")

    run = settlement_run(merchant=merchant, day=timezone.now().date())

    gross = run.sales_amount - run.refunds_amount
    postings = CardTransaction.objects.filter(
        client_id=onus.ACQUIRER, status="APPROVED", journal__isnull=False
    )
    spent = postings.filter(type="PURCHASE", reversed=False).aggregate(s=Sum("amount"))["s"]
    given_back = postings.filter(type="REFUND").aggregate(s=Sum("amount"))["s"]
    assert gross == spent - given_back == Decimal("65.00")  # 30 + 20 + 25 - 10
    fees = run.items.aggregate(s=Sum("fee"))["s"]
    assert run.net_amount == gross - fees - run.reserve_held


def test_a_token_of_an_on_us_card_is_decided_by_the_issuer_and_pays_from_the_card(
    payer, cards, merchant_api, merchant
):
    from tests.tokenization.test_tokenize import tokenize
    from tokenization.models import Token

    fields = {k: v for k, v in on_us(cards.prepaid).items() if k != "card.cvv"}
    made = tokenize(merchant_api, merchant, "CT", **fields).json()
    assert made["result"]["code"] == "000.000.100", made
    token = Token.objects.get(pk=made["tokenUniqueReference"])
    assert token.status == "ACTIVE"

    paid = payer.client.post(
        "/pay/v3/payments",
        {"paymentType": "DB", "merchant.id": merchant.merchant_id,
         "merchantTransactionId": uuid4().hex, "card.token": token.pk, "amount": "30.00",
         "currency": "EUR"},
        mtid=False,
    ).json()  # fmt: skip
    assert paid["result"]["code"] == APPROVED, paid
    assert balances(cards.prepaid) == ("470.00", "470.00")

    # A suspended card's token request needs additional authentication; a lost one is declined.
    services.card_change_status(client_id="oob-client", reference=cards.debit.reference,
                                target="LOST", reason="LOST", actor="test")  # fmt: skip
    refused = tokenize(
        merchant_api,
        merchant,
        "CT",
        **{k: v for k, v in on_us(cards.debit).items() if k != "card.cvv"},
    )
    assert refused.json()["result"]["code"] == "800.100.160"


def test_the_daily_file_agrees_with_the_issuers_journal(payer, cards, merchant):
    from django.utils import timezone

    from reconciliation.recon.generate import produce
    from reconciliation.settlement import settlement_run
    from tests.reconciliation.test_recon_file import file_bytes, sliced

    pa = pay(payer, cards.prepaid, "PA", "100.00").json()
    payer.ref("CP", pa["id"], "30.00")
    sale = pay(payer, cards.prepaid, "DB", "25.00").json()
    payer.ref("RF", sale["id"], "10.00")
    day = timezone.now().date()
    settlement_run(merchant=merchant, day=day)

    lines = file_bytes(produce(merchant.entity, day, production=True)).split(b"\n")[1:-2]
    records = [sliced(line) for line in lines]
    sign = {"DB": 1, "CP": 1, "RF": -1, "PR": -1}
    in_file = sum(sign.get(r["type"].strip(), 0) * int(r["recon_amount"]) for r in records)
    postings = CardTransaction.objects.filter(client_id=onus.ACQUIRER, journal__isnull=False)
    journal = sum(
        (t.amount if t.type == "PURCHASE" else -t.amount) for t in postings if t.type != "REVERSAL"
    )
    assert in_file == int(journal * 100) == 4500  # 30 + 25 - 10, in cents
    # Each record names the issuer's transaction (its network reference).
    issuer_ids = {t.reference[:15] for t in CardTransaction.objects.filter(client_id=onus.ACQUIRER)}
    assert {r["network"].strip() for r in records} <= issuer_ids


def test_a_stored_on_us_card_pays_on_us(payer, cards):
    from tests.payments.test_registrations import pay_stored

    first = pay(payer, cards.prepaid, "DB", "5.00", createRegistration="true").json()
    assert first["result"]["code"] == APPROVED, first
    stored = pay_stored(
        payer,
        first["registrationId"],
        amount="7.00",
        **{
            "standingInstruction.source": "CIT",
            "standingInstruction.type": "UNSCHEDULED",
            "card.cvv": services.card_cvv2(card=cards.prepaid),
        },
    ).json()
    assert stored["result"]["code"] == APPROVED, stored
    assert CardTransaction.objects.get(requestor_reference=stored["id"]).type == "PURCHASE"
    assert balances(cards.prepaid) == ("488.00", "488.00")


def test_the_answer_names_the_issuer_as_the_clearing_institute(payer, cards, settings):
    settings.ISSUER_NAME = "Example Savings Bank"
    debit = pay(payer, cards.prepaid, "DB", "12.00").json()
    assert debit["result"]["code"] == APPROVED, debit
    assert debit["resultDetails"]["clearingInstituteName"] == "Example Savings Bank"
    refund = payer.ref("RF", debit["id"], "2.00").json()
    assert refund["resultDetails"]["clearingInstituteName"] == "Example Savings Bank"
    inquiry = payer.get(debit["id"]).json()
    assert inquiry["resultDetails"]["clearingInstituteName"] == "Example Savings Bank"
    elsewhere = payer.pay("DB", "12.00", number=VISA).json()  # not the issuer's: the network
    assert elsewhere["resultDetails"]["clearingInstituteName"] == "Simulator"
    stored = Payment.objects.get(pk=debit["id"])
    assert stored.clearing_institute == "Example Savings Bank"
