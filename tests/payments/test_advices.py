"""Over the ISO 8583 link, what the network never answered (or answered too late) ends reversed
on the acquirer's word, with a 0420 reversal advice owed as a database row and sent until the
network acknowledges it (0430); a network that cannot be reached declines at once with
900.100.600, nothing sent and nothing held."""

from datetime import timedelta

import pytest
from django.utils import timezone

from payments import results as payment_results
from payments.connectors import iso_messages as iso
from payments.connectors import simulator
from payments.models import Payment, PaymentState, ReversalAdvice, TransactionSource
from payments.services import advices, payment_resolve_in_flight
from tests.conftest import code

DOWN = "iso8583://127.0.0.1:9"  # discard: nothing listens


def _lost_payment(payer, settings, number=simulator.LOST_CARD):
    settings.PAYMENTS_CONNECTOR_TIMEOUT_SECONDS = 0.3
    answer = payer.pay("DB", number=number)
    assert code(answer) == "000.200.100"
    return answer.json()["id"]


def _reversed_by_the_janitor(payment_id) -> ReversalAdvice:
    outcome = payment_resolve_in_flight(older_than=timedelta(0))
    assert (outcome.resolved, outcome.reversed) == (0, 1)
    reversal = Payment.objects.get(referenced_id=payment_id, payment_type="RV")
    return ReversalAdvice.objects.get(reversal=reversal)


def test_an_unanswered_payment_ends_reversed_with_an_advice_the_network_acknowledges(
    network, settings, payer, network_log_path
):
    payment_id = _lost_payment(payer, settings)
    advice = _reversed_by_the_janitor(payment_id)

    # Reversed at once, on the acquirer's word: the payment answers 900.100.301 with the
    # reversal's id, the reversal is approved and holds the advice, owed, nothing sent yet.
    answer = payer.get(payment_id).json()
    assert answer["result"]["code"] == payment_results.TIMEOUT_REVERSED.code
    assert answer["resultDetails"]["ReversalId"] == advice.reversal_id
    reversal = advice.reversal
    assert reversal.successful and reversal.transaction_source == TransactionSource.TIMEOUT
    assert (advice.state, advice.attempts) == (ReversalAdvice.State.OWED, 0)
    assert network.host.seen[iso.REVERSAL_ADVICE] == 0

    run = advices.send_owed()
    assert (run.acknowledged, run.failed) == (1, 0)
    advice.refresh_from_db()
    assert (advice.state, advice.response_code, advice.attempts) == ("ACKNOWLEDGED", "00", 1)
    assert advice.acknowledged_at is not None
    assert network.host.seen[iso.REVERSAL_ADVICE] == 1
    assert f"follow-up RV {reversal.pk}" in network_log_path.read_text().splitlines()
    assert advices.send_owed().acknowledged == 0  # nothing owed any more


def test_an_advice_is_repeated_until_the_network_acknowledges_it(network, settings, payer):
    payment_id = _lost_payment(payer, settings)
    advice = _reversed_by_the_janitor(payment_id)

    network.host.silent = True  # the network takes nothing: the advice stays owed
    run = advices.send_owed()
    assert (run.acknowledged, run.failed) == (0, 1)
    advice.refresh_from_db()
    assert (advice.state, advice.attempts) == (ReversalAdvice.State.OWED, 1)
    assert "no answer from the network" in advice.last_error
    assert advice.next_attempt_at > timezone.now()  # not again at once
    assert advices.send_owed().failed == 0  # not due yet

    network.host.silent = False
    later = timezone.now() + timedelta(seconds=advices.RETRY_SECONDS[1] + 1)
    assert advices.send_owed(now=later).acknowledged == 1
    advice.refresh_from_db()
    assert (advice.state, advice.attempts, advice.last_error) == ("ACKNOWLEDGED", 2, "")
    # The second time it is a repeat (0421); the network reverses once whatever it is sent.
    assert network.host.seen[iso.REVERSAL_ADVICE] == 1
    assert network.host.seen[iso.REVERSAL_ADVICE_REPEAT] == 1
    assert len(network.host.advised) == 1


def test_an_advice_owed_while_the_link_is_down_waits_and_survives(network, settings, payer):
    payment_id = _lost_payment(payer, settings)
    advice = _reversed_by_the_janitor(payment_id)
    settings.PAYMENTS_NETWORK_URL = DOWN
    assert advices.send_owed().failed == 1
    advice.refresh_from_db()
    assert advice.state == ReversalAdvice.State.OWED and "cannot reach" in advice.last_error

    settings.PAYMENTS_NETWORK_URL = network.url  # back: a later sweep sends it
    later = timezone.now() + timedelta(minutes=1)
    assert advices.send_owed(now=later).acknowledged == 1


def test_two_senders_never_send_one_advice_at_once(network, settings, payer):
    payment_id = _lost_payment(payer, settings)
    _reversed_by_the_janitor(payment_id)
    now = timezone.now()
    assert advices._lease(now, lease=30, besides=set()) is not None
    assert advices._lease(now, lease=30, besides=set()) is None  # leased: not for another


def test_a_late_approval_is_reversed_never_booked(network, settings, payer):
    """The slow card's approval comes after the link stopped waiting: nothing waits for it, the
    payment is not booked, and the janitor reverses it with an advice."""
    with simulator.held() as gate:
        payment_id = _lost_payment(payer, settings, number=simulator.SLOW_CARD)
        gate.release()
    advice = _reversed_by_the_janitor(payment_id)
    payment = Payment.objects.get(pk=payment_id)
    assert not payment.successful and payment.captured_amount == 0
    assert payment.result_code == payment_results.TIMEOUT_REVERSED.code
    assert advices.send_owed().acknowledged == 1
    advice.refresh_from_db()
    assert advice.state == ReversalAdvice.State.ACKNOWLEDGED


