"""Benchmark: a heuristic backfill as users run it, against plain `git log -p` in the same run.

Measures, alternating and as whole processes, over one span (default: the 30 days
2026-01-06..2026-02-04 of vllm-project/vllm, Asia/Shanghai; `--year`: the year
2025-05-20..2026-05-19):

  git       `git log -p --first-parent` over the span (the baseline)
  backfill  `python -m repodaily report REPO --since .. --until .. --output DIR`
            with the heuristic analyzer and an empty cache each time

each one's wall time, CPU time (user + system, its git processes included) and
peak resident memory, and reports medians and the ratios backfill/git, run by
run, because machines are noisy. A warm-up round (git over the span, the
backfill of its last day) fills the page cache first and is not counted.
`--src` runs the backfill from another checkout's `src` (an earlier commit), so
two versions are compared by their ratios to the same baseline. Prints a table
and writes JSON (bench/results/backfill_bench.json, or backfill_bench_year.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/backfill_bench.py [--runs 5] [--year] [--src ../old/src]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import IO
from zoneinfo import ZoneInfo

from results import RESULTS_DIR, Measured, history_args, history_parser, measure, write_results

_SRC = Path(__file__).resolve().parent.parent / "src"
_YEAR = ("2026-05-19", 365)


def _backfill(args: argparse.Namespace, first: date, last: date) -> Measured:
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "PYTHONPATH": str(args.src), "XDG_CACHE_HOME": str(Path(scratch) / "cache")}
        command = [sys.executable, "-m", "repodaily", "report", args.repo, "--name", args.name]
        command += ["--since", first.isoformat(), "--until", last.isoformat(), "--timezone", args.timezone]
        command += ["--analyzer", "heuristic", "--output", str(Path(scratch) / "out")]
        measured = measure(command, env)
    if measured.status not in (0, 1):  # 1: written, with degraded commits (blobs a mirror lacks)
        raise SystemExit(f"the backfill exited with {measured.status}")
    return measured


def _git(args: argparse.Namespace, first: date, last: date) -> Measured:
    """`git log -p --first-parent` over the same days in the same timezone, measured.

    git stops at the first commit whose diff needs a blob the repository lacks (the
    public vLLM mirror lacks a few); the log then goes on from that commit's first
    parent, as the backfill goes on past such a commit, and the parts are added up.
    """
    tz = ZoneInfo(args.timezone)
    since = f"--since={first.isoformat()}T00:00:00{_offset(tz, first)}"
    until = f"--until={(last + timedelta(days=1)).isoformat()}T00:00:00{_offset(tz, last)}"
    log = ["git", "--git-dir", args.repo, "log", "-p", "--first-parent", "--no-color", since, until]
    parts: list[Measured] = []
    start = args.branch
    while True:
        with tempfile.TemporaryFile() as out:
            parts.append(measure([*log, start], stdout=out))
            if parts[-1].status == 0:
                break
            stopped = _last_commit(out)
        if stopped is None or f"{stopped}^" == start:
            raise SystemExit(f"git log -p fails at {start} in {args.repo}")
        start = f"{stopped}^"
    return Measured(
        0,
        sum(part.wall_s for part in parts),
        sum(part.cpu_s for part in parts),
        max(part.peak_rss for part in parts),
    )


def _last_commit(out: IO[bytes]) -> str | None:
    """The SHA of the last commit git printed: the one whose diff it could not finish."""
    out.seek(0, os.SEEK_END)
    out.seek(max(0, out.tell() - (1 << 24)))
    headers = re.findall(rb"^commit ([0-9a-f]{40})", out.read(), re.MULTILINE)
    return headers[-1].decode() if headers else None


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--last", default="2026-02-04", help="last day of the span")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--year", action="store_true", help=f"the year ending {_YEAR[0]} (sets --last and --days)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", type=Path, default=_SRC, help="the checkout's src whose backfill is measured")
    parser.add_argument("--out", help="JSON file (default: bench/results/backfill_bench[_year].json)")
    args = history_args(parser)
    if args.year:
        args.last, args.days = _YEAR
    last = date.fromisoformat(args.last)
    first = last - timedelta(days=args.days - 1)
    _git(args, first, last)  # the warm-up round
    _backfill(args, last, last)
    runs: dict[str, list[Measured]] = {"git": [], "backfill": []}
    for _ in range(args.runs):
        runs["git"].append(_git(args, first, last))
        runs["backfill"].append(_backfill(args, first, last))
    figures = {name: _medians(measured) for name, measured in runs.items()}
    ratios = {
        figure: [getattr(b, figure) / getattr(g, figure) for b, g in zip(runs["backfill"], runs["git"], strict=True)]
        for figure in ("wall_s", "cpu_s")
    }
    ratio = {figure: statistics.median(values) for figure, values in ratios.items()}
    print(f"{first}..{last} ({args.days} days), {args.runs} runs, medians; src {args.src}")
    print(f"{'':>9} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, row in figures.items():
        print(f"{name:>9} {row['wall_s']:>8.2f} {row['cpu_s']:>8.2f} {row['peak_rss'] / 2**20:>9.1f}")
    spread = {figure: f"{min(values):.2f}-{max(values):.2f}" for figure, values in ratios.items()}
    print(f"{'ratio':>9} {ratio['wall_s']:>8.2f} {ratio['cpu_s']:>8.2f}", end="   ")
    print(f"(min-max: wall {spread['wall_s']}, CPU {spread['cpu_s']})")
    default_out = RESULTS_DIR / ("backfill_bench_year.json" if args.year else "backfill_bench.json")
    write_results(
        args.out or default_out,
        {"first": first.isoformat(), "last": last.isoformat(), "src": str(args.src), "runs": args.runs}
        | {"median": figures, "ratio_to_git": ratio, "ratios": ratios},
    )
    return 0


def _medians(measured: list[Measured]) -> dict[str, float]:
    return {
        figure: statistics.median(getattr(m, figure) for m in measured) for figure in ("wall_s", "cpu_s", "peak_rss")
    }


def _offset(tz: ZoneInfo, day: date) -> str:
    """The zone's UTC offset on ``day`` as git reads it (``+08:00``)."""
    offset = datetime(day.year, day.month, day.day, tzinfo=tz).strftime("%z")
    return f"{offset[:3]}:{offset[3:]}"


if __name__ == "__main__":
    sys.exit(main())
