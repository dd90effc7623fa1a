"""Run an evaluation: find the labelled commits, analyse them as reports do, score them.

The commits are collected by the pipeline's own step over the labelled days'
span, streamed day by day (:meth:`Pipeline.collect`, so memory holds one day of
diffs and the labelled commits, not the span), and analysed by
:meth:`Pipeline.analyze`, day by day with each day's repository context, with the
configured analyzer, context budget and store cache. So a figure here describes
exactly the analyses a report would show, and a second evaluation of the same set
costs no analysis. A commit whose label carries its pull request is analysed with
it (:func:`_with_pull_requests`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import date
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from repodaily.config import RepoConfig
from repodaily.errors import ConfigError
from repodaily.evaluation.labels import GoldLabel
from repodaily.evaluation.metrics import (
    Disagreement,
    JudgedCommit,
    Scores,
    disagreements,
    score,
)
from repodaily.models import Analysis, AnalysisStatus, Commit, PullRequest, RepositoryContext
from repodaily.pipeline import Pipeline
from repodaily.plan import resolve_days

__all__ = ["EvalRun", "evaluate"]


class EvalRun(BaseModel):
    """Everything one evaluation found: what was scored, what was not, and the figures."""

    labels_file: str
    repo: str
    branch: str
    analyzer: str = Field(description="Fingerprint of the analyzer scored.")
    timezone: str
    first_day: date
    last_day: date
    labelled: int
    missing: list[str] = Field(description="Labelled SHAs not on the branch's first-parent line in the span.")
    degraded: int = Field(description="Scored analyses that fell back or failed instead of the configured analyzer's.")
    cached: int = Field(description="Scored analyses served from the store.")
    scores: Scores
    disagreements: list[Disagreement]


def _match(
    labels: Sequence[GoldLabel], commits: Sequence[Commit], labels_file: str
) -> tuple[list[tuple[GoldLabel, Commit]], list[str]]:
    """Pair each label with the one commit its SHA (or prefix) names; the rest are missing."""
    pairs: list[tuple[GoldLabel, Commit]] = []
    missing: list[str] = []
    labelled_by: dict[str, str] = {}
    for label in labels:
        candidates = [c for c in commits if c.sha.startswith(label.sha)]
        if not candidates:
            missing.append(label.sha)
            continue
        if len(candidates) > 1:
            raise ConfigError(f"{labels_file}: sha {label.sha} is ambiguous: it begins {len(candidates)} commits")
        commit = candidates[0]
        if commit.sha in labelled_by:
            raise ConfigError(f"{labels_file}: sha {label.sha} and {labelled_by[commit.sha]} label the same commit")
        labelled_by[commit.sha] = label.sha
        pairs.append((label, commit))
    return pairs, missing


async def _with_pull_requests(
    pipeline: Pipeline,
    repo: str,
    commits: Sequence[Commit],
    repository: RepositoryContext | None,
    pulls: Mapping[str, PullRequest],
) -> dict[str, Analysis]:
    """Analyses of ``commits``, each input carrying the pull request its label gives.

    :meth:`Pipeline.analyze` takes commits alone, so each input is planned as it
    plans one (its ``_input``: the analyzer's budget, parts and path table) and the
    pull request attached. They are made afresh, not cached, and an analyzer's
    failure is the evaluation's: a labelled set small enough to carry pull requests
    by hand is cheap to judge again.
    """
    analyzer, _ = pipeline.analyzers_for(repo)
    semaphore = asyncio.Semaphore(pipeline.config.analyzer.concurrency)

    async def one(commit: Commit) -> Analysis:
        item = pipeline._input(repo, commit, analyzer, repository)
        async with semaphore:
            return await analyzer.analyze(item.model_copy(update={"pull_request": pulls[commit.sha]}))

    judged = await asyncio.gather(*(one(commit) for commit in commits))
    return {commit.sha: analysis for commit, analysis in zip(commits, judged, strict=True)}


async def evaluate(
    pipeline: Pipeline, repository: RepoConfig, labels: Sequence[GoldLabel], *, labels_file: str
) -> EvalRun:
    """Score ``pipeline``'s analyzer on the labelled commits of ``repository``, collected as reports collect."""
    config = pipeline.config
    source, named, opened = pipeline.open_source(repository)
    assert named.name is not None
    repo = named.name
    first_day, last_day = min(label.date for label in labels), max(label.date for label in labels)
    try:  # the days a report could be asked for: none before 1970, in the future or past the longest backfill
        days = resolve_days(
            day=None, since=first_day.isoformat(), until=last_day.isoformat(), tz=ZoneInfo(config.timezone)
        )
    except ConfigError as exc:
        raise ConfigError(f"{labels_file}: labelled days {first_day}..{last_day}: {exc}") from None
    prefixes = tuple(label.sha for label in labels)
    # The labelled commits by the repository context the analyzer is told on their day:
    # days that tell the same (most do) are analysed together, as concurrently as one day.
    told: dict[str, tuple[RepositoryContext | None, list[Commit]]] = {}
    for _, commits in pipeline.collect(source, days):
        if chosen := [commit for commit in commits if commit.sha.startswith(prefixes)]:
            context = pipeline.repository_context(named, source, commits)
            told.setdefault(context.model_dump_json() if context else "", (context, []))[1].extend(chosen)
    found, missing = _match(labels, [commit for _, chosen in told.values() for commit in chosen], labels_file)
    matched = {commit.sha for _, commit in found}
    pulls = {commit.sha: label.pull_request for label, commit in found if label.pull_request is not None}
    analyses: dict[str, Analysis] = {}
    cached: set[str] = set()
    try:
        if not found:
            # Nothing to score is a wrong repository, branch or timezone, not a perfect score.
            raise ConfigError(
                f"{labels_file}: none of its {len(labels)} labelled commits is on {opened.branch} (first parent) "
                f"between {first_day} and {last_day} in {config.timezone}: check --repo, --branch and --timezone"
            )
        for context, chosen in told.values():
            group = [commit for commit in chosen if commit.sha in matched and commit.sha not in pulls]
            group_analyses, group_cached = await pipeline.analyze(repo, group, repository=context)
            analyses.update(group_analyses)
            cached |= group_cached
            pulled = [commit for commit in chosen if commit.sha in pulls]
            analyses.update(await _with_pull_requests(pipeline, repo, pulled, context, pulls))
    finally:
        await pipeline.aclose()
    judged = [JudgedCommit(sha=c.sha, title=c.subject, label=label, analysis=analyses[c.sha]) for label, c in found]
    return EvalRun(
        labels_file=labels_file,
        repo=repo,
        branch=opened.branch,
        analyzer=pipeline.analyzers_for(repo)[0].fingerprint,
        timezone=config.timezone,
        first_day=first_day,
        last_day=last_day,
        labelled=len(labels),
        missing=missing,
        degraded=sum(1 for item in judged if item.analysis.status != AnalysisStatus.ok),
        cached=len(cached),
        scores=score(judged),
        disagreements=disagreements(judged),
    )
