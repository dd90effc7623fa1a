"""Commits analysed as a report analyses them, and whole reports of a day, through the real pipeline and store.

Shared by the tests of the heuristic's texts, on repositories built by git and on
the real vLLM history alike, so both read exactly what a report would show, and
by the tests that make a configured repository's report of one day.
"""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

from repodaily.analyzers.base import Analyzer
from repodaily.config import Config, command_line_repo, load_config
from repodaily.models import Analysis, Commit, DailyReport
from repodaily.pipeline import Pipeline
from repodaily.store import Store


def analysed_days(
    location: str, name: str, days: list[date], language: str, cache: Path
) -> list[tuple[Commit, Analysis]]:
    """Every commit of ``days`` (newest first within a day) with the heuristic analyzer's analysis in ``language``."""
    overrides = {"language": language, "cache_dir": str(cache), "analyzer": {"name": "heuristic"}}
    config = load_config(None, environ={}, overrides=overrides)
    with Store(config.cache_path) as store:
        pipeline = Pipeline(config, store)
        source, _, _ = pipeline.open_source(command_line_repo(source="git", name=name, path=location))
        commits = [commit for _, found in pipeline.collect(source, days) for commit in found]
        analyses, _ = asyncio.run(pipeline.analyze(name, commits))
    return [(commit, analyses[commit.sha]) for commit in commits]


def day_report(config: Config, day: date, analyzer: Analyzer | None = None) -> DailyReport:
    """The first configured repository's report of ``day``, by ``analyzer`` or the configured one."""

    async def run(store: Store) -> DailyReport:
        pipeline = Pipeline(config, store, analyzer=analyzer)
        try:
            (report,) = await pipeline.reports_for(config.repos[0], [day])
        finally:
            await pipeline.aclose()
        return report

    with Store(config.cache_path) as store:
        return asyncio.run(run(store))
