"""Standing instructions (card on file): the rules of the request table, the CIT that sets up a
chain, and the MITs that name it (expiry, installments, frequency, resubmission), with the clock
moved through the services' `now` argument."""

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from core.errors import ApplicationError
from payments.models import Payment, StandingInstruction
from payments.registrations.instructions import next_allowed
from payments.services import (
    Caller,
    Details,
    Money,
    StandingInstructionRequest,
    StoredCard,
    payment_authorize,
    payment_debit,
)
from tests.conftest import code, param_errors
from tests.factories import MerchantFactory
from tests.payments.conftest import INVALID_CARD, MASTER, card, mtid
from tests.payments.test_registrations import _other_merchant_payer, pay_stored

pytestmark = pytest.mark.django_db

SI = "standingInstruction."


def si(**fields: str) -> dict[str, str]:
    return {SI + name: value for name, value in fields.items()}


def cit(payer, kind="DB", number="4200000000000000", **fields):
    """An approved CIT INITIAL that stores the card: (its answer, registration id)."""
    response = payer.pay(
        kind,
        number=number,
        createRegistration="true",
        **si(source="CIT", mode="INITIAL", **fields),
    )
    assert code(response) == "000.000.000", response.content
    return response.json(), response.json()["registrationId"]


def mit(merchant, registration_id, initial_id, now, amount="10.00", kind="DB", **rule):
    """An MIT through the service, at `now`."""
    standing = StandingInstructionRequest(
        source="MIT", mode="REPEATED", initial_transaction_id=initial_id, **rule
    )
    use_case = payment_debit if kind == "DB" else payment_authorize
    return use_case(
        caller=Caller(merchant.entity, "MERCHANT", merchant, None),
        reference=mtid(),
        request_hash=mtid(),
        money=Money(Decimal(amount), "EUR"),
        card=StoredCard(registration_id),
        details=Details(standing=standing),
        now=now,
    )


def pay_without_cvv(payer, **fields):  # type: ignore[no-untyped-def]
    """A DB with card fields but no card.cvv (Payer.pay always sends one)."""
    body = card()
    del body["card.cvv"]
    return payer.client.post(
        "/pay/v3/payments",
        {
            "paymentType": "DB",
            "merchant.id": payer.merchant.merchant_id,
            "merchantTransactionId": mtid(),
            "amount": "10.00",
            "currency": "EUR",
            **body,
            **fields,
        },
        mtid=False,
    )


def result(outcome) -> str:  # type: ignore[no-untyped-def]
    return outcome.body["result"]["code"]


# --- the request table's rules (400 naming the field, nothing written) ------------------------


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (si(mode="INITIAL"), SI + "source"),
        (si(source="MIT", mode="INITIAL", initialTransactionId="SIM1"), SI + "mode"),
        (si(source="MIT"), SI + "initialTransactionId"),
        (si(source="CIT", initialTransactionId="SIM1"), SI + "initialTransactionId"),
        (si(source="CIT", industryPractice="NO_SHOW"), SI + "industryPractice"),
        (si(source="CIT", type="RECURRING"), SI + "frequency"),
        (si(source="CIT", type="INSTALLMENT"), SI + "numberOfInstallments"),
        (si(source="CIT", type="RECURRING", frequency="0000"), SI + "frequency"),
        (
            si(source="CIT", type="INSTALLMENT", numberOfInstallments="0"),
            SI + "numberOfInstallments",
        ),
        (
            si(source="CIT", type="UNSCHEDULED") | {"transactionCategory": "RC"},
            "transactionCategory",
        ),
        (
            si(source="CIT", type="RECURRING", frequency="28") | {"transactionCategory": "IN"},
            "transactionCategory",
        ),
        ({"transactionCategory": "RC"}, SI + "type"),
        (si(source="CIT", mode="REPEATED"), "card.cvv"),
        (si(source="CIT", type="WEEKLY"), SI + "type"),
        (si(source="CIT", expiry="2030-02-30"), SI + "expiry"),
        (si(source="CIT", frequency="12345"), SI + "frequency"),
    ],
)
def test_standing_instruction_rules(payer, fields, named):
    response = payer.pay("DB", **fields)
    assert response.status_code == 400 and code(response) == "200.300.404"
    assert named in param_errors(response), param_errors(response)
    assert not Payment.objects.exists()


