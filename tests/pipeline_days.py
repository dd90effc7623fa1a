"""Commits analysed as a report analyses them: collected by the pipeline's git source, judged by its analyzer.

Shared by the tests of the heuristic's texts, on repositories built by git and on
the real vLLM history alike, so both read exactly what a report would show.
"""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

from repodaily.config import command_line_repo, load_config
from repodaily.models import Analysis, Commit
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
