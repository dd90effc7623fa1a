"""A long run judges commits in worker processes, with the verdicts the run's own process would give.

The commits are made by git in a temporary repository and read by the git
source; the workers are real processes, started, killed and shut down as in a
backfill.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from test_surface import heuristic_input

from repodaily.analyzers.heuristic import HeuristicAnalyzer, load_conventions
from repodaily.analyzers.heuristic.workers import INLINE_FIRST
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, AnalysisInput
from repodaily.sources.git import collect_commits, open_repository

_DAY = datetime.fromisoformat("2026-03-02T00:00:00+08:00")
_CHANGES: list[tuple[str, dict[str, str]]] = [
    ("[Model] Add support for Falcon-H1", {"vllm/model_executor/models/falcon_h1.py": "class FalconH1:\n    pass\n"}),
    ("[Bugfix] Fix a crash on empty prompts", {"vllm/engine/core.py": "def step(x):\n    return x or []\n"}),
    ("[Doc] Explain the scheduler", {"docs/scheduler.md": "# Scheduler\n\nIt schedules.\n"}),
    ("[CI] Run the kernels on two GPUs", {".buildkite/test.yaml": "steps:\n  - gpus: 2\n"}),
    ("[Kernel] Faster top-k sampling", {"csrc/sampler.cu": "__global__ void topk() {}\n"}),
    ("Remove the --legacy flag", {"vllm/cli.py": "import argparse\n\nparser = argparse.ArgumentParser()\n"}),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[AnalysisInput]:
    """One day's commits of a repository laid out as vLLM is, as the heuristic reads them."""
    root = tmp_path_factory.mktemp("workers")
    builder = RepoBuilder(root / "work")
    builder.commit("Initial import", when=_DAY.replace(day=1, hour=10), files={"README.md": "# engine\n"})
    for hour, (title, files) in enumerate(_CHANGES, start=9):
        builder.commit(title, when=_DAY.replace(hour=hour), files=files)
    repository = open_repository(str(builder.path), cache_dir=root / "cache")
    commits = collect_commits(repository, _DAY, _DAY.replace(hour=23, minute=59))
    analyzer = HeuristicAnalyzer(language="en")
    return [heuristic_input(commit, analyzer) for commit in commits]


def _children() -> set[int]:
    return {child.pid for child in multiprocessing.active_children()}


async def _judge_all(analyzer: HeuristicAnalyzer, items: list[AnalysisInput], count: int) -> list[Analysis]:
    return [await analyzer.analyze(items[index % len(items)]) for index in range(count)]


def test_a_long_run_is_judged_by_workers_with_the_verdicts_of_the_run_s_own_process(inputs):
    vllm = load_conventions("vllm")
    here = HeuristicAnalyzer(language="en", conventions=vllm, processes=0)
    expected = [here.analyze_sync(item) for item in inputs]
    plain = [HeuristicAnalyzer(language="en", processes=0).analyze_sync(item) for item in inputs]
    assert expected != plain  # the conventions decide some verdicts, so a worker that lost them would differ

    async def run() -> tuple[list[Analysis], set[int]]:
        analyzer = HeuristicAnalyzer(language="en", conventions=vllm, processes=1)
        before = _children()
        judged = await _judge_all(analyzer, inputs, INLINE_FIRST + 3 * len(inputs))
        started = _children() - before
        await analyzer.aclose()
        assert not (_children() & started)  # closing the analyzer stops its workers
        return judged, started

    judged, started = asyncio.run(run())
    assert len(started) == 1
    assert judged == [expected[index % len(inputs)] for index in range(len(judged))]


def test_a_short_run_starts_no_worker(inputs):
    async def run() -> set[int]:
        analyzer = HeuristicAnalyzer(language="en", processes=2)
        before = _children()
        await _judge_all(analyzer, inputs, INLINE_FIRST)
        started = _children() - before
        await analyzer.aclose()
        return started

    assert asyncio.run(run()) == set()


