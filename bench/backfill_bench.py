"""Benchmark: a heuristic backfill as users run it, against plain `git log -p` in the same run.

Times, alternating and as whole processes, over one span (default: the 30 days
2026-01-06..2026-02-04 of vllm-project/vllm, Asia/Shanghai):

  git       `git log -p --first-parent` over the span (the baseline)
  backfill  `python -m repodaily report REPO --since .. --until .. --output DIR`
            with the heuristic analyzer and an empty cache each time

and reports medians and the ratio backfill/git, run by run, because machines
are noisy. `--src` runs the backfill from another checkout's `src` (an earlier
commit), so two versions are compared by their ratios to the same baseline.
Prints a table and writes JSON (bench/results/backfill_bench.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/backfill_bench.py [--runs 5] [--src ../old/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from results import RESULTS_DIR, history_args, history_parser, write_results

_SRC = Path(__file__).resolve().parent.parent / "src"


def _timed(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def _backfill(args: argparse.Namespace, first: date, last: date) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "PYTHONPATH": str(args.src), "XDG_CACHE_HOME": str(Path(scratch) / "cache")}
        command = [sys.executable, "-m", "repodaily", "report", args.repo, "--name", args.name]
        command += ["--since", first.isoformat(), "--until", last.isoformat(), "--timezone", args.timezone]
        command += ["--analyzer", "heuristic", "--output", str(Path(scratch) / "out")]
        return _timed(command, env)


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--last", default="2026-02-04", help="last day of the span")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", type=Path, default=_SRC, help="the checkout's src whose backfill is timed")
    parser.add_argument("--out", default=str(RESULTS_DIR / "backfill_bench.json"))
    args = history_args(parser)
    last = date.fromisoformat(args.last)
    first = last - timedelta(days=args.days - 1)
    tz = ZoneInfo(args.timezone)
    since = f"--since={first.isoformat()}T00:00:00{_offset(tz, first)}"
    until = f"--until={(last + timedelta(days=1)).isoformat()}T00:00:00{_offset(tz, last)}"
    git = ["git", "--git-dir", args.repo, "log", "-p", "--first-parent", "--no-color", since, until, args.branch]
    timings: dict[str, list[float]] = {"git": [], "backfill": []}
    for _ in range(args.runs + 1):  # the first round warms the page cache and is dropped
        timings["git"].append(_timed(git))
        timings["backfill"].append(_backfill(args, first, last))
    medians = {name: statistics.median(values[1:]) for name, values in timings.items()}
    ratios = [b / g for b, g in zip(timings["backfill"][1:], timings["git"][1:], strict=True)]
    ratio = statistics.median(ratios)
    print(f"{'days':>4} {'git s':>8} {'backfill s':>11} {'backfill/git':>13}  (min-max ratio)  src")
    print(
        f"{args.days:>4} {medians['git']:>8.3f} {medians['backfill']:>11.3f} {ratio:>13.2f}  "
        f"({min(ratios):.2f}-{max(ratios):.2f})  {args.src}"
    )
    write_results(
        args.out,
        {"first": first.isoformat(), "last": last.isoformat(), "src": str(args.src), "runs": args.runs}
        | {"median_s": medians, "ratio_to_git": ratio, "ratios": ratios},
    )
    return 0


def _offset(tz: ZoneInfo, day: date) -> str:
    """The zone's UTC offset on ``day`` as git reads it (``+08:00``)."""
    offset = datetime(day.year, day.month, day.day, tzinfo=tz).strftime("%z")
    return f"{offset[:3]}:{offset[3:]}"


if __name__ == "__main__":
    sys.exit(main())
