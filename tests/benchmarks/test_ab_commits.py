"""bench/ab_commits.py: each tree's medians over its rounds, and new/old (issue 33)."""

import json

from bench import ab_commits


def _run(server: float, postgres: float, statements: object = 5) -> dict[str, dict[str, object]]:
    return {
        "payment": {
            "throughput_per_s": 100.0,
            "server_cpu_ms": server,
            "postgres_cpu_ms": postgres,
            "statements": statements,
            "errors": 0,
        }
    }


def test_medians_per_tree_and_the_ratio_new_over_old():
    runs = {
        "old": [_run(10.0, 3.0), _run(12.0, 3.0), _run(11.0, 3.0)],
        "new": [_run(11.0, 2.0), _run(10.0, 2.0), _run(12.0, 2.0)],
    }
    summary = ab_commits.summarise(runs, ["payment"])
    row = summary["payment"]
    assert row["old"]["server_cpu_ms"] == 11.0 and row["new"]["server_cpu_ms"] == 11.0
    assert row["new_over_old"]["postgres_cpu_ms"] == 0.667
    assert row["old"]["statements"] == 5
    assert "payment   new/old" in ab_commits.table(summary)


def test_a_report_reads_an_earlier_result_whose_statements_were_compare_pys_dicts(tmp_path, capsys):
    counted = {"statements": 5, "entries": 9, "answered": 200, "ok": True}
    runs = {"old": [_run(10.0, 3.0, dict(counted))], "new": [_run(9.0, 2.0, dict(counted))]}
    path = tmp_path / "ab.json"
    path.write_text(json.dumps({"summary": {"payment": {}}, "runs": runs}))
    assert ab_commits.main(["--report", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "payment   old" in printed and "      5" in printed