def test_a_worker_killed_midway_costs_no_commit(inputs):
    here = HeuristicAnalyzer(language="en", processes=0)
    expected = [here.analyze_sync(item) for item in inputs]

    async def run() -> list[Analysis]:
        analyzer = HeuristicAnalyzer(language="en", processes=1)
        before = _children()
        await _judge_all(analyzer, inputs, INLINE_FIRST + 1)
        for pid in _children() - before:
            os.kill(pid, signal.SIGKILL)
        try:
            return await _judge_all(analyzer, inputs, 2 * len(inputs))
        finally:
            await analyzer.aclose()

    judged = asyncio.run(run())
    assert judged == expected + expected


def _ignored_signals(pid: int) -> int:
    """The mask of signals process ``pid`` ignores, as the kernel keeps it."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the kernel's signal mask from /proc")
def test_a_worker_ignores_ctrl_c_that_the_run_s_own_process_handles(inputs):
    """Ctrl-C reaches the whole process group; the run's own process decides what it stops, not a worker."""

    async def run() -> dict[int, int]:
        analyzer = HeuristicAnalyzer(language="en", processes=1)
        before = _children()
        await _judge_all(analyzer, inputs, INLINE_FIRST + 1)
        masks = {pid: _ignored_signals(pid) for pid in _children() - before}
        await analyzer.aclose()
        return masks

    masks = asyncio.run(run())
    assert masks
    assert all(mask & (1 << (signal.SIGINT - 1)) for mask in masks.values())


def test_a_run_with_a_complete_rule_set_is_judged_in_its_own_process(inputs):
    here = HeuristicAnalyzer(language="en", processes=0)

    async def run() -> set[int]:
        analyzer = HeuristicAnalyzer(language="en", rules=here.rules, processes=2)
        before = _children()
        await _judge_all(analyzer, inputs, INLINE_FIRST + 2)
        started = _children() - before
        await analyzer.aclose()
        return started

    assert asyncio.run(run()) == set()


_KILLED_RUN = """
import asyncio, sys
from datetime import datetime
from pathlib import Path
from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.analyzers.heuristic.workers import INLINE_FIRST
from repodaily.context import build_input
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.sources.git import collect_commits, open_repository

async def main(root):
    day = datetime.fromisoformat("2026-03-02T09:00:00+08:00")
    builder = RepoBuilder(root / "work")
    builder.commit("Add the engine", when=day, files={"engine/core.py": "def step(x):\\n    return x\\n"})
    repository = open_repository(str(builder.path), cache_dir=root / "cache")
    commit = collect_commits(repository, day.replace(hour=0), day.replace(hour=23))[0]
    analyzer = HeuristicAnalyzer(language="en", processes=1)
    item = build_input("acme/engine", commit, budget_tokens=6000, paths=analyzer.path_table, whole_patch=True)
    for _ in range(INLINE_FIRST + 1):
        await analyzer.analyze(item)
    print("judging", flush=True)
    await asyncio.sleep(600)

if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
"""


def _worker_pids(parent: int) -> set[int]:
    """The processes whose parent is ``parent``, read from /proc."""
    pids = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:  # the process ended while it was read
            continue
        if fields.get("PPid", "").strip() == str(parent):
            pids.add(int(status.parent.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the process tree from /proc")
def test_the_workers_of_a_run_killed_outright_end_with_it(tmp_path: Path):
    script = tmp_path / "killed_run.py"
    script.write_text(_KILLED_RUN)
    run = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None and run.stdout.readline() == "judging\n"
        workers = _worker_pids(run.pid)
        assert workers  # the worker, and multiprocessing's resource tracker
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(pid) for pid in workers):
        time.sleep(0.1)
    assert not [pid for pid in workers if _running(pid)]


def _running(pid: int) -> bool:
    """Whether ``pid`` is running (a zombie waiting for its reaper is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "zombie" not in next(line for line in status.splitlines() if line.startswith("State:"))
