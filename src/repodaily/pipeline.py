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
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
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
    CoverageReceipt,
    DailyReport,
    Highlight,
    Importance,
    Provenance,
    RunInfo,
    Stats,
    Usage,
    Verdict,
)
from repodaily.plan import day_window
from repodaily.publish.files import ReportFile, write_reports
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.render import render_json, render_markdown
from repodaily.sources.git import collect_days, infer_repo_name, open_repository
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


@dataclass(frozen=True)
class ReportRecord:
    """What a run keeps of one published report: its figures, not its text, so memory stays flat."""

    repo: str
    date: date
    stats: Stats
    run: RunInfo


@dataclass
class RepoOutcome:
    repo: str
    reports: list[ReportRecord] = field(default_factory=list)
    files: list[ReportFile] = field(default_factory=list)
    #: Why the repository failed: one of our errors, or anything else raised while it was processed.
    error: Exception | None = None


@dataclass
class RunSummary:
    outcomes: list[RepoOutcome] = field(default_factory=list)

    @property
    def degraded_commits(self) -> int:
        return sum(r.stats.degraded for o in self.outcomes for r in o.reports)

    @property
    def incomplete_commits(self) -> int:
        return sum(r.stats.incomplete for o in self.outcomes for r in o.reports)

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


def _failed_analysis(
    commit: Commit, fingerprint: str, reason: str, template: Analysis | None, spent: Usage
) -> Analysis:
    """What a commit gets when its analyzer failed: the fallback's verdict, marked, or a bare placeholder.

    Either carries what the failed analyzer ``spent`` (the heuristic fallback costs
    nothing), so the run's calls and tokens count every request that was sent.
    """
    if template is not None:
        return template.model_copy(update={"status": AnalysisStatus.fallback, "note": reason, "usage": spent})
    return Analysis.of(
        Verdict(type=ChangeType.chore, importance=Importance.medium, importance_reason=reason, one_line=commit.subject),
        Provenance(
            coverage=CoverageReceipt(budget_tokens=0, tokens_sent=0),
            analyzer=fingerprint,
            usage=spent,
            status=AnalysisStatus.failed,
            note=reason,
        ),
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
        budget = analyzer.context_budget(self.config.context.budget_tokens)
        item = build_input(repo, commit, budget_tokens=budget, paths=analyzer.path_table)
        async with semaphore:
            try:
                analysis = await analyzer.analyze(item)
            except Exception as exc:  # one commit's failure must not cost the report
                reason = (
                    f"{type(exc).__name__}: {exc}" if isinstance(exc, RepodailyError) else f"internal error: {exc!r}"
                )
                # The analyzer stops asking an endpoint that refused our key and says so once;
                # each commit after that is the same news.
                level = logging.INFO if isinstance(exc, AuthError) else logging.WARNING
                log.log(level, "analysis of %s failed: %s", commit.short_sha, reason)
                fallback = None
                if fallback_analyzer is not analyzer:
                    fallback = await fallback_analyzer.analyze(item)
                spent = exc.usage if isinstance(exc, AnalysisError) and exc.usage is not None else Usage()
                analysis = _failed_analysis(commit, analyzer.fingerprint, reason, fallback, spent)
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

    async def iter_reports(self, repo: RepoConfig, days: Sequence[date]) -> AsyncIterator[DailyReport]:
        """One report per day of ``days``, oldest first, each made before the next day is read.

        The span is listed once and its diffs streamed by one git process, but
        only one day is held in memory at a time: a ten-year backfill peaks where
        a single day does. A consumer that stops early closes the git stream.
        """
        tz = self.config.tz
        source = open_repository(repo.location, cache_dir=self.config.cache_path, branch=repo.branch)
        repo = _named(repo, source.remote_url)
        assert repo.name is not None
        ordered = sorted(set(days))
        windows = [day_window(day, tz) for day in ordered]
        analyzer = self.analyzers_for(repo.name, repo.conventions)[0]
        stream = collect_days(
            source, [(w.start, w.end) for w in windows], max_patch_bytes=self.config.context.max_patch_bytes
        )
        try:
            for index, commits in stream:
                yield await self._report(repo, analyzer, ordered[index], commits)
        finally:
            stream.close()

    async def reports_for(self, repo: RepoConfig, days: Sequence[date]) -> list[DailyReport]:
        """Every report of :meth:`iter_reports` in a list, for callers that want them all at once."""
        return [report async for report in self.iter_reports(repo, days)]

    async def _report(self, repo: RepoConfig, analyzer: Analyzer, day: date, commits: list[Commit]) -> DailyReport:
        """Analyse one day's commits (the cache first) and digest them into its report."""
        assert repo.name is not None
        started = time.monotonic()
        analyses, cached = await self.analyze(repo.name, commits, conventions=repo.conventions)
        usage = _sum_usage(a for sha, a in analyses.items() if sha not in cached)
        highlights = await self._highlights(analyzer, repo.name, day, commits, analyses, usage)
        run = RunInfo(
            analyzer=analyzer.fingerprint,
            model=_main_model(analyses.values()),
            prompt_version=analyzer.prompt_version,
            calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            seconds=round(time.monotonic() - started, 3),
            degraded=sum(1 for a in analyses.values() if a.status != AnalysisStatus.ok),
            cached=len(cached),
        )
        return build_report(
            repo=repo.name,
            repo_url=_web_url(repo),
            day=day,
            timezone=self.config.timezone,
            language=self.config.language,
            commits=commits,
            analyses=analyses,
            run=run,
            highlights=highlights,
        )

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

        None when no analysis of the day succeeded: there is no model judgement to
        sum up, and the endpoint that just failed every commit would only fail again.
        A failure costs only the highlights, never the report.
        """
        if not (analyzer.writes_highlights and self.config.llm.highlights):
            return []
        if not any(analyses[c.sha].status == AnalysisStatus.ok for c in commits):
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

    async def run(
        self,
        repos: Sequence[RepoConfig],
        days: Sequence[date],
        *,
        dry_run: bool = False,
        on_files: Callable[[list[ReportFile]], None] | None = None,
    ) -> RunSummary:
        """Every repository for every day; a repository that fails does not stop the others.

        Each day's report is published as soon as it is made, and ``on_files`` is
        told at once (the CLI prints the paths), so a long backfill shows its
        progress and a failure later in the span loses nothing already written.
        """
        summary = RunSummary()
        run_id = self.store.start_run("run")
        for repo in repos:
            outcome = RepoOutcome(repo=repo.name or repo.location)
            try:
                async for report in self.iter_reports(repo, days):
                    files = self.publish(report, dry_run=dry_run)
                    outcome.reports.append(ReportRecord(report.repo, report.date, report.stats, report.run))
                    outcome.files.extend(files)
                    self.store.record_report(
                        run_id,
                        report.repo,
                        report.date,
                        report.stats.total,
                        report.stats.degraded,
                        [str(f.path) for f in files],
                    )
                    if on_files is not None:
                        on_files(files)
            except Exception as exc:  # whatever one repository raises, the others are still written
                if not isinstance(exc, RepodailyError):
                    log.debug("unexpected error in %s", outcome.repo, exc_info=exc)
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
                "incomplete_commits": summary.incomplete_commits,
                **{
                    key: sum(getattr(r.run, key) for o in summary.outcomes for r in o.reports)
                    for key in ("calls", "prompt_tokens", "completion_tokens", "cached")
                },
            },
        )
        await self.aclose()
        return summary
