"""Two commits of the platform side by side, in one sitting (issue 33).

    git worktree add /tmp/ab-old <old commit>; git worktree add /tmp/ab-new <new commit>
    (cd /tmp/ab-old && make install-dev); (cd /tmp/ab-new && make install-dev)
    .venv/bin/python bench/ab_commits.py --old /tmp/ab-old --new /tmp/ab-new --rounds 5 \\
        --pairs payment,token,jwe,purchase,onus --duration 10

Each round runs bench/compare.py once in each worktree, with that worktree's own venv and code,
on a bench database of its own on the same PostgreSQL server, the order alternating from round
to round (old new, new old, ...). compare.py measures the platform (its A side) and a reference
(B) for each pair; this script keeps the platform's side: throughput, server and PostgreSQL CPU
per request, statements per request. It prints each tree's medians over the rounds and the
ratio new/old, and writes bench/results/ab-<timestamp>.json. See bench/README.md, "A/B of two
commits".
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
SERVER = "postgres://postgres@127.0.0.1:5432"
MEASURES = ("throughput_per_s", "server_cpu_ms", "postgres_cpu_ms")


def run_compare(tree: Path, name: str, args: argparse.Namespace, port: int) -> dict[str, Any]:
    """One compare.py run in `tree`; its platform side, by pair."""
    command = [
        str(tree / ".venv" / "bin" / "python"),
        "bench/compare.py",
        "--pairs", ",".join(args.pairs),
        "--rounds", "1",
        "--duration", str(args.duration),
        "--warmup", str(args.warmup),
        "--workers", str(args.workers),
        "--concurrency", str(args.concurrency),
        "--database-url", f"{SERVER}/ab_{name}",
        "--reference-database-url", f"{SERVER}/ab_{name}_reference",
        "--port", str(port),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{name}: compare.py failed\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    path = Path(done.stdout.strip().rsplit("result: ", 1)[1].split()[0])
    outcome = json.loads(path.read_text())
    found = {}
    for pair, summary in outcome["pairs"].items():
        side = summary["a"]
        found[pair] = {key: side[key] for key in MEASURES}
        counted = (summary.get("statements") or [None])[0]  # the platform's, counted in-process
        found[pair]["statements"] = counted["statements"] if counted else None
        found[pair]["errors"] = side["errors"]
    return found


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 3) if present else None


def summarise(runs: dict[str, list[dict[str, Any]]], pairs: list[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for name in ("old", "new"):  # a result written before the statements were read as counts
        for run in runs[name]:
            for measured in run.values():
                if isinstance(measured.get("statements"), dict):
                    measured["statements"] = measured["statements"].get("statements")
    for pair in pairs:
        row: dict[str, Any] = {}
        for name in ("old", "new"):
            rounds = [run[pair] for run in runs[name]]
            row[name] = {key: median([r[key] for r in rounds]) for key in MEASURES}
            row[name]["statements"] = rounds[0]["statements"] if rounds else None
            row[name]["errors"] = sum(r["errors"] for r in rounds)
        row["new_over_old"] = {
            key: round(row["new"][key] / row["old"][key], 3)
            if row["new"][key] and row["old"][key]
            else None
            for key in MEASURES
        }
        summary[pair] = row
    return summary


def table(summary: dict[str, Any]) -> str:
    lines = [
        f"{'pair':9s} {'tree':4s} {'req/s':>8s} {'server ms':>10s} {'pg ms':>7s} {'stmts':>6s}",
    ]
    for pair, row in summary.items():
        for name in ("old", "new"):
            side = row[name]
            lines.append(
                f"{pair:9s} {name:4s} {side['throughput_per_s'] or 0:8.1f} "
                f"{side['server_cpu_ms'] or 0:10.3f} {side['postgres_cpu_ms'] or 0:7.3f} "
                f"{side['statements'] if side['statements'] is not None else '-':>6}"
            )
        ratios = row["new_over_old"]
        lines.append(
            f"{pair:9s} new/old {ratios['throughput_per_s'] or 0:5.3f} "
            f"{ratios['server_cpu_ms'] or 0:10.3f} {ratios['postgres_cpu_ms'] or 0:7.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="the old commit's worktree")
    parser.add_argument("--new", type=Path, help="the new commit's worktree")
    parser.add_argument("--report", type=Path, help="print the table of an earlier result file")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", default="payment,token,jwe,purchase,onus")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args(argv)
    args.pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    if args.report:
        earlier = json.loads(args.report.read_text())
        print(table(summarise(earlier["runs"], list(earlier["summary"]))))
        return 0
    if args.old is None or args.new is None:
        parser.error("--old and --new are required (or --report)")
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, tree in trees.items():
        if not (tree / ".venv" / "bin" / "python").exists():
            parser.error(f"{name}: {tree} has no .venv (make install-dev there first)")
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    started = time.monotonic()
    for index in range(args.rounds):
        order = ("old", "new") if index % 2 == 0 else ("new", "old")
        for name in order:
            port = 8310 if name == "old" else 8330
            runs[name].append(run_compare(trees[name], name, args, port))
            print(f"round {index + 1}/{args.rounds} {name}: done", flush=True)
    summary = summarise(runs, args.pairs)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"ab-{stamp}.json"
    commits = {
        name: subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
        ).stdout.strip()
        for name, tree in trees.items()
    }
    outcome = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "commits": commits,
        "seconds": round(time.monotonic() - started),
        "summary": summary,
        "runs": runs,
    }
    path.write_text(json.dumps(outcome, indent=2) + "\n")
    print(f"old {commits['old']}, new {commits['new']}; medians of {args.rounds} rounds each")
    print(table(summary))
    print(f"result: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