def test_a_repeated_instruction_carries_no_3ds_data(payer):
    response = payer.pay(
        "DB", **si(source="CIT", mode="REPEATED"), **{"threeDSecure.indicator": "third"}
    )
    assert response.status_code == 400
    assert {"card.cvv", "threeDSecure.indicator"} <= set(param_errors(response))


def test_an_initial_cit_needs_the_cvv_or_3ds(payer):
    response = pay_without_cvv(payer, **si(source="CIT", mode="INITIAL"))
    assert response.status_code == 400
    assert "INITIAL" in param_errors(response)["card.cvv"]


@pytest.mark.parametrize("kind", ["CD"])
def test_standing_instruction_only_on_pa_db_cv(payer, kind):
    response = payer.pay(kind, **si(source="CIT"))
    assert response.status_code == 400
    assert any(name.startswith(SI) for name in param_errors(response))


def test_an_mit_is_a_pa_or_db(payer):
    response = payer.pay("CV", amount=None, **si(source="MIT", initialTransactionId="SIM1"))
    assert response.status_code == 400 and SI + "source" in param_errors(response)


def test_an_initial_instruction_cannot_expire_before_today(payer):
    yesterday = (timezone.now().date() - timedelta(days=1)).isoformat()
    response = payer.pay("DB", **si(source="CIT", expiry=yesterday))
    assert response.status_code == 400 and SI + "expiry" in param_errors(response)
    assert not Payment.objects.exists()


def test_three_ds_recurring_initial_needs_expiry_and_frequency(payer, enrolled):
    response = payer.pay(
        "DB",
        **si(source="CIT", type="INSTALLMENT", numberOfInstallments="3"),
        **{"threeDSecure.indicator": "true"},
    )
    assert response.status_code == 400
    assert {SI + "expiry", SI + "frequency"} <= set(param_errors(response))


# --- the CIT ------------------------------------------------------------------------------------


def test_a_successful_cit_answers_its_initial_transaction_id(payer):
    data, registration_id = cit(payer, type="RECURRING", frequency="28")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    payment = Payment.objects.get(pk=data["id"])
    assert initial_id == payment.network_reference
    assert data["standingInstruction"] | {} == {
        "initialTransactionId": initial_id,
        "source": "CIT",
        "mode": "INITIAL",
        "type": "RECURRING",
        "frequency": "28",
    }
    chain = StandingInstruction.objects.get(initial_transaction_id=initial_id)
    assert chain.initial_payment_id == payment.pk and chain.registration_id == registration_id
    assert (chain.type, chain.frequency_days, chain.authorizations) == ("RECURRING", 28, 1)
    assert payment.standing_instruction_id == chain.pk
    assert payer.get(data["id"]).json()["standingInstruction"]["initialTransactionId"] == initial_id


def test_a_declined_cit_sets_up_nothing(payer):
    response = payer.pay("DB", number=INVALID_CARD, **si(source="CIT"))
    assert code(response) == "800.100.151"
    assert "initialTransactionId" not in response.json().get("standingInstruction", {})
    assert not StandingInstruction.objects.exists()


def test_a_cv_can_set_up_a_chain_without_an_authorization(payer):
    data, registration_id = cit(payer, kind="CV", type="RECURRING", frequency="28")
    chain = StandingInstruction.objects.get()
    assert chain.authorizations == 0 and chain.last_authorized_at is None
    initial_id = data["standingInstruction"]["initialTransactionId"]
    # The first MIT may come at once: nothing was authorized yet.
    assert result(mit(payer.merchant, registration_id, initial_id, timezone.now())) == "000.000.000"


