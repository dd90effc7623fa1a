"""Benchmark: collection and the whole offline pipeline against plain `git log -p`.

For 1 day and for 30 days of a real history (default: vllm-project/vllm ending
2026-02-09 and 2026-02-05, Asia/Shanghai), time in the same run, alternating:

  git      plain `git log -p --first-parent` over the same window (the baseline)
  collect  repodaily's source stage (listing + one streaming `git log -p`, parsed)
  full     collect + context (as the heuristic reads it: every patch whole) + heuristic
           analysis + digest + Markdown render

and report medians and ratios to the baseline, because machines are noisy.
Prints a table and writes JSON (bench/results/collect_bench.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/collect_bench.py [--runs 5]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from results import RESULTS_DIR, history_args, history_parser, write_results

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.context.budget import build_input
from repodaily.digest import build_report
from repodaily.models import RunInfo
from repodaily.plan import day_window
from repodaily.render import render_markdown
from repodaily.sources.git import GitRepository, collect_commits, open_repository


def _git_baseline(repo: GitRepository, since: str, until: str) -> int:
    """Plain git over the same first-parent window; returns bytes produced."""
    result = subprocess.run(
        [
            "git",
            "--git-dir",
            str(repo.git_dir),
            "log",
            "-p",
            "--first-parent",
            "--no-color",
            f"--since={since}",
            f"--until={until}",
            repo.branch,
        ],
        capture_output=True,
        check=True,
    )
    return len(result.stdout)


def _full(repo: GitRepository, days: list[date], tz: ZoneInfo, budget: int) -> int:
    """The offline pipeline without the cache: every commit is analysed."""
    start, end = day_window(days[0], tz).start, day_window(days[-1], tz).end
    commits = collect_commits(repo, start, end)
    analyzer = HeuristicAnalyzer(language="zh")
    by_day = defaultdict(list)
    for commit in commits:
        by_day[commit.committed_at.astimezone(tz).date()].append(commit)
    size = 0
    for day in days:
        day_commits = by_day.get(day, [])
        analyses = {
            c.sha: analyzer.analyze_sync(
                build_input(
                    "vllm-project/vllm",
                    c,
                    budget_tokens=budget,
                    paths=analyzer.path_table,
                    whole_patch=analyzer.reads_whole_patch,
                )
            )
            for c in day_commits
        }
        report = build_report(
            repo="vllm-project/vllm",
            repo_url="https://github.com/vllm-project/vllm",
            day=day,
            timezone=tz.key,
            language="zh",
            commits=day_commits,
            analyses=analyses,
            run=RunInfo(analyzer=analyzer.fingerprint),
        )
        size += len(render_markdown(report))
    return size


def _time(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--day", default="2026-02-09", help="the 1-day window")
    # The public vLLM mirror lacks one blob of 2026-02-06, which plain `git log -p`
    # cannot step over; the 30-day window ends before it so both sides read the same.
    parser.add_argument("--range-end", default="2026-02-05", help="last day of the 30-day window")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=6000)
    parser.add_argument("--out", default=str(RESULTS_DIR / "collect_bench.json"))
    args = history_args(parser)
    tz = ZoneInfo(args.timezone)
    repo = open_repository(args.repo, cache_dir=Path("/tmp"), branch=args.branch, fetch=False)
    rows = []
    for span, last in ((1, date.fromisoformat(args.day)), (30, date.fromisoformat(args.range_end))):
        days = [last - timedelta(days=span - 1 - i) for i in range(span)]
        start, end = day_window(days[0], tz).start, day_window(days[-1], tz).end
        commits = len(collect_commits(repo, start, end))
        since, until = start.isoformat(), end.isoformat()
        timings: dict[str, list[float]] = {"git": [], "collect": [], "full": []}
        for _ in range(args.runs + 1):  # the first round warms the page cache and is dropped
            timings["git"].append(_time(_git_baseline, repo, since, until))
            timings["collect"].append(_time(collect_commits, repo, start, end))
            timings["full"].append(_time(_full, repo, days, tz, args.budget))
        medians = {k: statistics.median(v[1:]) for k, v in timings.items()}
        ratios = {
            k: statistics.median(a / b for a, b in zip(timings[k][1:], timings["git"][1:], strict=True))
            for k in ("collect", "full")
        }
        rows.append(
            {
                "days": span,
                "first": days[0].isoformat(),
                "last": last.isoformat(),
                "commits": commits,
                "median_s": medians,
                "ratio_to_git": ratios,
                "runs": args.runs,
            }
        )

    print(
        f"{'days':>4} {'commits':>7} {'git s':>8} {'collect s':>10} {'full s':>8} {'collect/git':>12} {'full/git':>9}"
    )
    for row in rows:
        m, r = row["median_s"], row["ratio_to_git"]
        print(
            f"{row['days']:>4} {row['commits']:>7} {m['git']:>8.3f} {m['collect']:>10.3f} {m['full']:>8.3f} "
            f"{r['collect']:>12.2f} {r['full']:>9.2f}"
        )
    write_results(args.out, {"repo": args.repo, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
