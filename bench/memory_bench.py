"""Benchmark: peak memory of a backfill stays flat however long the range.

Runs the whole CLI (`repodaily report REPO --since … --until … --output DIR`,
heuristic analyzer, cold cache) as a child process over 1, 30 and 365 days of a
real history ending on one day (default: vllm-project/vllm, 2026-05-19), and
reads the child's own peak resident set size from the kernel (``wait4``).
Alongside, in the same run, plain `git log -p --first-parent` over the same
window, so the wall time has a baseline (ratio), and the 1-day peak is the
baseline of the memory ratios. Prints a table and writes JSON
(bench/results/memory_bench.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/memory_bench.py [--spans 1,30,365]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

from results import RESULTS_DIR, history_args, history_parser, measure, write_results


def _git_log(repo: str, first: date, last: date) -> list[str]:
    """Plain git over the same window, in the timezone of the environment's TZ."""
    since, until = f"{first}T00:00:00", f"{last}T23:59:59"
    return [
        "git",
        "--git-dir",
        repo,
        "log",
        "-p",
        "--first-parent",
        "--no-color",
        f"--since={since}",
        f"--until={until}",
    ]


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm")
    parser.add_argument("--last", default="2026-05-19", help="last day of every range")
    parser.add_argument("--spans", default="1,30,365", help="range lengths in days")
    parser.add_argument("--out", default=str(RESULTS_DIR / "memory_bench.json"))
    args = history_args(parser)
    last = date.fromisoformat(args.last)
    rows = []
    for span in (int(n) for n in args.spans.split(",")):
        first = last - timedelta(days=span - 1)
        with tempfile.TemporaryDirectory(prefix="repodaily-bench-") as scratch:
            env = {**os.environ, "XDG_CACHE_HOME": scratch, "TZ": args.timezone}
            for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
                env.pop(name, None)
            report = [sys.executable, "-m", "repodaily", "report", args.repo, "--name", args.name]
            report += ["--since", str(first), "--until", str(last), "--timezone", args.timezone]
            report += ["--analyzer", "heuristic", "--format", "md", "--format", "json", "--output", scratch + "/out"]
            git, backfill = measure(_git_log(args.repo, first, last), env), measure(report, env)
            git_status, git_s, git_rss = git.status, git.wall_s, git.peak_rss
            status, wall_s, rss = backfill.status, backfill.wall_s, backfill.peak_rss
            written = sorted(Path(scratch, "out").rglob("*.json"))
            commits = sum(json.loads(p.read_text(encoding="utf-8"))["stats"]["total"] for p in written)
        rows.append(
            {
                "days": span,
                "first": str(first),
                "last": str(last),
                "commits": commits,
                "reports": len(written),
                "exit": status,
                "wall_s": round(wall_s, 3),
                "peak_rss_mib": round(rss / 2**20, 1),
                "git_exit": git_status,
                "git_wall_s": round(git_s, 3),
                "git_peak_rss_mib": round(git_rss / 2**20, 1),
                "wall_ratio_to_git": round(wall_s / git_s, 2) if git_s else None,
            }
        )
    base = rows[0]["peak_rss_mib"]
    for row in rows:
        row["peak_ratio_to_first_span"] = round(row["peak_rss_mib"] / base, 2)
    header = f"{'days':>5} {'commits':>7} {'exit':>4} {'wall s':>8} {'git s':>7} {'wall/git':>8}"
    print(header + f" {'peak MiB':>9} {'peak/1st':>8}")
    for row in rows:
        print(
            f"{row['days']:>5} {row['commits']:>7} {row['exit']:>4} {row['wall_s']:>8.1f} {row['git_wall_s']:>7.2f}"
            f" {row['wall_ratio_to_git']:>8.2f} {row['peak_rss_mib']:>9.1f} {row['peak_ratio_to_first_span']:>8.2f}"
        )
    write_results(args.out, {"repo": args.repo, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