def test_the_registration_lists_its_standing_instructions(payer):
    data, registration_id = cit(payer, type="INSTALLMENT", numberOfInstallments="3")
    response = payer.client.get(f"/pay/v3/registrations/{registration_id}")
    [chain] = response.json()["standingInstructions"]
    assert chain["initialTransactionId"] == data["standingInstruction"]["initialTransactionId"]
    assert (chain["type"], chain["numberOfInstallments"], chain["authorizations"]) == (
        "INSTALLMENT",
        "3",
        "1",
    )


# --- MITs ---------------------------------------------------------------------------------------


def test_a_recurring_chain_of_a_cit_and_three_mits(payer):
    data, registration_id = cit(payer, type="RECURRING", frequency="28")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    start = timezone.now()
    payments = []
    for month in (1, 2, 3):
        outcome = mit(
            payer.merchant, registration_id, initial_id, start + timedelta(days=31 * month)
        )
        assert result(outcome) == "000.000.000"
        payments.append(outcome.payment)
    chain = StandingInstruction.objects.get()
    assert chain.authorizations == 4 and chain.in_flight == 0
    assert {p.standing_instruction_id for p in payments} == {chain.pk}
    assert all(p.registration_id == registration_id for p in payments)
    answer = payments[0].response_body
    assert answer["standingInstruction"] == {
        "source": "MIT",
        "mode": "REPEATED",
        "initialTransactionId": initial_id,
    }


def test_an_mit_sooner_than_the_frequency_is_refused_and_nothing_written(payer):
    data, registration_id = cit(payer, type="RECURRING", frequency="28")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    before = Payment.objects.count()
    with pytest.raises(ApplicationError) as refused:
        mit(payer.merchant, registration_id, initial_id, timezone.now() + timedelta(days=10))
    assert refused.value.result.code == "700.450.130"
    assert Payment.objects.count() == before
    assert StandingInstruction.objects.get().in_flight == 0


def test_an_mit_through_the_api_sooner_than_the_frequency(payer):
    data, registration_id = cit(payer, type="RECURRING", frequency="28")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    response = pay_stored(
        payer,
        registration_id,
        **si(source="MIT", type="RECURRING", initialTransactionId=initial_id),
    )
    assert response.status_code == 200 and code(response) == "700.450.130"
    assert Payment.objects.count() == 1


def test_an_installment_chain_runs_out(payer):
    data, registration_id = cit(payer, type="INSTALLMENT", numberOfInstallments="3", frequency="30")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    start = timezone.now()
    assert (
        result(mit(payer.merchant, registration_id, initial_id, start + timedelta(days=30)))
        == "000.000.000"
    )
    assert (
        result(mit(payer.merchant, registration_id, initial_id, start + timedelta(days=60)))
        == "000.000.000"
    )
    with pytest.raises(ApplicationError) as refused:
        mit(payer.merchant, registration_id, initial_id, start + timedelta(days=90))
    assert refused.value.result.code == "700.450.120"
    assert StandingInstruction.objects.get().authorizations == 3


def test_an_mit_after_the_expiry_is_refused(payer):
    expiry = timezone.now().date() + timedelta(days=40)
    data, registration_id = cit(payer, type="UNSCHEDULED", expiry=expiry.isoformat())
    initial_id = data["standingInstruction"]["initialTransactionId"]
    on_the_day = datetime.combine(
        expiry, datetime.min.time(), tzinfo=timezone.get_current_timezone()
    )
    assert result(mit(payer.merchant, registration_id, initial_id, on_the_day)) == "000.000.000"
    with pytest.raises(ApplicationError) as refused:
        mit(payer.merchant, registration_id, initial_id, on_the_day + timedelta(days=1))
    assert refused.value.result.code == "700.450.110"


