"""Worker processes that judge commits while the run's own process reads git and writes reports.

The rules are pure CPU work in Python, so threads would take turns on one
core; a long run (a backfill, many repositories) gives them processes of their
own instead. A short run never starts one: a worker's start-up (its own import
of the rules) costs more than a day of one repository takes to judge, so
commits are judged in the calling process until a run has judged
:data:`INLINE_FIRST` of them. The verdicts are the same either way: a worker
builds its analyzer from the same language and conventions, and the rules read
nothing but the :class:`~repodaily.models.AnalysisInput` they are sent.

Workers are spawned, as fresh interpreters (a fork of a process whose threads
may hold locks is not safe; spawned workers are the run's own children, so
their CPU time is the run's in any accounting), ignore Ctrl-C (the run's
process decides what an interrupt stops, and a worker's traceback would only be
noise), are shut down with the analyzer and end with the run's process
even when it is killed. A pool that breaks (a worker
killed) is given up and the commit judged in the calling process: nothing is lost.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import threading
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from repodaily.analyzers.heuristic import HeuristicAnalyzer
    from repodaily.models import Analysis, AnalysisInput

__all__ = ["INLINE_FIRST", "Workers", "default_processes"]

#: Commits a run judges in its own process before it starts workers: a few days of a busy repository.
INLINE_FIRST = 256


#: Workers a run starts unless told otherwise: past about this many, the run's own process (reading git,
#: writing reports) is what bounds the pace, and each worker holds its own copy of the rules (about 50 MiB).
MOST_BY_DEFAULT = 3


def default_processes() -> int:
    """One worker fewer than the CPUs this process may use (the run's own process reads git and writes reports).

    At most :data:`MOST_BY_DEFAULT`: a container may be shown a host's CPUs it is not given.
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(max(usable - 1, 0), MOST_BY_DEFAULT)


class Workers:
    """Up to ``processes`` workers for one analyzer's language and conventions, started when a run grows long."""

    def __init__(self, processes: int, language: str, conventions: Mapping[str, Any] | None) -> None:
        self.processes = processes
        # Sent with every commit; JSON text, so a worker's cache key is the conventions' content.
        self._spec = (language, json.dumps(conventions, sort_keys=True) if conventions else "")
        self._judged = 0
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False

    async def judge(self, analyzer: HeuristicAnalyzer, item: AnalysisInput) -> Analysis:
        """``analyzer``'s analysis of ``item``, from a worker once the run is long, else judged here."""
        self._judged += 1
        pool = self._started()
        if pool is None:
            return analyzer.analyze_sync(item)
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, _judge, self._spec, item)
        except BrokenProcessPool:
            self._broken = True  # a worker died (killed, out of memory): the rest of the run is judged here
            self.close()
            return analyzer.analyze_sync(item)

    def _started(self) -> ProcessPoolExecutor | None:
        if self._pool is None and not self._broken and self.processes > 0 and self._judged > INLINE_FIRST:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.processes, mp_context=context, initializer=_start_worker)
        return self._pool

    def close(self) -> None:
        """Stop the workers (they finish nothing more); a later long run starts new ones."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _start_worker() -> None:
    """A worker ignores Ctrl-C (the run's own process decides what an interrupt stops) and ends with that process.

    A run killed outright (``kill -9``, the out-of-memory killer, a job's time
    limit) cannot shut its workers down, and a worker waiting for its next commit
    would wait forever; a thread of its own waits for the run's end instead.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), daemon=True, name="end-with-run").start()


def _end_with(parent: BaseProcess) -> None:
    parent.join()
    os._exit(1)


@lru_cache(maxsize=8)
def _analyzer(language: str, conventions: str) -> HeuristicAnalyzer:
    """The worker's analyzer for one language and conventions, built once (loading the rules is the costly part)."""
    from repodaily.analyzers.heuristic import HeuristicAnalyzer

    return HeuristicAnalyzer(language=language, conventions=json.loads(conventions) if conventions else None)


def _judge(spec: tuple[str, str], item: AnalysisInput) -> Analysis:
    return _analyzer(*spec).analyze_sync(item)
