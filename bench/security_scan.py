"""Benchmark: every commit of a span the offline analyzer flags as a security change, and why.

Collects every first-parent commit of the span with the package's own pipeline
(the git source, the context budget, the heuristic analyzer with its cache in a
temporary directory), default: the year 2025-05-20..2026-05-19 of
vllm-project/vllm, and lists each commit flagged `security`:

  words   the message alone flags it (title tags and patterns, changelog entries):
          the analyzer without its `[security_idioms]` rules flags it too
  idioms  only the code's shape does; the cite is the first idiom matched

Every idiom a flagged commit matches is listed with its cite. With --truth (a
JSON object: SHA or prefix -> {"security": true/false, "why": ...}, judged by
RUBRIC.md; bench/security_truth_vllm.json judges the default span,
bench/security_truth_others.json what the idioms flag over the same year of
attrs, axum, diffusers, express, fd, vite and werkzeug), precision
is computed for each group and overall. Prints a table and writes JSON (--json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git nice python bench/security_scan.py \
        --truth bench/security_truth_vllm.json --json out.json
    nice python bench/security_scan.py --repo /path/to/vite.git --name vitejs/vite \
        --timezone UTC --truth bench/security_truth_others.json
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from results import RESULTS_DIR, history_args, history_parser, write_results

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.analyzers.heuristic.files import read_files
from repodaily.analyzers.heuristic.idioms import find_idioms
from repodaily.config import RepoConfig, load_config
from repodaily.context import build_input
from repodaily.models import Commit
from repodaily.pipeline import Pipeline
from repodaily.store import Store

_TITLE_WIDTH = 70


def _flagged(
    name: str,
    commits: Sequence[Commit],
    flags: dict[str, bool],
    analyzers: tuple[HeuristicAnalyzer, HeuristicAnalyzer],
    budget: int,
) -> list[dict[str, Any]]:
    """The flagged commits of one day, each with its group and the idioms it matches.

    ``analyzers``: the pipeline's, and the same without idioms (what the message and changelog say alone).
    """
    analyzer, words = analyzers
    rows = []
    for commit in commits:
        if not flags[commit.sha]:
            continue
        item = build_input(name, commit, budget_tokens=budget, paths=analyzer.path_table, whole_patch=True)
        hits = list(find_idioms(read_files(item.files, analyzer.rules), analyzer.rules))
        by_words = words.analyze_sync(item).verdict.flags.security
        rows.append(
            {
                "sha": commit.sha,
                "date": commit.committed_at.date().isoformat(),
                "title": commit.subject,
                "group": "words" if by_words else "idioms",
                "idioms": [{"rule": h.rule, "path": h.path, "cite": h.cite} for h in hits],
            }
        )
    return rows


async def scan(repo: str, name: str, first: date, last: date, timezone: str) -> tuple[int, list[dict[str, Any]]]:
    """How many commits the span holds, and the flagged ones, oldest day first."""
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    with tempfile.TemporaryDirectory(prefix="security-scan-") as cache_dir:
        overrides = {"cache_dir": cache_dir, "timezone": timezone, "language": "en", "analyzer": {"name": "heuristic"}}
        config = load_config(None, environ={}, overrides=overrides)
        with Store(config.cache_path) as store:
            pipeline = Pipeline(config, store)
            source, _, _ = pipeline.open_source(RepoConfig(name=name, path=repo))
            analyzer = pipeline.analyzers_for(name)[0]
            assert isinstance(analyzer, HeuristicAnalyzer)
            without_idioms = analyzer.rules.model_copy(update={"security_idioms": {}})
            analyzers = (analyzer, HeuristicAnalyzer(language=analyzer.language, rules=without_idioms))
            total, flagged = 0, []
            try:
                for _, commits in pipeline.collect(source, days):
                    analyses, _ = await pipeline.analyze(name, commits)
                    flags = {sha: a.verdict.flags.security for sha, a in analyses.items()}
                    total += len(commits)
                    flagged += _flagged(name, commits, flags, analyzers, config.context.budget_tokens)
            finally:
                await pipeline.aclose()
    return total, flagged


def _judge(rows: list[dict[str, Any]], truth: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each row's verdict from ``truth`` (by SHA prefix), and precision per group and overall."""
    for row in rows:
        judged = next((v for k, v in truth.items() if row["sha"].startswith(k)), None)
        row["true"] = None if judged is None else bool(judged["security"])
        row["why"] = None if judged is None else judged.get("why")
    figures: dict[str, Any] = {}
    for group in ("words", "idioms", "overall"):
        judged = [r for r in rows if r["true"] is not None and group in ("overall", r["group"])]
        right = sum(1 for r in judged if r["true"])
        figures[group] = {
            "flagged": sum(1 for r in rows if group in ("overall", r["group"])),
            "judged": len(judged),
            "true": right,
            "precision": round(right / len(judged), 3) if judged else None,
        }
    return figures


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm")
    parser.add_argument("--since", default="2025-05-20", help="first day")
    parser.add_argument("--until", default="2026-05-19", help="last day")
    parser.add_argument("--truth", help='JSON object: SHA (or prefix) -> {"security": bool, "why": str}')
    parser.add_argument("--json", default=str(RESULTS_DIR / "security_scan.json"), help="where the figures go")
    args = history_args(parser)
    first, last = date.fromisoformat(args.since), date.fromisoformat(args.until)
    total, rows = asyncio.run(scan(args.repo, args.name, first, last, args.timezone))
    truth = json.loads(Path(args.truth).read_text(encoding="utf-8")) if args.truth else {}
    figures = _judge(rows, truth)

    print(f"{'sha':<10} {'group':<6} {'true':<5} {'title':<{_TITLE_WIDTH}} cite")
    for group in ("words", "idioms"):
        for row in (r for r in rows if r["group"] == group):
            verdict = "?" if row["true"] is None else "yes" if row["true"] else "no"
            cites = "; ".join(f"{h['rule']}: {h['cite']}" for h in row["idioms"])
            print(
                f"{row['sha'][:10]:<10} {group:<6} {verdict:<5} {row['title'][:_TITLE_WIDTH]:<{_TITLE_WIDTH}} {cites}"
            )
    print(f"\n{total} commits, {len(rows)} flagged")
    for group, figure in figures.items():
        precision = "n/a" if figure["precision"] is None else f"{figure['precision']:.3f}"
        counts = f"flagged {figure['flagged']:>3}  judged {figure['judged']:>3}  true {figure['true']:>3}"
        print(f"{group:<8} {counts}  precision {precision}")
    write_results(
        args.json,
        {
            "repo": args.name,
            "since": args.since,
            "until": args.until,
            "commits": total,
            "figures": figures,
            "flagged": rows,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
