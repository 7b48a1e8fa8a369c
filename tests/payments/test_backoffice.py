"""Acting on a payment from the admin and the portal (issue 35): the same services and result
codes as the API, once per form, recorded, and four eyes above BACKOFFICE_APPROVAL_AMOUNT."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from payments.backoffice import services
from payments.backoffice.models import PaymentAction
from payments.models import Payment, PaymentState

pytestmark = pytest.mark.django_db
State = PaymentAction.State


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.BACKOFFICE_APPROVAL_AMOUNT = {"EUR": Decimal("100"), "*": Decimal("0")}


def ask(original_id, kind, amount=None, *, actor="staff:alice", channel="ADMIN", key=None, **kw):
    return services.action_request(
        services.ActionRequest(
            original_id=original_id,
            kind=kind,
            amount=None if amount is None else Decimal(amount),
            reason=kw.pop("reason", "customer called"),
            key=key or services.new_key(),
            channel=channel,
            actor=actor,
            merchant=kw.pop("merchant", None),
        )
    )


def paid(payer, kind="DB", amount="150.00", currency="EUR"):
    answer = payer.pay(kind, amount=amount, currency=currency).json()
    assert answer["result"]["code"] == "000.000.000", answer
    return Payment.objects.get(pk=answer["id"])


def test_a_refund_below_the_threshold_is_sent_and_recorded(payer):
    debit = paid(payer)
    outcome = ask(debit.pk, "RF", "40.00")
    assert outcome.payment.payment_type == "RF" and outcome.payment.result_code == "000.000.000"
    action = PaymentAction.objects.get()
    assert (action.state, action.requested_by, action.reason) == (
        State.SENT,
        "staff:alice",
        "customer called",
    )
    assert action.payment == outcome.payment and action.original == debit
    debit.refresh_from_db()
    assert debit.refunded_amount == Decimal("40.00")


def test_the_same_form_sent_twice_makes_one_refund(payer):
    debit = paid(payer)
    key = services.new_key()
    first = ask(debit.pk, "RF", "10.00", key=key)
    second = ask(debit.pk, "RF", "10.00", key=key)
    assert second.replayed and second.payment.pk == first.payment.pk
    assert Payment.objects.filter(payment_type="RF").count() == 1
    with pytest.raises(services.ActionRefused, match="other values"):
        ask(debit.pk, "RF", "11.00", key=key)


@pytest.mark.parametrize(
    ("kind", "amount", "said"),
    [
        ("RF", "0", "an amount above 0"),
        ("RF", None, "an amount above 0"),
        ("CP", "-1.00", "an amount above 0"),
        ("XX", "1.00", "unknown operation"),
    ],
)
def test_a_bad_form_is_refused_in_words_and_nothing_is_written(payer, kind, amount, said):
    debit = paid(payer)
    with pytest.raises(services.ActionRefused, match=said):
        ask(debit.pk, kind, amount)
    assert not PaymentAction.objects.exists()
    assert Payment.objects.count() == 1


def test_no_reason_is_refused(payer):
    debit = paid(payer)
    with pytest.raises(services.ActionRefused, match="reason"):
        ask(debit.pk, "RF", "1.00", reason="  ")
    assert not PaymentAction.objects.exists()


def test_decimals_the_currency_has_not_are_refused(payer):
    debit = paid(payer, amount="1500.00", currency="JPY")
    with pytest.raises(services.ActionRefused, match="JPY has 0 decimals"):
        ask(debit.pk, "RF", "10.50")


def test_the_api_codes_come_back_over_capture_and_over_refund(payer):
    pa = paid(payer, "PA", "50.00")
    assert ask(pa.pk, "CP", "60.00").payment.result_code == "700.400.100"
    debit = paid(payer, amount="50.00")
    assert ask(debit.pk, "RF", "60.00").payment.result_code == "700.400.200"
    assert ask(debit.pk, "RV").payment.result_code == "000.000.000"
    assert ask(debit.pk, "RV").payment.result_code == "700.400.300"


def test_a_capture_then_a_refund_of_the_captured_pa(payer):
    pa = paid(payer, "PA", "80.00")
    assert ask(pa.pk, "CP", "30.00").payment.result_code == "000.000.000"
    assert ask(pa.pk, "RF", "20.00").payment.result_code == "000.000.000"
    pa.refresh_from_db()
    assert (pa.captured_amount, pa.refunded_amount) == (Decimal("30.00"), Decimal("20.00"))


def test_the_portal_acts_only_on_its_own_merchants_payments(payer, other_participator):
    from core.errors import NotFound
    from tests.factories import MerchantFactory

    debit = paid(payer)
    stranger = MerchantFactory(participator=other_participator)
    with pytest.raises(NotFound):
        ask(debit.pk, "RF", "1.00", channel="PORTAL", actor="portal:eve", merchant=stranger)
    assert not PaymentAction.objects.exists()


def test_the_portal_needs_no_second_approval(payer):
    debit = paid(payer)
    outcome = ask(debit.pk, "RF", "120.00", channel="PORTAL", actor="portal:bob",
                  merchant=debit.merchant)  # fmt: skip
    assert outcome.payment.result_code == "000.000.000" and not outcome.held


class TestFourEyes:
    def test_a_refund_above_the_threshold_waits_with_its_amount_held(self, payer):
        debit = paid(payer)
        outcome = ask(debit.pk, "RF", "120.00")
        assert outcome.held
        held = outcome.payment
        assert (held.state, held.result_code) == (PaymentState.PENDING, "000.200.400")
        debit.refresh_from_db()
        assert debit.refunding_amount == Decimal("120.00") and debit.refunded_amount == 0
        # Nothing else can take the held amount meanwhile: only 30.00 is left.
        assert (
            ask(debit.pk, "RF", "31.00", channel="PORTAL", actor="portal:bob").payment.result_code
            == "700.400.200"
        )

    def test_the_one_who_asked_cannot_approve_it(self, payer):
        held = ask(paid(payer).pk, "RF", "120.00")
        with pytest.raises(services.ActionRefused, match="not the one who asked"):
            services.action_approve(action_id=held.action.pk, actor="staff:alice")
        assert PaymentAction.objects.get().state == State.AWAITING_APPROVAL

    def test_a_second_staff_member_approves_and_it_is_sent(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        refund = services.action_approve(action_id=held.action.pk, actor="staff:bob")
        assert refund is not None and refund.result_code == "000.000.000"
        assert refund.state == PaymentState.DONE
        debit.refresh_from_db()
        assert (debit.refunded_amount, debit.refunding_amount) == (Decimal("120.00"), 0)
        action = PaymentAction.objects.get()
        assert (action.state, action.decided_by) == (State.APPROVED, "staff:bob")
        with pytest.raises(services.ActionRefused, match="already approved"):
            services.action_reject(action_id=action.pk, actor="staff:carol")

    def test_rejected_it_is_answered_and_the_hold_released(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RV")  # the whole 150.00
        assert held.held
        reversal = services.action_reject(action_id=held.action.pk, actor="staff:bob", note="no")
        assert reversal is not None and reversal.result_code == "700.400.800"
        debit.refresh_from_db()
        assert (debit.reversing_amount, debit.reversed_amount) == (0, 0)
        assert ask(
            debit.pk, "RF", "150.00", channel="PORTAL", actor="portal:bob"
        ).payment.successful

    def test_unapproved_in_time_it_expires(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        later = timezone.now() + timedelta(hours=25)
        assert services.sweep(now=later) == {"expired": 1, "finished": 1}
        held.payment.refresh_from_db()
        assert held.payment.result_code == "700.400.810"
        debit.refresh_from_db()
        assert debit.refunding_amount == 0
        assert PaymentAction.objects.get().state == State.EXPIRED

    def test_the_sweep_finishes_a_decision_whose_payment_is_still_held(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        services._decide(held.action.pk, "staff:bob", State.APPROVED, note="")  # then died
        assert services.sweep() == {"expired": 0, "finished": 1}
        held.payment.refresh_from_db()
        assert held.payment.result_code == "000.000.000"

    def test_a_capture_is_never_held(self, payer):
        pa = paid(payer, "PA", "500.00")
        assert not ask(pa.pk, "CP", "500.00").held

    def test_a_currency_not_listed_takes_the_default(self, payer):
        debit = paid(payer, amount="10.00", currency="USD")
        assert ask(debit.pk, "RF", "1.00").held  # "*": 0


def test_a_pas_inquiry_says_what_is_captured_and_what_is_left(payer):
    """Issue 35: a PA's inquiry answers capturedAmount and capturableAmount; a DB's neither."""
    pa = paid(payer, "PA", "100.00")
    assert payer.ref("CP", pa.pk, "30.00").json()["result"]["code"] == "000.000.000"
    inquiry = payer.get(pa.pk).json()
    assert (inquiry["capturedAmount"], inquiry["capturableAmount"]) == ("30.00", "70.00")
    other = paid(payer, "PA", "300.00")
    assert ask(other.pk, "RV").held  # the reversal, held for a second approval
    assert payer.get(other.pk).json()["capturableAmount"] == "0.00"  # nothing left meanwhile
    debit = payer.get(paid(payer).pk).json()
    assert "capturedAmount" not in debit and "capturableAmount" not in debit


class TestWhatAReviewFound:
    """Issue 35's review: a held operation is booked when sent, an orphan hold is taken in, a
    merchant that may no longer transact refuses it, the form sent again with an edited reason
    replays, a renamed requester still cannot approve."""

    def test_an_approved_hold_is_booked_when_it_is_sent(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        yesterday = timezone.now() - timedelta(days=1)
        Payment.objects.filter(pk=held.payment.pk).update(created_at=yesterday)
        asked_stan = held.payment.stan
        refund = services.action_approve(action_id=held.action.pk, actor="staff:bob")
        refund.refresh_from_db()
        assert refund.created_at > timezone.now() - timedelta(minutes=1)  # today's settlement
        assert refund.stan != asked_stan  # drawn when sent (its RRN is the original's)

    def test_a_merchant_that_may_no_longer_transact_refuses_the_held_one(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        merchant = debit.merchant
        merchant.status = "BLOCKED"
        merchant.save()
        refund = services.action_approve(action_id=held.action.pk, actor="staff:bob")
        assert refund.result_code != "000.000.000" and not refund.successful
        debit.refresh_from_db()
        assert (debit.refunding_amount, debit.refunded_amount) == (0, 0)

    def test_a_hold_whose_action_a_dying_process_left_unlinked_is_taken_in(self, payer):
        debit = paid(payer)
        held = ask(debit.pk, "RF", "120.00")
        long_ago = timezone.now() - timedelta(hours=25)
        PaymentAction.objects.filter(pk=held.action.pk).update(
            payment=None, state=State.SENT, requested_at=long_ago
        )  # as if the process died between the claim and linking it
        assert services.sweep() == {"expired": 1, "finished": 1}
        debit.refresh_from_db()
        assert debit.refunding_amount == 0  # released
        assert PaymentAction.objects.get().payment == held.payment

    def test_the_form_sent_again_with_its_reason_edited_replays(self, payer):
        debit = paid(payer)
        key = services.new_key()
        first = ask(debit.pk, "RF", "10.00", key=key)
        again = ask(debit.pk, "RF", "10.00", key=key, reason="typo fixed")
        assert again.replayed and again.payment.pk == first.payment.pk

    def test_a_renamed_requester_still_cannot_approve(self, payer):
        from django.contrib.auth.models import User

        alice = User.objects.create_user("alice", is_staff=True)
        debit = paid(payer)
        held = services.action_request(
            services.ActionRequest(
                original_id=debit.pk,
                kind="RF",
                amount=Decimal("120.00"),
                reason="r",
                key=services.new_key(),
                channel="ADMIN",
                actor="staff:alice",
                user_id=alice.pk,
            )
        )
        with pytest.raises(services.ActionRefused, match="not the one who asked"):
            services.action_approve(
                action_id=held.action.pk, actor="staff:alice2", user_id=alice.pk
            )


def test_reverse_is_offered_only_where_the_workflow_allows_it(payer):
    """A reversal of what was refunded, is being refunded, or a captured PA answers 700.400.300:
    its button is not offered (issue 35's new-user try)."""
    debit = paid(payer)
    assert "RV" in [p.kind for p in services.possible_actions(debit)]
    ask(debit.pk, "RF", "10.00")
    debit.refresh_from_db()
    assert "RV" not in [p.kind for p in services.possible_actions(debit)]
    pa = paid(payer, "PA", "50.00")
    ask(pa.pk, "CP", "10.00")
    pa.refresh_from_db()
    assert [p.kind for p in services.possible_actions(pa)] == ["CP", "RF"]


class TestTheHeldCodesOverTheApi:
    """000.200.400, 700.400.800 and 700.400.810 as the merchant's API answers them (HTTP 200,
    result.code) and as the payment row stores them."""

    def inquiry(self, payer, payment):
        answer = payer.get(payment.pk)
        assert answer.status_code == 200
        return answer.json()["result"]["code"]

    def test_held_then_rejected(self, payer):
        held = ask(paid(payer).pk, "RF", "120.00")
        assert self.inquiry(payer, held.payment) == "000.200.400"
        services.action_reject(action_id=held.action.pk, actor="staff:bob")
        assert self.inquiry(payer, held.payment) == "700.400.800"
        held.payment.refresh_from_db()
        assert (held.payment.state, held.payment.successful) == (PaymentState.DONE, False)

    def test_held_then_expired(self, payer):
        held = ask(paid(payer).pk, "RV")
        services.sweep(now=timezone.now() + timedelta(hours=25))
        assert self.inquiry(payer, held.payment) == "700.400.810"
        held.payment.refresh_from_db()
        assert held.payment.result_code == "700.400.810" and not held.payment.successful