def test_an_unknown_initial_transaction_id_is_refused(payer):
    _, registration_id = cit(payer)
    response = pay_stored(
        payer, registration_id, **si(source="MIT", initialTransactionId="SIM000000000000000")
    )
    assert response.status_code == 200 and code(response) == "700.450.100"
    assert Payment.objects.count() == 1


def test_another_merchants_initial_transaction_id_is_refused(payer):
    data, _ = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    other = _other_merchant_payer()
    _, other_registration = cit(other)
    response = pay_stored(
        other, other_registration, **si(source="MIT", initialTransactionId=initial_id)
    )
    assert code(response) == "700.450.100"


def test_an_initial_transaction_id_of_another_card_is_refused(payer):
    data, _ = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    _, master_registration = cit(payer, number=MASTER)
    response = pay_stored(
        payer, master_registration, **si(source="MIT", initialTransactionId=initial_id)
    )
    assert code(response) == "700.450.100"


def test_an_mit_with_card_fields_names_the_same_card(payer):
    """An MIT need not use a registration: the merchant may send the card (no CVV)."""
    data, _ = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    response = pay_without_cvv(payer, **si(source="MIT", initialTransactionId=initial_id))
    assert code(response) == "000.000.000"
    assert StandingInstruction.objects.get().authorizations == 2


def test_a_failed_cits_id_names_no_chain(payer):
    failed = payer.pay("DB", number=INVALID_CARD, **si(source="CIT")).json()
    _, registration_id = cit(payer)
    network_id = Payment.objects.get(pk=failed["id"]).network_reference
    response = pay_stored(
        payer, registration_id, **si(source="MIT", initialTransactionId=network_id)
    )
    assert code(response) == "700.450.100"


def test_an_mit_type_must_match_the_chain(payer):
    data, registration_id = cit(payer, type="RECURRING", frequency="28")
    initial_id = data["standingInstruction"]["initialTransactionId"]
    with pytest.raises(ApplicationError) as refused:
        mit(
            payer.merchant,
            registration_id,
            initial_id,
            timezone.now() + timedelta(days=40),
            type="UNSCHEDULED",
        )
    assert refused.value.result.code == "700.450.150"


def test_a_resubmission_follows_a_declined_mit(payer):
    data, registration_id = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    now = timezone.now()
    with pytest.raises(ApplicationError) as refused:
        mit(payer.merchant, registration_id, initial_id, now, industry_practice="RESUBMISSION")
    assert refused.value.result.code == "700.450.140"
    declined = mit(payer.merchant, registration_id, initial_id, now, amount="51.00")
    assert result(declined) == "800.100.203"
    resubmitted = mit(
        payer.merchant, registration_id, initial_id, now, industry_practice="RESUBMISSION"
    )
    assert result(resubmitted) == "000.000.000"
    assert resubmitted.body["standingInstruction"]["industryPractice"] == "RESUBMISSION"
    chain = StandingInstruction.objects.get()
    assert chain.authorizations == 2 and chain.in_flight == 0


def test_the_network_is_told_the_payment_is_an_mit(payer, monkeypatch):
    from payments.connectors import simulator

    seen = []
    original = simulator.SimulatorConnector.authorize

    def spy(self, request):  # type: ignore[no-untyped-def]
        seen.append(dict(request.stored_credential))
        return original(self, request)

    monkeypatch.setattr(simulator.SimulatorConnector, "authorize", spy)
    data, registration_id = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    mit(payer.merchant, registration_id, initial_id, timezone.now(), industry_practice="NO_SHOW")
    assert seen[0] == {"source": "CIT", "mode": "INITIAL"}
    assert seen[1] == {
        "source": "MIT",
        "mode": "REPEATED",
        "initialTransactionId": initial_id,
        "industryPractice": "NO_SHOW",
    }


