"""`run` over many repositories: several at once, git off the event loop, one bound on analyses, none leaking.

The sources here are plugins of this test module; each blocks in the way the
property under test would expose: a source whose ``open`` waits for another
repository's proves two are read at once, and on worker threads (a blocked event
loop would never start the second). The analyzers are the real heuristic's,
or one that counts how many commits are in analysis at the same moment.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.config import Config
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, AnalysisInput, Commit, FileChange
from repodaily.pipeline import Pipeline
from repodaily.plugins import PluginSpec, registry
from repodaily.sources.base import Opened, SourceContext, Window
from repodaily.sources.message import parse_message
from repodaily.store import Store

DAY = date(2026, 2, 9)
WAIT_S = 10.0
_PATCH = "@@ -1 +1,3 @@\n-a\n+b\n+c\n+d"


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    commits: int = 3


class _OneDaySource:
    """A repository with ``commits`` commits at noon of :data:`DAY`; ``open`` waits at :attr:`gate` when set."""

    gate: threading.Barrier | None = None

    def __init__(self, *, settings: _Settings, context: SourceContext) -> None:
        self.settings = settings

    def open(self) -> Opened:
        if self.gate is not None:
            self.gate.wait()  # BrokenBarrierError unless another repository is opened within its timeout
        return Opened(name=None, branch="main")

    def collect_days(self, windows: Sequence[Window]) -> Iterator[tuple[int, list[Commit]]]:
        noon = datetime.combine(DAY, time(12), tzinfo=UTC)
        commits = [self._commit(noon - timedelta(minutes=n), n) for n in range(self.settings.commits)]
        for index, (start, end) in enumerate(windows):
            yield index, [c for c in commits if start <= c.committed_at <= end]

    @staticmethod
    def _commit(when: datetime, n: int) -> Commit:
        return Commit(
            **parse_message(f"Fix the parser's handling of case {n}").message_parts(),
            sha=f"{n + 1:x}" * 40,
            parents=["f" * 40],
            author_name="Example",
            authored_at=when,
            committed_at=when,
            files=[
                FileChange(path=f"src/part_{n}.py", additions=3, deletions=1, patch="@@ -1 +1,3 @@\n-a\n+b\n+c\n+d")
            ],
        )


class _CountingAnalyzer(HeuristicAnalyzer):
    """The heuristic, holding each commit a moment and counting how many are held at once."""

    in_flight = 0
    most = 0

    async def analyze(self, item: AnalysisInput) -> Analysis:
        type(self).in_flight += 1
        type(self).most = max(type(self).most, type(self).in_flight)
        try:
            await asyncio.sleep(0.02)
            return await super().analyze(item)
        finally:
            type(self).in_flight -= 1


@pytest.fixture
def one_day_source() -> Iterator[type[_OneDaySource]]:
    registry().add("source", PluginSpec("test-one-day", _OneDaySource, settings=_Settings))
    yield _OneDaySource
    _OneDaySource.gate = None
    registry().remove_plugin("source:test-one-day")


def _config(tmp_path: Path, repos: int, *, at_once: int, commits_at_once: int = 32) -> Config:
    return Config.model_validate(
        {
            "timezone": "UTC",
            "cache_dir": str(tmp_path / "cache"),
            "output": {"dir": str(tmp_path / "reports")},
            "analyzer": {"name": "heuristic", "concurrency": commits_at_once},
            "run": {"repositories": at_once},
            "repos": [{"name": f"owner/repo-{n:03d}", "source": "test-one-day"} for n in range(repos)],
        }
    )


def _run(config: Config, **pipeline: object) -> list[str | None]:
    """Each repository's error, in the configured order (None: all its reports written)."""
    with Store(config.cache_path) as store:
        summary = asyncio.run(Pipeline(config, store, **pipeline).run(config.repos, [DAY]))  # type: ignore[arg-type]
    return [None if o.error is None else str(o.error) for o in summary.outcomes]


@pytest.mark.parametrize("at_once", [2, 8])
def test_repositories_are_read_at_once_on_worker_threads(
    one_day_source: type[_OneDaySource], tmp_path: Path, at_once: int
) -> None:
    one_day_source.gate = threading.Barrier(2, timeout=WAIT_S)
    config = _config(tmp_path, 2, at_once=at_once)
    assert _run(config) == [None, None]
    assert len(list((tmp_path / "reports").rglob("*.md"))) == 2


def test_one_repository_at_a_time_is_what_the_setting_says(one_day_source: type[_OneDaySource], tmp_path: Path) -> None:
    one_day_source.gate = threading.Barrier(2, timeout=1.0)  # long enough to fail; no second comes while it waits
    errors = _run(_config(tmp_path, 2, at_once=1))
    assert errors[0] is not None  # the first repository waited alone for a second that never came
    assert errors[1] is not None


@pytest.mark.parametrize("commits_at_once", [2, 5])
def test_commits_in_analysis_are_bounded_across_repositories(
    one_day_source: type[_OneDaySource], tmp_path: Path, commits_at_once: int
) -> None:
    _CountingAnalyzer.in_flight = _CountingAnalyzer.most = 0
    config = _config(tmp_path, 4, at_once=4, commits_at_once=commits_at_once)
    assert _run(config, analyzer=_CountingAnalyzer()) == [None] * 4
    # Four repositories of three commits each: twelve could be held at once without the shared bound.
    assert _CountingAnalyzer.most == commits_at_once


def _open_descriptors() -> set[str]:
    """Each open descriptor with what it points at (the directory listing's own is gone when read)."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            found.add(f"{fd}:{os.readlink(f'/proc/self/fd/{fd}')}")
        except FileNotFoundError:
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors through /proc")
def test_a_hundred_repositories_for_a_week_leave_no_descriptor_open(tmp_path: Path) -> None:
    """The soak of `bench/soak_bench.py` in small: 100 configured repositories (over 4 clones) × 7 days."""
    days = [DAY - timedelta(days=n) for n in range(7)]
    clones = []
    for n in range(4):
        builder = RepoBuilder(tmp_path / f"repo-{n}")
        for day in days:
            builder.commit(
                f"Add part {day}", when=datetime.combine(day, time(12), tzinfo=UTC), files={"a.py": f"{day}"}
            )
        clones.append(str(builder.path))
    config = Config.model_validate(
        {
            "timezone": "UTC",
            "cache_dir": str(tmp_path / "cache"),
            "output": {"dir": str(tmp_path / "reports")},
            "analyzer": {"name": "heuristic"},
            "repos": [{"name": f"owner/repo-{n:03d}", "path": clones[n % 4]} for n in range(100)],
        }
    )
    before = _open_descriptors()
    with Store(config.cache_path) as store:
        summary = asyncio.run(Pipeline(config, store).run(config.repos, days))
    assert [o.error for o in summary.outcomes] == [None] * 100
    assert len(list((tmp_path / "reports").rglob("*.md"))) == 700
    assert _open_descriptors() - before == set()
