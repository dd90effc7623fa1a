"""Backfills judged on every CPU: past a day's worth of commits, the rules run in worker processes.

A night's report judges a few dozen commits in a fraction of a second, and a
pool would only add its start-up. A backfill of weeks spends most of its CPU
here, one commit after another, while the machine has cores to spare. So the
analyzer counts what it judged in this run and, past :data:`PARALLEL_AFTER`
commits, hands the rest to a process pool of one worker per spare CPU (at most
:data:`MAX_WORKERS`), each holding the same rules: the same code judges the same
input, so the analyses are the same. ``concurrent.futures`` gives the pool; the
policy of when it pays is what is written here.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING

from repodaily.models import Analysis, AnalysisInput

if TYPE_CHECKING:
    from repodaily.analyzers.heuristic import HeuristicAnalyzer
    from repodaily.analyzers.heuristic.rules import RuleSet

__all__ = ["MAX_WORKERS", "FORKS", "PARALLEL_AFTER", "Workers", "judge", "spare_cpus"]

#: Forked, not spawned: a spawned worker imports the program's main module again, which a script
#: that embeds the pipeline may not guard; a forked one starts from this process as it is and only
#: ever runs the rules (no lock another thread holds, no file the parent has open). Linux forks by
#: default; elsewhere a backfill stays in one process.
FORKS = sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()
#: About a busy day of a large project: a nightly report of one repository seldom starts a pool.
PARALLEL_AFTER = 64
MAX_WORKERS = 4

_analyzer: HeuristicAnalyzer | None = None


def _start(language: str, rules: RuleSet) -> None:
    global _analyzer
    from repodaily.analyzers.heuristic import HeuristicAnalyzer

    _analyzer = HeuristicAnalyzer(language=language, rules=rules)


def judge(item: AnalysisInput) -> Analysis:
    """What a worker runs for one commit: the analyzer its start made judges it."""
    assert _analyzer is not None, "a worker judges only after its start"
    return _analyzer.analyze_sync(item)


def spare_cpus() -> int:
    """The CPUs this process may run on, less the one it runs on."""
    return len(os.sched_getaffinity(0)) - 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) - 1


class Workers:
    """The pool of one analyzer, started when its run has judged more than ``after`` commits."""

    def __init__(self, language: str, rules: RuleSet, *, after: int = PARALLEL_AFTER) -> None:
        self._language, self._rules, self._after = language, rules, after
        self._judged = 0
        self._pool: ProcessPoolExecutor | None = None
        self._given_up = False

    def pool(self) -> Executor | None:
        """The pool for the next commit, or None to judge it in this process."""
        self._judged += 1
        workers = min(MAX_WORKERS, spare_cpus())
        if self._pool is None and not self._given_up and self._judged > self._after and workers > 0 and FORKS:
            self._pool = ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_start,
                initargs=(self._language, self._rules),
            )
        return self._pool

    @property
    def started(self) -> bool:
        """Whether worker processes judge this run's commits."""
        return self._pool is not None

    def give_up(self) -> None:
        """No pool for the rest of this run: one of its workers died."""
        self._given_up = True
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