def test_an_mit_never_goes_through_3ds_even_when_it_is_mandatory(payer, enrolled):
    data, registration_id = cit(payer)
    enrolled.threeds_mode = "MANDATORY"
    enrolled.save()
    initial_id = data["standingInstruction"]["initialTransactionId"]
    response = pay_stored(
        payer, registration_id, **si(source="MIT", initialTransactionId=initial_id)
    )
    assert code(response) == "000.000.000" and "redirect" not in response.json()


@pytest.mark.parametrize(
    ("previous", "days", "allowed"),
    [
        (date(2026, 1, 31), 28, date(2026, 2, 28)),
        (date(2026, 1, 15), 28, date(2026, 2, 15)),
        (date(2026, 11, 30), 56, date(2027, 1, 30)),
        (date(2026, 1, 1), 168, date(2026, 7, 1)),
        (date(2026, 1, 1), 7, date(2026, 1, 8)),
        (date(2026, 1, 1), 30, date(2026, 1, 31)),
    ],
)
def test_frequencies_of_multiples_of_28_are_months(previous, days, allowed):
    assert next_allowed(previous, days) == allowed


def test_a_3ds_recurring_initial_reaches_the_authentication_and_sets_up_the_chain(payer, enrolled):
    from payments.models import ThreeDSAuthentication
    from payments.threeds.services import threeds_complete
    from tests.payments.threeds_helpers import threeds_fields

    expiry = (timezone.now().date() + timedelta(days=365)).isoformat()
    response = payer.pay(
        "DB",
        number="4000000000001091",
        createRegistration="true",
        **si(source="CIT", type="RECURRING", frequency="28", expiry=expiry),
        **threeds_fields(),
    )
    assert code(response) == "000.200.000", response.content
    assert not StandingInstruction.objects.exists()  # nothing before the authorization
    auth = ThreeDSAuthentication.objects.get()
    assert auth.recurring_frequency == 28 and f"{auth.recurring_expiry}" == expiry
    threeds_complete(auth_id=auth.pk, outcome="Y")
    final = payer.get(response.json()["id"]).json()
    assert final["result"]["code"] == "000.000.000"
    chain = StandingInstruction.objects.get()
    assert final["standingInstruction"]["initialTransactionId"] == chain.initial_transaction_id
    assert final["registrationId"] == chain.registration_id


def test_a_failed_3ds_cit_stores_nothing(payer, enrolled):
    from payments.models import Registration, ThreeDSAuthentication
    from payments.threeds.services import threeds_complete
    from tests.payments.threeds_helpers import threeds_fields

    payer.pay(
        "DB",
        number="4000000000001091",
        createRegistration="true",
        **si(source="CIT"),
        **threeds_fields(),
    )
    threeds_complete(auth_id=ThreeDSAuthentication.objects.get().pk, outcome="N")
    assert not StandingInstruction.objects.exists() and not Registration.objects.exists()


def test_two_merchants_chains_do_not_mix(payer):
    MerchantFactory()
    data, _ = cit(payer)
    assert StandingInstruction.objects.get().merchant_id == payer.merchant.pk


def test_the_payment_inquiry_shows_the_chain(payer):
    data, registration_id = cit(payer)
    initial_id = data["standingInstruction"]["initialTransactionId"]
    response = pay_stored(
        payer, registration_id, **si(source="MIT", initialTransactionId=initial_id)
    )
    mit_id = response.json()["id"]
    assert "payments" not in response.json()["standingInstruction"]  # the inquiry only
    chain = payer.get(mit_id).json()["standingInstruction"]["payments"]
    assert [(p["id"], p["source"], p["resultCode"]) for p in chain] == [
        (data["id"], "CIT", "000.000.000"),
        (mit_id, "MIT", "000.000.000"),
    ]
    assert chain[1]["amount"] == "10.00" and chain[1]["currency"] == "EUR"
    assert payer.get(data["id"]).json()["standingInstruction"]["payments"] == chain
