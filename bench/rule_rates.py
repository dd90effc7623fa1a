"""How often each heuristic rule fires over a history: the evidence for keeping or removing it.

Runs the offline analyzer over every first-parent commit of a date range (default:
the year 2025-05-20..2026-05-19 of vllm-project/vllm, with the conventions the
repository's declared preset adds) and counts, for every rule of the merged
table (`tags.*`, `patterns.*`, `surface.*`, `security_idioms.*`, `paths.*`), the commits where it
matched, with up to three example titles. A rule that matches a handful of
commits a year recognises titles, not a class of change.

Prints a table, rarest first, and writes JSON (bench/results/rule_rates.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/rule_rates.py [--first 2025-05-20 --last 2026-05-19]
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from results import RESULTS_DIR, history_args, history_parser, write_results

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.analyzers.heuristic.conventions import load_conventions, preset_for
from repodaily.context.budget import build_input
from repodaily.plan import day_window
from repodaily.sources.git import collect_commits, open_repository

#: A month of history at a time keeps the patches of a year out of memory at once.
_CHUNK_DAYS = 30


def _rules(analyzer: HeuristicAnalyzer) -> list[str]:
    rules = analyzer.rules
    return [
        *(f"tags.{name}" for name in rules.tags),
        *(f"patterns.{name}" for name in rules.patterns),
        *(f"surface.{name}" for name in rules.surface),
        *(f"security_idioms.{name}" for name in rules.security_idioms),
        *(f"paths.{name}" for name in rules.paths),
    ]


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm", help="owner/name: picks the declared preset")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--first", default="2025-05-20")
    parser.add_argument("--last", default="2026-05-19")
    parser.add_argument("--rare", type=int, default=5, help="fewer matches than this a year is rare")
    parser.add_argument("--out", default=str(RESULTS_DIR / "rule_rates.json"))
    args = history_args(parser)
    tz = ZoneInfo(args.timezone)
    preset = preset_for(args.name)
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions(preset) if preset else None)
    repo = open_repository(args.repo, cache_dir=Path("/tmp"), branch=args.branch, fetch=False)
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    total, started = 0, time.perf_counter()
    first, last = date.fromisoformat(args.first), date.fromisoformat(args.last)
    while first <= last:
        chunk_end = min(last, first + timedelta(days=_CHUNK_DAYS - 1))
        commits = collect_commits(repo, day_window(first, tz).start, day_window(chunk_end, tz).end)
        for commit in commits:
            item = build_input(
                args.name, commit, budget_tokens=6000, paths=analyzer.path_table, whole_patch=analyzer.reads_whole_patch
            )
            fired = analyzer.read(item).evidence.fired
            counts.update(fired)
            for rule in fired:
                if len(examples[rule]) < 3:
                    examples[rule].append(f"{commit.sha[:9]} {commit.subject[:70]}")
        total += len(commits)
        print(f"{first}..{chunk_end}: {len(commits)} commits", file=sys.stderr)
        first = chunk_end + timedelta(days=1)
    rows = sorted(
        ({"rule": rule, "commits": counts[rule], "share": counts[rule] / max(total, 1)} for rule in _rules(analyzer)),
        key=lambda row: (row["commits"], row["rule"]),
    )
    print(f"{'rule':<40} {'commits':>8} {'share':>7}  examples")
    for row in rows:
        flag = "  RARE" if row["commits"] < args.rare else ""
        shown = "; ".join(examples[row["rule"]][:2])
        print(f"{row['rule']:<40} {row['commits']:>8} {row['share']:>7.2%}{flag}  {shown[:90]}")
    print(f"{total} commits, {time.perf_counter() - started:.0f} s, preset {preset or 'none'}")
    write_results(
        args.out,
        {
            "repo": args.name,
            "first": args.first,
            "last": args.last,
            "preset": preset,
            "commits": total,
            "rules": [{**row, "examples": examples[row["rule"]]} for row in rows],
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
