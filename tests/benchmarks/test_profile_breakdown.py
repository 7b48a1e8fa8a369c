"""bench/payments.py's profile mode: where a payment's time goes, stage by stage (issue 21).

The stages are found in a cProfile's statistics by file and function name; their CPU is each
stage's share of the whole request, applied to the CPU a payment takes without the profiler."""

from types import SimpleNamespace
from typing import Any

import pytest

from bench import _load, payments


def _stats(cumulative: dict[tuple[str, int, str], float]) -> Any:
    """A pstats.Stats look-alike: (file, line, name) -> (cc, nc, tottime, cumtime, callers)."""
    return SimpleNamespace(stats={key: (1, 1, 0.0, ct, {}) for key, ct in cumulative.items()})


PROFILE = _stats(
    {
        ("/venv/django/test/client.py", 1066, "request"): 10.0,
        ("/work/core/tables/table.py", 125, "validate"): 2.0,
        ("/work/core/tables/table.py", 300, "validate"): 0.5,  # same name, same file: the larger
        ("/work/issuer/cards/onus.py", 93, "authorize"): 4.0,
        ("/venv/psycopg/connection.py", 1, "commit"): 1.0,
        ("/work/elsewhere.py", 1, "validate"): 9.0,  # another file: not the table's
    }
)


def test_each_stage_is_found_by_its_file_and_name_per_payment():
    found = payments.breakdown(PROFILE, count=1000)
    assert found[payments.WHOLE_REQUEST] == pytest.approx(10.0)
    assert found["      PAYMENT.validate (core.tables)"] == pytest.approx(2.0)
    assert found["          on-us: the issuer's Purchase"] == pytest.approx(4.0)
    assert found["psycopg Connection.commit (WAL flush)"] == pytest.approx(1.0)
    assert "        risk.assess" not in found  # a stage that never ran is left out
    assert list(found)[0] == payments.WHOLE_REQUEST  # in BREAKDOWN's order


def test_the_cpu_of_a_stage_is_its_share_of_the_unprofiled_cpu():
    split = payments.cpu_split(PROFILE, count=1000, cpu_ms=5.0)
    assert split[payments.WHOLE_REQUEST] == pytest.approx(5.0)
    assert split["      PAYMENT.validate (core.tables)"] == pytest.approx(1.0)
    assert split["          on-us: the issuer's Purchase"] == pytest.approx(2.0)


def test_no_whole_request_no_split():
    assert payments.cpu_split(_stats({}), count=10, cpu_ms=5.0) == {}


# --- a bench database made with other keys ------------------------------------------------------


def test_a_setup_error_is_one_line_and_status_2(capsys):
    def prepare() -> None:
        raise _load.SetupError("the database was made with other keys: run again with --fresh")

    status = _load.run_main(prepare=prepare, profile=None, load=lambda seed: {"errors": 0})
    assert status == 2
    assert capsys.readouterr().err == (
        "error: the database was made with other keys: run again with --fresh\n"
    )


@pytest.mark.django_db
def test_on_us_cards_whose_numbers_this_run_cannot_read_ask_for_fresh(monkeypatch):
    from core import cards as core_cards
    from issuer.cards import services

    monkeypatch.setattr(payments, "ONUS_CARDS", 1)
    (fields,) = payments.onus_cards()
    assert fields["card.number"].startswith(payments.ONUS_BIN)
    assert payments.onus_cards() == [fields]  # made once, read back

    def other_keys(*, card: Any) -> str:
        raise KeyError("bench20260101000000")  # the vault has no such key id

    with monkeypatch.context() as patched:
        patched.setattr(services, "card_number", other_keys)
        with pytest.raises(_load.SetupError, match="--fresh"):
            payments.onus_cards()

    # Read, but fingerprinted under another key: its payments would not go on-us.
    monkeypatch.setattr(core_cards, "fingerprint", lambda number: "another key's fingerprint")
    with pytest.raises(_load.SetupError, match="--fresh"):
        payments.onus_cards()
