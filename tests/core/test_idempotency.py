"""The one replay path (core.idempotency): the fingerprint, the comparison and the run-or-replay
loop that the management operations, the payments and the issuer's money operations share."""

import pytest
from django.db import IntegrityError

from core import idempotency, results
from core.errors import ApplicationError
from core.models import IdempotentRequest

CARD = {"card.number": "4200000000000000", "card.cvv": "123", "amount": "10.00"}


def test_the_fingerprint_takes_the_card_number_by_its_keyed_fingerprint_and_no_cvv():
    same = idempotency.fingerprint(CARD)
    assert idempotency.fingerprint({**CARD, "card.cvv": "999"}) == same
    assert idempotency.fingerprint({k: v for k, v in CARD.items() if k != "card.cvv"}) == same
    assert idempotency.fingerprint({**CARD, "card.number": "4111111111111111"}) != same
    assert idempotency.fingerprint({**CARD, "amount": "10.01"}) != same


def test_the_fingerprint_of_values_without_card_data_is_their_canonical_json():
    assert idempotency.fingerprint({"b": 1, "a": "x"}) == idempotency.fingerprint(
        {"a": "x", "b": 1}
    )


def _record(reference: str, request_hash: str, body: dict) -> IdempotentRequest:
    return IdempotentRequest.objects.create(
        entity_id="ENTITY01",
        operation="test",
        merchant_transaction_id=reference,
        request_hash=request_hash,
        response_body=body,
    )


def _find(reference: str):
    return lambda: IdempotentRequest.objects.filter(merchant_transaction_id=reference).first()


def _replayed(request_hash: str, refusal: ApplicationError | None = None):
    def replayed(stored: IdempotentRequest) -> idempotency.Outcome:
        return idempotency.replay(
            stored_hash=stored.request_hash,
            stored_body=stored.response_body,
            request_hash=request_hash,
            refusal=refusal,
        )

    return replayed


@pytest.mark.django_db
def test_a_new_reference_runs_once_and_a_known_one_replays_without_running():
    runs = []

    def run() -> idempotency.Outcome:
        runs.append(1)
        _record("R1", "h", {"answer": 1})
        return idempotency.Outcome({"answer": 1})

    first = idempotency.once(find=_find("R1"), run=run, replayed=_replayed("h"))
    again = idempotency.once(find=_find("R1"), run=run, replayed=_replayed("h"))
    assert (first, again) == (
        idempotency.Outcome({"answer": 1}),
        idempotency.Outcome({"answer": 1}, replayed=True),
    )
    assert runs == [1]


@pytest.mark.django_db
def test_other_parameters_are_refused_with_800_110_100_or_the_operations_own_refusal():
    _record("R2", "h", {"answer": 2})
    with pytest.raises(ApplicationError) as refused:
        idempotency.once(find=_find("R2"), run=dict, replayed=_replayed("other"))
    assert refused.value.result == results.DUPLICATE_TRANSACTION
    own = ApplicationError(results.DUPLICATE_ENTRY, "the reference names another request")
    with pytest.raises(ApplicationError) as refused:
        idempotency.once(find=_find("R2"), run=dict, replayed=_replayed("other", own))
    assert refused.value is own


@pytest.mark.django_db
def test_a_twin_that_claimed_first_is_replayed_and_the_losers_writes_roll_back():
    """The twin commits between the look-up and the claim: the claim fails on the unique
    constraint, its transaction rolls back, and the twin's answer is replayed."""
    _record("R3", "h", {"answer": "twin"})
    looks = []

    def find() -> IdempotentRequest | None:
        looks.append(1)
        return None if len(looks) == 1 else _find("R3")()  # the first look came too early

    def run() -> idempotency.Outcome:
        _record("MINE", "h", {})  # a write of the loser's transaction
        _record("R3", "h", {"answer": "mine"})  # its claim: fails on the constraint
        return idempotency.Outcome({"answer": "mine"})

    outcome = idempotency.once(find=find, run=run, replayed=_replayed("h"))
    assert outcome == idempotency.Outcome({"answer": "twin"}, replayed=True)
    assert not IdempotentRequest.objects.filter(merchant_transaction_id="MINE").exists()
    assert len(looks) == 2


@pytest.mark.django_db
def test_look_first_false_claims_without_a_look_up_and_replays_on_the_constraint():
    """The payments' way: the claim's insert is the look-up."""
    _record("R5", "h", {"answer": "stored"})
    looks = []

    def find() -> IdempotentRequest | None:
        looks.append(1)
        return _find("R5")()

    def run() -> idempotency.Outcome:
        _record("R5", "h", {"answer": "mine"})
        return idempotency.Outcome({"answer": "mine"})

    outcome = idempotency.once(find=find, run=run, replayed=_replayed("h"), look_first=False)
    assert outcome == idempotency.Outcome({"answer": "stored"}, replayed=True)
    assert looks == [1]


@pytest.mark.django_db
def test_an_integrity_error_with_no_record_behind_it_surfaces():
    def run() -> None:
        raise IntegrityError("another constraint")

    with pytest.raises(IntegrityError):
        idempotency.once(find=_find("R4"), run=run, replayed=_replayed("h"))
    assert not IdempotentRequest.objects.exists()
