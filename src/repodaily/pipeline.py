"""The pipeline: source → context → analyze (cached in the store) → digest → render → publish.

Each stage is a function of its own module with typed inputs and outputs; this
module only wires them together, owns the cache and the run accounting, and
never lets one commit's failure cost the report.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from repodaily.analyzers import Analyzer, create_analyzer
from repodaily.analyzers.heuristic import load_conventions
from repodaily.config import Config, RepoConfig
from repodaily.context.budget import build_input
from repodaily.digest import build_report
from repodaily.errors import AnalysisError, AuthError, ConfigError, RepodailyError
from repodaily.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    Commit,
    DailyReport,
    Highlight,
    Importance,
    RunInfo,
    Usage,
)
from repodaily.plan import day_window
from repodaily.publish.files import ReportFile, write_reports
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.render import render_json, render_markdown
from repodaily.sources.git import collect_commits, infer_repo_name, open_repository
from repodaily.store import Store

log = logging.getLogger(__name__)


class ProgressSink(Protocol):
    """Where long work reports how far it got (the CLI draws a progress bar)."""

    def begin(self, label: str, total: int) -> None: ...

    def advance(self) -> None: ...


class _NoProgress:
    def begin(self, label: str, total: int) -> None:
        pass

    def advance(self) -> None:
        pass


@dataclass
class RepoOutcome:
    repo: str
    reports: list[DailyReport] = field(default_factory=list)
    files: list[ReportFile] = field(default_factory=list)
    error: RepodailyError | None = None


@dataclass
class RunSummary:
    outcomes: list[RepoOutcome] = field(default_factory=list)

    @property
    def degraded_commits(self) -> int:
        return sum(r.stats.degraded for o in self.outcomes for r in o.reports)

    @property
    def failed_repos(self) -> list[RepoOutcome]:
        return [o for o in self.outcomes if o.error is not None]


def _named(repo: RepoConfig, remote_url: str | None) -> RepoConfig:
    """Fill in owner/name from the URL, or a local clone's origin, when the config left it out."""
    if repo.name:
        return repo
    name = infer_repo_name(repo.url or remote_url or "")
    if not name:
        raise ConfigError(f"cannot tell owner/repo for {repo.location!r}; give it with --name or `name =`")
    return repo.model_copy(update={"name": name})


def _sum_usage(analyses: Iterable[Analysis]) -> Usage:
    total = Usage()
    for analysis in analyses:
        total.calls += analysis.usage.calls
        total.prompt_tokens += analysis.usage.prompt_tokens
        total.completion_tokens += analysis.usage.completion_tokens
        total.seconds += analysis.usage.seconds
    return total


def _main_model(analyses: Iterable[Analysis]) -> str | None:
    """The model that answered most of the day's commits, for the footer."""
    models = Counter(a.model for a in analyses if a.model)
    return models.most_common(1)[0][0] if models else None


def _web_url(repo: RepoConfig) -> str | None:
    if repo.web_url is not None:
        return repo.web_url or None
    return f"https://github.com/{repo.name}"


def _failed_analysis(commit: Commit, fingerprint: str, reason: str, template: Analysis | None) -> Analysis:
    """What a commit gets when its analyzer failed: the fallback's verdict, marked, or a bare placeholder."""
    if template is not None:
        return template.model_copy(update={"status": AnalysisStatus.fallback, "note": reason})
    return Analysis(
        type=ChangeType.chore,
        importance=Importance.medium,
        importance_reason=reason,
        one_line=commit.subject,
        coverage={"budget_tokens": 0, "tokens_sent": 0},
        analyzer=fingerprint,
        status=AnalysisStatus.failed,
        note=reason,
    )