@pytest.mark.parametrize("kind", ["RF", "CP", "RV"])
def test_a_follow_up_while_the_network_is_unreachable_is_declined_and_holds_nothing(
    network, settings, payer, kind
):
    original_kind = "PA" if kind == "CP" else "DB"
    original = payer.pay(original_kind, "20.00").json()["id"]
    settings.PAYMENTS_NETWORK_URL = DOWN
    if kind == "RV":
        answer = payer.ref(kind, original, amount=None, transactionSource="CARDHOLDER")
    else:
        answer = payer.ref(kind, original, "5.00")
    assert answer.status_code == 200
    assert code(answer) == payment_results.NETWORK_UNAVAILABLE.code
    stored = Payment.objects.get(pk=answer.json()["id"])
    assert (stored.state, stored.successful) == (PaymentState.DONE, False)
    original_row = Payment.objects.get(pk=original)
    assert original_row.refunding_amount == original_row.capturing_amount == 0
    assert original_row.reversing_amount == 0
    assert original_row.refunded_amount == original_row.reversed_amount == 0
    assert not ReversalAdvice.objects.exists()


def test_a_payment_while_the_network_is_unreachable_is_declined_at_once(settings, payer):
    settings.PAYMENTS_NETWORK_URL = DOWN
    settings.PAYMENTS_NETWORK_ECHO_SECONDS = 0
    answer = payer.pay("PA")
    assert answer.status_code == 200
    body = answer.json()
    assert body["result"]["code"] == "900.100.600"
    assert "cannot be reached" in body["result"]["description"]
    stored = Payment.objects.get(pk=body["id"])
    assert (stored.state, stored.successful, stored.auth_code) == (PaymentState.DONE, False, "")
    replayed = payer.pay("PA", merchantTransactionId=stored.merchant_transaction_id).json()
    assert (replayed["id"], replayed["result"]) == (body["id"], body["result"])  # final


def test_the_link_and_the_advices_are_in_the_metrics(network, settings, payer, client):
    from core import metrics

    assert (
        code(payer.pay("DB")) == "000.000.000"
    )  # a 0200 answered in this process, whatever ran before
    payment_id = _lost_payment(payer, settings)
    _reversed_by_the_janitor(payment_id)
    text = metrics.render().decode()
    assert "cardplatform_reversal_advices_outstanding 1.0" in text
    assert "cardplatform_network_link_up 1.0" in text
    assert 'cardplatform_network_unanswered_total{reason="timeout"}' in text
    assert 'cardplatform_network_answer_seconds_count{message="0200"}' in text


def test_a_merchants_timeout_reversal_of_an_answered_payment_is_asked_not_advised(
    network, settings, payer
):
    """Only what the network never answered is reversed on the acquirer's word: a reversal
    with transactionSource TIMEOUT of an approved payment goes to the network as a 0400."""
    approved = payer.pay("DB").json()["id"]
    answer = payer.ref("RV", approved, amount=None, transactionSource="TIMEOUT")
    assert code(answer) == "000.000.000"
    assert network.host.seen[iso.REVERSAL] == 1 and network.host.seen[iso.REVERSAL_ADVICE] == 0
    assert not ReversalAdvice.objects.exists()


def test_an_advice_being_sent_is_not_taken_by_another_sender(network, settings, payer):
    payment_id = _lost_payment(payer, settings)
    advice = _reversed_by_the_janitor(payment_id)
    leased = advices._lease(timezone.now(), lease=30, besides=set())
    assert leased is not None and leased.pk == advice.pk
    far = timezone.now() + timedelta(days=3650)  # as `send_reversal_advices --all`
    assert advices.send_owed(now=far) == advices.AdviceRun(0, 0)
    assert network.host.seen[iso.REVERSAL_ADVICE] == 0


def test_an_advice_that_cannot_be_sent_holds_up_no_other(network, settings, payer, monkeypatch):
    from payments.connectors.iso_link import Iso8583Connector

    first = _reversed_by_the_janitor(_lost_payment(payer, settings))
    second = _reversed_by_the_janitor(_lost_payment(payer, settings))
    real = Iso8583Connector.advise

    def advise(self, request, *, repeat):  # type: ignore[no-untyped-def]
        if request.reference == first.pk:
            raise ValueError("cannot encode it")
        return real(self, request, repeat=repeat)

    monkeypatch.setattr(Iso8583Connector, "advise", advise)
    run = advices.send_owed()
    assert (run.acknowledged, run.failed) == (1, 1)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.state == "OWED" and first.last_error == "could not be sent: ValueError"
    assert second.state == "ACKNOWLEDGED"


def test_an_answer_that_asks_for_it_again_keeps_the_advice_owed(
    network, settings, payer, monkeypatch
):
    from payments.connectors.iso_link import Iso8583Connector

    advice = _reversed_by_the_janitor(_lost_payment(payer, settings))
    monkeypatch.setattr(Iso8583Connector, "advise", lambda self, request, *, repeat: "91")
    assert advices.send_owed().failed == 1
    advice.refresh_from_db()
    assert advice.state == "OWED" and "answered 91" in advice.last_error
