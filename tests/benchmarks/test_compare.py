"""bench/compare.py's pieces, without a load run: the reference project's views (checked
in-process by bench/reference/selfcheck.py, in a process of its own since the reference is
another Django project), the command line, the ratio math and the request material."""

import json
import os
import subprocess
import sys

import jwt
import pytest
from jwcrypto import jwk

from bench import compare
from bench._server import ROOT


def test_the_reference_views_answer_correctly_and_count_their_statements():
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.reference.selfcheck", "--sqlite"],
        cwd=ROOT,
        env={**env, "LOG_LEVEL": "ERROR"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["ok"] is True
    assert set(outcome["checks"]) == {
        "payment answers 000.000.000 and stores the row",
        "a bad amount is a 400 naming amount, nothing written",
        "a used merchantTransactionId is a 400",
        "token answers a signed access token and stores the jti",
        "a used jti is refused",
        "an assertion signed by another key is refused",
        "jwe answers a JWE to the client's key with 000.000.100",
        "jwe without a bearer token is a 401",
        "jwe with a body that is no JWE is a 400",
    }
    assert all(outcome["checks"].values())
    # One INSERT per payment and per token, nothing for a JWE round trip.
    assert outcome["statements"] == {"payment": 1, "token": 1, "jwe": 0}


def test_compare_help_runs():
    done = subprocess.run(
        [sys.executable, "bench/compare.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for word in (
        "--pairs",
        "--rounds",
        "--duration",
        "--workers",
        "--concurrency",
        "--reference-database-url",
        "payment, token, jwe, purchase, onus",
    ):
        assert word in done.stdout


def test_the_command_line():
    args = compare.parse_args(["--pairs", "payment,onus", "--rounds", "3", "--duration", "15"])
    assert args.pairs == ["payment", "onus"]
    assert (args.rounds, args.duration, args.workers, args.concurrency) == (3, 15.0, 2, 4)
    assert args.reference_database_url.endswith("/reference_bh")
    assert args.database_url.endswith("_bh")
    assert args.port == 8210
    for bad in (["--pairs", "payment,nothing"], ["--pairs", "token,token"], ["--rounds", "0"]):
        with pytest.raises(SystemExit):
            compare.parse_args(bad)


def _round(throughput, p50=5.0, p99=9.0, server=2.0, postgres=0.5, errors=0):
    return {
        "requests": int(throughput * 10),
        "errors": errors,
        "throughput_per_s": throughput,
        "p50_ms": p50,
        "p99_ms": p99,
        "cpu_ms_per_request": {"server": server, "postgres": postgres, "client": 0.3},
    }


def test_the_ratio_math():
    assert compare.ratio(300.0, 750.0) == 0.4
    assert compare.ratio(1.0, 3.0) == 0.333
    assert compare.ratio(5.0, 0.0) is None
    assert compare.median([0.3, None, 0.5, 0.4]) == 0.4
    assert compare.median([None]) is None

    a = [
        _round(300, p99=20, server=4.0),
        _round(280, p99=30, server=5.0),
        _round(330, p99=25, server=4.5),
    ]
    b = [_round(750, p99=9), _round(800, p99=10, errors=2), _round(600, p99=11)]
    summary = compare.pair_summary(a, b)
    # Round by round: each A against the B measured right after it.
    assert summary["ratios"] == [0.4, 0.35, 0.55]
    assert summary["ratio_median"] == 0.4
    assert (summary["ratio_min"], summary["ratio_max"]) == (0.35, 0.55)
    assert summary["a"]["throughput_per_s"] == 300
    assert summary["a"]["p99_ms"] == 25
    assert summary["a"]["server_cpu_ms"] == 4.5
    assert summary["b"]["errors"] == 2 and summary["b"]["requests"] == 21500

    alone = compare.pair_summary(a, [])
    assert alone["b"] is None and alone["ratio_median"] is None


def test_the_table_shows_each_side_and_the_ratio():
    args = compare.parse_args(["--pairs", "payment,purchase"])
    summaries = {
        "payment": {
            **compare.pair_summary([_round(300)], [_round(750)]),
            "labels": ["project DB payment", "reference INSERT"],
            "statements": [{"statements": 6}, {"statements": 1}],
        },
        "purchase": {
            **compare.pair_summary([_round(90)], []),
            "labels": ["project Purchase", ""],
            "statements": [{"statements": 20}, None],
        },
    }
    text = compare.table(summaries, args)
    lines = text.splitlines()
    assert any(line.startswith("payment") and "project DB payment" in line for line in lines)
    assert any("reference INSERT" in line and " 750.0 " in line for line in lines)
    assert "ratio A/B 0.40 (rounds: 0.40)" in text
    assert any("project Purchase" in line and " 20 " in line for line in lines)
    assert text.count("ratio A/B") == 1  # no ratio for a path measured alone


def test_the_load_generators_material():
    key = jwk.JWK.generate(kty="EC", crv="P-256")
    private = jwt.PyJWK({**key.export_private(as_dict=True)}, algorithm="ES256").key
    bodies = compare.form_token_bodies(
        private,
        "kid-1",
        client_id="c1",
        audience="http://127.0.0.1:1/oauth2/token",
        scope="TRANSACTION",
        count=5,
    )
    from urllib.parse import parse_qs

    jtis = set()
    for body in bodies:
        form = {k: v[0] for k, v in parse_qs(body).items()}
        assert form["grant_type"] == "client_credentials" and form["client_id"] == "c1"
        claims = jwt.decode(
            form["client_assertion"],
            private.public_key(),
            algorithms=["ES256"],
            audience="http://127.0.0.1:1/oauth2/token",
            issuer="c1",
        )
        assert jwt.get_unverified_header(form["client_assertion"])["kid"] == "kid-1"
        jtis.add(claims["jti"])
    assert len(jtis) == 5  # single use: a fresh jti each

    dealt = compare.split(["a", "b", "c", "d", "e"], 2)
    assert [list(s) for s in dealt] == [["a", "c", "e"], ["b", "d"]]
    pooled = compare.cycling(["a", "b", "c"], 2)
    assert [next(pooled[1]) for _ in range(4)] == ["b", "c", "a", "b"]
    payments = compare.payment_bodies("amount=1.00", 2)
    first, second = next(payments[0]), next(payments[0])
    assert first.startswith("amount=1.00&merchantTransactionId=") and first != second