class Pipeline:
    """Everything one invocation needs, passed in rather than found globally."""

    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        analyzer: Analyzer | None = None,
        progress: ProgressSink | None = None,
        redact: Redactor = NO_SECRETS,
    ) -> None:
        self.config = config
        self.store = store
        #: Applied to every report before it is written.
        self.redact = redact
        self._given = analyzer
        self.analyzer = analyzer or self._create(None)
        self.fallback = self._fallback_for(self.analyzer, None)
        #: Set when the endpoint refused our credentials: no further commit asks it.
        self.refused: AuthError | None = None
        # Repositories with conventions get analyzers of their own, one pair per distinct table.
        self._with_conventions: dict[str, tuple[Analyzer, Analyzer]] = {}
        self.progress: ProgressSink = progress or _NoProgress()

    # -- analyzers, per repository

    def _create(self, conventions: dict[str, Any] | None) -> Analyzer:
        name = self.config.analyzer_name
        settings: dict[str, Any] = {"conventions": conventions} if conventions else {}
        if name == "llm":
            settings["settings"] = self.config.llm_settings()
        return create_analyzer(name, language=self.config.language, **settings)

    def _fallback_for(self, analyzer: Analyzer, conventions: dict[str, Any] | None) -> Analyzer:
        if analyzer.name == "heuristic":
            return analyzer
        settings: dict[str, Any] = {"conventions": conventions} if conventions else {}
        return create_analyzer("heuristic", language=self.config.language, **settings)

    def analyzers_for(self, repo: str, conventions: str | dict[str, Any] | None = None) -> tuple[Analyzer, Analyzer]:
        """The analyzer and the fallback for ``repo``, shaped by its conventions.

        ``conventions`` defaults to those of the configured repository named ``repo``.
        Both analyzers get the same conventions, so they fingerprint (and cache)
        apart from a repository's without. An analyzer passed to the pipeline
        serves every repository as it is; a heuristic fallback beside it still
        follows the conventions.
        """
        if conventions is None:
            conventions = next((r.conventions for r in self.config.repos if r.name == repo), None)
        if conventions is None:
            return self.analyzer, self.fallback
        table = load_conventions(conventions)
        key = json.dumps(table, sort_keys=True, default=str)
        if key not in self._with_conventions:
            analyzer = self._given or self._create(table)
            self._with_conventions[key] = (analyzer, self._fallback_for(analyzer, table))
        return self._with_conventions[key]

    async def aclose(self) -> None:
        """Release every analyzer this pipeline made or was given."""
        pairs = [(self.analyzer, self.fallback), *self._with_conventions.values()]
        for analyzer in {id(a): a for pair in pairs for a in pair}.values():
            await analyzer.aclose()

    # -- analyze, with the cache in front

    async def _analyze_one(
        self, repo: str, commit: Commit, analyzers: tuple[Analyzer, Analyzer], semaphore: asyncio.Semaphore
    ) -> Analysis:
        analyzer, fallback_analyzer = analyzers
        item = build_input(repo, commit, budget_tokens=analyzer.context_budget(self.config.context.budget_tokens))
        async with semaphore:
            try:
                if self.refused is not None:
                    raise self.refused
                analysis = await analyzer.analyze(item)
            except Exception as exc:  # one commit's failure must not cost the report
                reason = (
                    f"{type(exc).__name__}: {exc}" if isinstance(exc, RepodailyError) else f"internal error: {exc!r}"
                )
                if isinstance(exc, AuthError):
                    if self.refused is None:
                        log.error("the analysis endpoint refused the credentials; no further commit asks it: %s", exc)
                    self.refused = exc
                else:
                    log.warning("analysis of %s failed: %s", commit.short_sha, reason)
                fallback = None
                if fallback_analyzer is not analyzer:
                    fallback = await fallback_analyzer.analyze(item)
                analysis = _failed_analysis(commit, analyzer.fingerprint, reason, fallback)
        if analysis.status == AnalysisStatus.ok:
            self.store.put_analysis(repo, commit.sha, analysis)
        self.progress.advance()
        return analysis

    async def analyze(
        self, repo: str, commits: Sequence[Commit], *, conventions: str | dict[str, Any] | None = None
    ) -> tuple[dict[str, Analysis], set[str]]:
        """Analyses for ``commits``, and the SHAs whose analysis came from the cache.

        ``conventions`` as for :meth:`analyzers_for`: by default the configured repository's.
        """
        analyzers = self.analyzers_for(repo, conventions)
        cached = self.store.get_analyses(repo, (c.sha for c in commits), analyzers[0].fingerprint)
        todo = [c for c in commits if c.sha not in cached]
        self.progress.begin(f"analysing {repo}", len(todo))
        semaphore = asyncio.Semaphore(self.config.analyzer.concurrency)
        fresh = await asyncio.gather(*(self._analyze_one(repo, c, analyzers, semaphore) for c in todo))
        return {**cached, **{c.sha: a for c, a in zip(todo, fresh, strict=True)}}, set(cached)

    # -- one repository, many days

    async def reports_for(self, repo: RepoConfig, days: Sequence[date]) -> list[DailyReport]:
        """Collect the whole span once, then split it into one report per day."""
        tz = self.config.tz
        started = time.monotonic()
        source = open_repository(repo.location, cache_dir=self.config.cache_path, branch=repo.branch)
        repo = _named(repo, source.remote_url)
        assert repo.name is not None
        first, last = day_window(min(days), tz), day_window(max(days), tz)
        commits = collect_commits(source, first.start, last.end, max_patch_bytes=self.config.context.max_patch_bytes)
        by_day: dict[date, list[Commit]] = defaultdict(list)
        for commit in commits:
            by_day[commit.committed_at.astimezone(tz).date()].append(commit)
        wanted = [c for day in days for c in by_day.get(day, [])]
        analyses, cached = await self.analyze(repo.name, wanted, conventions=repo.conventions)
        analyzer = self.analyzers_for(repo.name, repo.conventions)[0]
        reports = []
        for day in days:
            day_commits = by_day.get(day, [])
            day_analyses = {c.sha: analyses[c.sha] for c in day_commits}
            usage = _sum_usage(a for sha, a in day_analyses.items() if sha not in cached)
            highlights = await self._highlights(analyzer, repo.name, day, day_commits, day_analyses, usage)
            run = RunInfo(
                analyzer=analyzer.fingerprint,
                model=_main_model(day_analyses.values()),
                prompt_version=analyzer.prompt_version,
                calls=usage.calls,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                seconds=round(time.monotonic() - started, 3),
                degraded=sum(1 for a in day_analyses.values() if a.status != AnalysisStatus.ok),
                cached=sum(1 for c in day_commits if c.sha in cached),
            )
            report = build_report(
                repo=repo.name,
                repo_url=_web_url(repo),
                day=day,
                timezone=self.config.timezone,
                language=self.config.language,
                commits=day_commits,
                analyses=day_analyses,
                run=run,
                highlights=highlights,
            )
            reports.append(report)
        return reports

    async def _highlights(
        self,
        analyzer: Analyzer,
        repo: str,
        day: date,
        commits: Sequence[Commit],
        analyses: dict[str, Analysis],
        usage: Usage,
    ) -> list[Highlight]:
        """The day's highlights, from the store when the same analyses were summarised before.

        A failure costs only the highlights, never the report.
        """
        if not (analyzer.writes_highlights and self.config.llm.highlights) or not commits or self.refused is not None:
            return []
        items = [(c.sha, c.subject, analyses[c.sha]) for c in commits]
        key = hashlib.sha256(
            json.dumps([analyzer.fingerprint, [(sha, a.model_dump(mode="json")) for sha, _, a in items]]).encode()
        ).hexdigest()
        stored = self.store.get_highlights(repo, day, key)
        if stored is not None:
            return stored
        try:
            highlights = await analyzer.highlights(items, usage)
        except AnalysisError as exc:
            log.warning("highlights of %s %s failed: %s", repo, day, exc)
            return []
        self.store.put_highlights(repo, day, key, highlights)
        return highlights

    # -- render and publish

    def render(self, report: DailyReport) -> dict[str, str]:
        templates = Path(self.config.templates_dir).expanduser() if self.config.templates_dir else None
        rendered: dict[str, str] = {}
        for fmt in self.config.output.formats:
            rendered[fmt] = render_markdown(report, templates_dir=templates) if fmt == "md" else render_json(report)
        return rendered

    def publish(self, report: DailyReport, *, dry_run: bool = False) -> list[ReportFile]:
        return write_reports(report, self.render(report), self.config.output, dry_run=dry_run, redact=self.redact)

    async def run(self, repos: Sequence[RepoConfig], days: Sequence[date], *, dry_run: bool = False) -> RunSummary:
        """Every repository for every day; a repository that fails does not stop the others."""
        summary = RunSummary()
        run_id = self.store.start_run("run")
        for repo in repos:
            outcome = RepoOutcome(repo=repo.name or repo.location)
            try:
                outcome.reports = await self.reports_for(repo, days)
                for report in outcome.reports:
                    files = self.publish(report, dry_run=dry_run)
                    outcome.files.extend(files)
                    self.store.record_report(
                        run_id,
                        report.repo,
                        report.date,
                        report.stats.total,
                        report.stats.degraded,
                        [str(f.path) for f in files],
                    )
            except RepodailyError as exc:
                outcome.error = exc
            summary.outcomes.append(outcome)
        self.store.finish_run(
            run_id,
            {
                "repos": len(repos),
                "days": len(days),
                "reports": sum(len(o.reports) for o in summary.outcomes),
                "failed_repos": [o.repo for o in summary.failed_repos],
                "degraded_commits": summary.degraded_commits,
                **{
                    key: sum(getattr(r.run, key) for o in summary.outcomes for r in o.reports)
                    for key in ("calls", "prompt_tokens", "completion_tokens", "cached")
                },
            },
        )
        await self.aclose()
        return summary
