"""The pipeline: collect → context → analyze (the store's cache in front) → digest → render → deliver.

Each step is a method here with typed hand-offs: a source's
``(day, list[Commit])``, ``dict[sha, Analysis]``, a
:class:`~repodaily.models.DailyReport`, a list of
:class:`~repodaily.render.base.Artefact`, a list of
:class:`~repodaily.publish.base.Delivery`. Sources, analyzers, renderers and
publishers are plugins made through the registry (:mod:`repodaily.plugins`) by
the names the config gives; this module knows them only by their protocols. It
owns the cache and the run accounting, and never lets one commit's failure cost
the report nor one repository's failure cost the others.

Context sources (:mod:`repodaily.context.base`) are plugins too: every one
registered is made once per run, with the store as its cache, and the first that
serves a repository tells each of its days which pull request each commit came
from and which releases were published. The inputs carry the pull requests, the
report the releases and whether the context was read whole; an analysis is
cached under the analyzer's key for its input (:meth:`Analyzer.analysis_key`),
which says whether (and which) pull request it carried.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

from repodaily.ahead import read_ahead
from repodaily.analyzers.base import Analyzer
from repodaily.config import Config, RepoConfig, is_repo_name
from repodaily.context.base import ContextSource, ContextSourceContext, DayContext
from repodaily.context.budget import build_input
from repodaily.context.repository import describe_repository, primary_language
from repodaily.delivery import Target, TargetResult, Unusable, deliver
from repodaily.digest import build_report
from repodaily.errors import AnalysisError, ConfigError, RepodailyError, SourceError
from repodaily.home import expand_home
from repodaily.models import (
    Analysis,
    AnalysisInput,
    AnalysisStatus,
    ChangeType,
    Commit,
    CoverageReceipt,
    DailyReport,
    Highlight,
    Importance,
    Provenance,
    PullRequest,
    Release,
    RepositoryContext,
    RunInfo,
    Stats,
    TitleTag,
    Usage,
    Verdict,
)
from repodaily.plan import day_window
from repodaily.plugins import registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.render.base import Artefact, Renderer
from repodaily.sources.base import Opened, Source, SourceContext, TagSource, TreeSource
from repodaily.store import Store

log = logging.getLogger(__name__)


class ProgressSink(Protocol):
    """Where long work reports how far it got (the CLI draws a bar per piece of work under way).

    Several pieces may be under way at once (repositories of a run), each known by its label.
    """

    def begin(self, label: str, total: int) -> None: ...

    def advance(self, label: str) -> None: ...


class _NoProgress:
    def begin(self, label: str, total: int) -> None:
        pass

    def advance(self, label: str) -> None:
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
    #: Each report's result at each target, in the order they happened.
    results: list[TargetResult] = field(default_factory=list)
    #: Why the repository failed: one of our errors, or anything else raised while it was processed.
    error: Exception | None = None

    @property
    def deliveries(self) -> list[Delivery]:
        return [result.delivery for result in self.results if result.delivery is not None]

    @property
    def failed_deliveries(self) -> list[TargetResult]:
        return [result for result in self.results if result.status == "failed"]


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

    @property
    def failed_deliveries(self) -> list[TargetResult]:
        return [result for o in self.outcomes for result in o.failed_deliveries]


@dataclass(frozen=True)
class _DayRead:
    """One day of a repository, read: its commits and contexts, with the source and analyzer that serve it."""

    repo: RepoConfig
    source: Source
    analyzer: Analyzer
    day: date
    commits: list[Commit]
    repository: RepositoryContext | None
    context: DayContext | None


@dataclass(frozen=True)
class _Delivering:
    """How this run delivers: for real or not, past the ledger or not, and who hears of each result."""

    dry_run: bool
    force: bool
    on_result: Callable[[TargetResult, ReportRecord], None] | None
    one_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)


def say_failed_analysis(short_sha: str, exc: Exception) -> str:
    """Log the one line a commit's failed analysis costs, and return its reason, as the report notes it.

    The line is a warning unless the failure was said once for the run (a refused
    key, an endpoint given up on): each commit after that is the same news.
    """
    reason = f"{type(exc).__name__}: {exc}" if isinstance(exc, RepodailyError) else f"internal error: {exc!r}"
    level = logging.INFO if isinstance(exc, AnalysisError) and exc.said_once else logging.WARNING
    log.log(level, "analysis of %s failed: %s", short_sha, reason)
    return reason


def _named(repo: RepoConfig, found: str | None) -> RepoConfig:
    """Fill in owner/name from what the source found (a URL, a clone's origin) when the config left it out."""
    if repo.name:
        return repo
    if not found or not is_repo_name(found):
        # A URL, or a clone's origin, may end in anything ("../..", "a b/c"): only a real name is taken.
        seen = f" ({found!r} is not one)" if found else ""
        raise ConfigError(f"cannot tell owner/repo for {repo.label!r}{seen}; give it with --name or `name =`")
    return repo.model_copy(update={"name": found})


def _sum_usage(analyses: Iterable[Analysis]) -> Usage:
    """Every figure of the analyses' usage added up, so a figure :class:`Usage` gains is counted unasked."""
    usages = [analysis.usage for analysis in analyses]
    return Usage(**{name: sum(getattr(usage, name) for usage in usages) for name in Usage.model_fields})


def _main_model(analyses: Iterable[Analysis]) -> str | None:
    """The model that answered most of the day's commits, for the footer."""
    models = Counter(a.model for a in analyses if a.model)
    return models.most_common(1)[0][0] if models else None


def _releases(published: Sequence[Release], tags: Sequence[Release]) -> list[Release]:
    """The platform's releases, then each tag of the day no release names, oldest first."""
    named = {release.tag for release in published}
    return [*published, *(tag for tag in tags if tag.tag not in named)]


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
        # One (analyzer, fallback) pair per distinct conventions; made on first use, so a run
        # whose repositories fail before analysis never builds an HTTP client.
        self._pairs: dict[str, tuple[Analyzer, Analyzer]] = {}
        # What each repository's context holds whatever the day: built once per repository per run.
        self._described: dict[str, RepositoryContext] = {}
        # Every registered context source, made on first use and closed with the analyzers.
        self._context_sources: list[ContextSource] | None = None
        self.progress: ProgressSink = progress or _NoProgress()
        # The bound on commits in analysis, shared by every repository of a run; one per event loop.
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        # Which configured entry each repository name was read for: one entry per name in a run.
        self._entries: dict[str, RepoConfig] = {}

    # -- analyzers, per repository

    def _create(self, name: str, conventions: str | dict[str, Any] | None) -> Analyzer:
        """The analyzer plugin ``name`` with its ``[name]`` table, reading ``conventions`` as it reads them."""
        reader = registry().get("analyzer", name).conventions
        analyzer: Analyzer = registry().create(
            "analyzer",
            name,
            self.config.plugin_table(name),
            "config",
            at=f"{name}.",
            language=self.config.language,
            conventions=reader(conventions) if reader is not None and conventions is not None else None,
            budget_tokens=self.config.context.budget_tokens,
        )
        return analyzer

    def _pair(self, conventions: str | dict[str, Any] | None) -> tuple[Analyzer, Analyzer]:
        """The configured analyzer (or the one passed in) and the fallback, for repositories with ``conventions``."""
        analyzer = self._given or self._create(self.config.analyzer_name, conventions)
        fallback_name = self.config.analyzer.fallback
        if analyzer.name == fallback_name:
            return analyzer, analyzer
        return analyzer, self._create(fallback_name, conventions)

    def analyzers_for(self, repo: str, conventions: str | dict[str, Any] | None = None) -> tuple[Analyzer, Analyzer]:
        """The analyzer and the fallback for ``repo``, shaped by its conventions.

        ``conventions`` defaults to those of the configured repository named ``repo``,
        else to the shipped preset an analyzer declares for ``repo`` (an empty table
        opts out of it).
        One pair is made per distinct conventions, so repositories with the same
        share it, and both analyzers of a pair follow them (they fingerprint, and
        cache, apart from a repository's without). An analyzer passed to the
        pipeline serves every repository as it is; the fallback beside it still
        follows the conventions.
        """
        conventions = self._conventions(repo, conventions)
        key = json.dumps(conventions, sort_keys=True, default=str)
        if key not in self._pairs:
            self._pairs[key] = self._pair(conventions)
        return self._pairs[key]

    def _conventions(self, repo: str, conventions: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        """``conventions``, else the configured repository ``repo``'s, else the preset that declares ``repo``."""
        if conventions is None:
            conventions = next((r.conventions for r in self.config.repos if r.name == repo), None)
        return _declared_preset(repo) if conventions is None else conventions

    # -- the repository's context, for analyzers that read it

    def repository_context(
        self, repo: RepoConfig, source: Source, commits: Sequence[Commit]
    ) -> RepositoryContext | None:
        """What the analyzer of ``repo`` is told of it on a day of ``commits`` (newest first); None if it reads none.

        The description and title tags are the repository's, built once per run;
        the primary language is that of the tree at the day's newest commit, when
        the source can list trees, so a day's context is the same on every rerun.
        A tree that cannot be listed costs the language only, not the report.
        """
        assert repo.name is not None
        if not commits or not self.analyzers_for(repo.name, repo.conventions)[0].reads_repository:
            return None
        if repo.name not in self._described:
            tags = _title_tags(self._conventions(repo.name, repo.conventions))
            self._described[repo.name] = describe_repository(repo.name, description=repo.description, title_tags=tags)
        described = self._described[repo.name]
        if not isinstance(source, TreeSource):
            return described
        try:
            tree = source.tree_paths(commits[0].sha)
        except SourceError as exc:
            log.warning("%s: no primary language for the repository context: %s", repo.name, exc)
            return described
        return described.model_copy(update={"language": primary_language(tree)})

    # -- what a platform tells of the day: pull requests and releases

    def _contexts(self) -> list[ContextSource]:
        """Every registered context source, each made from its top-level table (``[github]``)."""
        if self._context_sources is None:
            plugins = registry()
            context = ContextSourceContext(cache=self.store, redact=self.redact)
            tables = {name: self.config.plugin_table(name) for name in plugins.names("context")}
            self._context_sources = [
                plugins.create("context", name, table, "config", at=f"{name}.", context=context)
                for name, table in tables.items()
            ]
        return self._context_sources

    async def day_context(self, repo: RepoConfig, day: date, commits: Sequence[Commit]) -> DayContext | None:
        """What the first context source that serves ``repo`` tells of its ``day``; None when none serves it.

        A source that fails all the same costs the context, never the report: the
        report is made without, and says so.
        """
        assert repo.name is not None
        name, web_url = repo.name, _web_url(repo)
        source = next((s for s in self._contexts() if s.serves(name, web_url)), None)
        if source is None:
            return None
        window = day_window(day, self.config.tz)
        try:
            return await source.day(name, commits, window.start, window.end)
        except Exception as exc:  # a plugin's bug must not cost the report
            log.warning("%s %s: no pull-request context: %s", name, day, self.redact(f"{type(exc).__name__}: {exc}"))
            return DayContext(complete=False)

    def day_tags(self, repo: RepoConfig, source: Source, day: date) -> list[Release]:
        """The tags ``repo`` gained on ``day``, when its source knows tags, linked on github.com.

        A tag is what a report calls released when no platform says more; tags that
        cannot be listed cost that line only, not the report.
        """
        if not isinstance(source, TagSource):
            return []
        window = day_window(day, self.config.tz)
        try:
            tags = source.tags_between(window.start, window.end)
        except SourceError as exc:
            log.warning("%s %s: no tags: %s", repo.name, day, exc)
            return []
        web_url = _web_url(repo)
        if web_url is None or urlsplit(web_url).hostname != "github.com":
            return tags
        return [tag.model_copy(update={"url": f"{web_url}/releases/tag/{quote(tag.tag, safe='')}"}) for tag in tags]

    async def aclose(self) -> None:
        """Release every analyzer and context source this pipeline made or was given."""
        pairs = [*self._pairs.values(), *([(self._given, self._given)] if self._given else [])]
        for analyzer in {id(a): a for pair in pairs for a in pair}.values():
            await analyzer.aclose()
        for source in self._context_sources or []:
            await source.aclose()

    # -- analyze, with the cache in front

    def _input(
        self,
        repo: str,
        commit: Commit,
        analyzer: Analyzer,
        repository: RepositoryContext | None,
        pull_request: PullRequest | None = None,
    ) -> AnalysisInput:
        """What ``analyzer`` reads of ``commit``: planned for it, so its receipts say what it read."""
        item = build_input(
            repo,
            commit,
            budget_tokens=self.config.context.budget_tokens,
            max_parts=analyzer.context_parts,
            paths=analyzer.path_table,
            whole_patch=analyzer.reads_whole_patch,
            repository=repository,
        )
        return item.model_copy(update={"pull_request": pull_request}) if pull_request is not None else item

    async def _analyze_one(
        self,
        repo: str,
        commit: Commit,
        analyzers: tuple[Analyzer, Analyzer],
        repository: RepositoryContext | None,
        pull_request: PullRequest | None,
        semaphore: asyncio.Semaphore,
        label: str,
    ) -> Analysis:
        analyzer, fallback_analyzer = analyzers
        item = self._input(repo, commit, analyzer, repository, pull_request)
        async with semaphore:
            try:
                analysis = await analyzer.analyze(item)
            except Exception as exc:  # one commit's failure must not cost the report
                reason = say_failed_analysis(commit.short_sha, exc)
                fallback = None
                if fallback_analyzer is not analyzer:
                    fallback = await fallback_analyzer.analyze(
                        self._input(repo, commit, fallback_analyzer, repository, pull_request)
                    )
                spent = exc.usage if isinstance(exc, AnalysisError) and exc.usage is not None else Usage()
                analysis = _failed_analysis(commit, analyzer.fingerprint_for(repository), reason, fallback, spent)
        if analysis.status == AnalysisStatus.ok:
            self.store.put_analysis(repo, commit.sha, analysis)
        self.progress.advance(label)
        return analysis

    def _commit_slots(self) -> asyncio.Semaphore:
        """The one bound on commits in analysis at once, whichever repositories they belong to."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(self.config.analyzer.concurrency))
        return self._slots[1]

    async def analyze(
        self,
        repo: str,
        commits: Sequence[Commit],
        *,
        conventions: str | dict[str, Any] | None = None,
        repository: RepositoryContext | None = None,
        pulls: Mapping[str, PullRequest] | None = None,
    ) -> tuple[dict[str, Analysis], set[str]]:
        """Analyses for ``commits``, and the SHAs whose analysis came from the cache.

        ``conventions`` as for :meth:`analyzers_for`: by default the configured repository's.
        Every input carries ``repository`` (:meth:`repository_context`) and its commit's
        pull request from ``pulls`` (by SHA), and the cache is read under the analyzer's
        key for the two (:meth:`Analyzer.analysis_key`).
        """
        pulls = pulls or {}
        analyzers = self.analyzers_for(repo, conventions)
        cached = self._cached(repo, commits, analyzers[0], repository, pulls)
        todo = [c for c in commits if c.sha not in cached]
        label = f"analysing {repo}"
        self.progress.begin(label, len(todo))
        semaphore = self._commit_slots()
        fresh = await asyncio.gather(
            *(self._analyze_one(repo, c, analyzers, repository, pulls.get(c.sha), semaphore, label) for c in todo)
        )
        return {**cached, **{c.sha: a for c, a in zip(todo, fresh, strict=True)}}, set(cached)

    def _cached(
        self,
        repo: str,
        commits: Sequence[Commit],
        analyzer: Analyzer,
        repository: RepositoryContext | None,
        pulls: Mapping[str, PullRequest],
    ) -> dict[str, Analysis]:
        """The stored analyses of ``commits``, each read under ``analyzer``'s key for its input."""
        keys = {c.sha: analyzer.analysis_key(repository, pulls.get(c.sha)) for c in commits}
        cached: dict[str, Analysis] = {}
        for key in dict.fromkeys(keys.values()):
            cached.update(self.store.get_analyses(repo, (sha for sha, k in keys.items() if k == key), key))
        return cached

    async def pending_inputs(
        self, repo: RepoConfig, days: Sequence[date]
    ) -> AsyncIterator[tuple[date, list[AnalysisInput]]]:
        """Each of ``days`` with the inputs of its commits whose analysis is not stored, as a report would build them.

        The same days, context and cache keys as :meth:`iter_reports`, with no
        analyzer call: what a batch carries instead (:mod:`repodaily.batch`).
        """
        async for read in self._read_days(repo, days):
            assert read.repo.name is not None
            name, analyzer, repository = read.repo.name, read.analyzer, read.repository
            pulls = read.context.pulls if read.context is not None else {}
            cached = self._cached(name, read.commits, analyzer, repository, pulls)
            todo = [commit for commit in read.commits if commit.sha not in cached]
            yield read.day, [self._input(name, c, analyzer, repository, pulls.get(c.sha)) for c in todo]

    # -- collect

    def open_source(self, repo: RepoConfig) -> tuple[Source, RepoConfig, Opened]:
        """The source plugin of ``repo``, opened; ``repo`` with its name filled in from what the source found."""
        source: Source = registry().create(
            "source",
            repo.source,
            repo.source_settings,
            "config",
            at=f"repos[{repo.label}].",
            context=SourceContext(
                cache_dir=self.config.cache_path,
                max_patch_bytes=self.config.context.max_patch_bytes,
                redact=self.redact,
            ),
        )
        opened = source.open()
        return source, _named(repo, opened.name), opened

    def collect(self, source: Source, days: Sequence[date]) -> Generator[tuple[date, list[Commit]], None, None]:
        """Each of ``days`` (sorted, once each) with its commits, newest first, one day at a time.

        A consumer that stops early closes the source's stream.
        """
        ordered = sorted(set(days))
        windows = [day_window(day, self.config.tz) for day in ordered]
        stream = source.collect_days([(w.start, w.end) for w in windows])
        try:
            for index, commits in stream:
                yield ordered[index], commits
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    # -- one repository, many days

    async def iter_reports(self, repo: RepoConfig, days: Sequence[date]) -> AsyncIterator[DailyReport]:
        """One report per day of ``days``, oldest first, the next day read while one is analysed.

        At most two days are held in memory at a time: a ten-year backfill peaks
        where two days do. Reading ahead keeps git and the analysis busy at once
        when the analysis runs elsewhere (a model's server). Git's work (opening, a mirror's fetch, reading a day,
        listing a tree or tags) runs in a worker thread, so the event loop goes on
        with other repositories' analyses and deliveries meanwhile. Each report is
        kept in the store as it is made, for ``site`` and ``digest``.
        """
        async for day in read_ahead(self._read_days(repo, days)):
            tags = await asyncio.to_thread(self.day_tags, day.repo, day.source, day.day)
            report = await self.digest(day.repo, day.analyzer, day.day, day.commits, day.repository, day.context, tags)
            self.store.put_report(report)  # what `site` and `digest` read, redacted on the way in
            yield report

    def _claim(self, entry: RepoConfig, named: RepoConfig) -> None:
        """Take ``named``'s name for ``entry``; a name the source found (a URL's, a clone's origin) may be another's."""
        assert named.name is not None
        first = self._entries.setdefault(named.name, entry)
        if first != entry:
            raise ConfigError(
                f"{entry.label!r} is {named.name}, as {first.label!r} is: give each [[repos]] entry a `name`"
            )

    async def _read_days(self, repo: RepoConfig, days: Sequence[date]) -> AsyncGenerator[_DayRead, None]:
        """Each of ``days`` of ``repo`` as read before analysis: its commits, the repository's context, the day's.

        Git's work runs in a worker thread (see :meth:`iter_reports`).
        """
        source, named, _ = await asyncio.to_thread(self.open_source, repo)
        self._claim(repo, named)
        repo = named
        assert repo.name is not None
        analyzer = self.analyzers_for(repo.name, repo.conventions)[0]
        days_stream = self.collect(source, days)
        try:
            while (read := await asyncio.to_thread(next, days_stream, None)) is not None:
                day, commits = read
                repository = await asyncio.to_thread(self.repository_context, repo, source, commits)
                context = await self.day_context(repo, day, commits)
                yield _DayRead(repo, source, analyzer, day, commits, repository, context)
        finally:
            try:
                days_stream.close()
            except ValueError:  # a cancelled run left a worker thread reading it; the stream ends with that read
                pass

    async def reports_for(self, repo: RepoConfig, days: Sequence[date]) -> list[DailyReport]:
        """Every report of :meth:`iter_reports` in a list, for callers that want them all at once."""
        return [report async for report in self.iter_reports(repo, days)]

    # -- digest

    async def digest(
        self,
        repo: RepoConfig,
        analyzer: Analyzer,
        day: date,
        commits: list[Commit],
        repository: RepositoryContext | None = None,
        context: DayContext | None = None,
        tags: Sequence[Release] = (),
    ) -> DailyReport:
        """Analyse one day's commits (the cache first), told ``repository`` and ``context``, and digest them.

        The report carries the context's releases and the day's ``tags`` no release
        names, and says whether the context was read whole (``pull_context``);
        without a context source it says nothing of that.
        """
        assert repo.name is not None
        started = time.monotonic()
        analyses, cached = await self.analyze(
            repo.name,
            commits,
            conventions=repo.conventions,
            repository=repository,
            pulls=context.pulls if context is not None else None,
        )
        usage = _sum_usage(a for sha, a in analyses.items() if sha not in cached)
        highlights = await self._highlights(analyzer, repo.name, day, commits, analyses, usage)
        run = RunInfo(
            analyzer=analyzer.fingerprint_for(repository),
            model=_main_model(analyses.values()),
            prompt_version=analyzer.prompt_version,
            calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_prompt_tokens=usage.cached_prompt_tokens,
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
            pull_requests=context.pulls if context is not None else None,
            releases=_releases(context.releases if context is not None else (), tags),
            pull_context=context.complete if context is not None else None,
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
        if not analyzer.writes_highlights:
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

    # -- render and deliver

    def renderers(self) -> list[Renderer]:
        """One renderer per configured format, in the configured order."""
        templates = expand_home(self.config.templates_dir) if self.config.templates_dir else None
        return [
            registry().create("renderer", name, {}, "config", templates_dir=templates)
            for name in self.config.output.formats
        ]

    def render(self, report: DailyReport, renderers: Sequence[Renderer] | None = None) -> list[Artefact]:
        """Every artefact of ``report``, by the configured renderers unless given some."""
        return [artefact for renderer in (renderers or self.renderers()) for artefact in renderer.render(report)]

    def targets(self, *, dry_run: bool = False, days: int = 1) -> list[Target]:
        """One publisher per configured target (``[[publish]]``, or files at ``[output]``), by its ledger name.

        A target that cannot be made (its webhook variable unset or not a URL, a
        CA file missing) fails each of its deliveries with that reason; the other
        targets are still delivered.
        """
        context = PublishContext(dry_run=dry_run, redact=self.redact, days=days)
        targets = []
        for name, target in self.config.targets.items():
            try:
                publisher = registry().create(
                    "publisher", target.type, target.settings, "config", at=f"publish[{name}].", context=context
                )
            except RepodailyError as exc:
                publisher = Unusable(exc)
            targets.append(Target(name, target.type, publisher))
        return targets

    async def run(
        self,
        repos: Sequence[RepoConfig],
        days: Sequence[date],
        *,
        dry_run: bool = False,
        force: bool = False,
        on_delivery: Callable[[TargetResult, ReportRecord], None] | None = None,
    ) -> RunSummary:
        """Every repository for every day; a repository that fails does not stop the others.

        Each day's report is rendered and delivered as soon as it is made, and
        ``on_delivery`` is told of each target's result at once (the CLI prints
        the paths), so a long backfill shows its progress and a failure later in
        the span loses nothing already delivered. A target that fails does not
        stop the repository: later days are still delivered, to it too. With
        ``force``, targets get again what the ledger says they have.
        """
        renderers = self.renderers()
        targets = self.targets(dry_run=dry_run, days=len(set(days)))
        try:
            return await self._run(repos, days, renderers, targets, _Delivering(dry_run, force, on_delivery))
        finally:
            for target in targets:
                await target.publisher.aclose()
            await self.aclose()

    def _record(
        self,
        run_id: int,
        outcome: RepoOutcome,
        report: DailyReport,
        results: list[TargetResult],
        on_result: Callable[[TargetResult, ReportRecord], None] | None,
    ) -> None:
        """Keep what a run needs of a report (its figures, where it went) and tell of each target's result."""
        record = ReportRecord(report.repo, report.date, report.stats, report.run)
        outcome.reports.append(record)
        outcome.results.extend(results)
        locations = [location for result in results if result.delivery for location in result.delivery.locations]
        self.store.record_report(run_id, report.repo, report.date, report.stats.total, report.stats.degraded, locations)
        for result in results:
            if on_result is not None:
                on_result(result, record)

    async def _repository(
        self,
        run_id: int,
        repo: RepoConfig,
        days: Sequence[date],
        renderers: Sequence[Renderer],
        targets: Sequence[Target],
        delivering: _Delivering,
    ) -> RepoOutcome:
        """Every day of one repository, each delivered as soon as it is made; its failure is kept, not raised."""
        outcome = RepoOutcome(repo=repo.label)
        try:
            async for report in self.iter_reports(repo, days):
                artefacts = self.render(report, renderers)
                # One report is delivered at a time: a target such as a GitHub branch takes one write at a time.
                async with delivering.one_at_a_time:
                    results = await deliver(
                        report, artefacts, targets, self.store, dry_run=delivering.dry_run, force=delivering.force
                    )
                    self._record(run_id, outcome, report, results, delivering.on_result)
        except BrokenPipeError:
            raise  # stdout is gone (``| head``): the CLI ends quietly
        except Exception as exc:  # whatever one repository raises, the others are still written
            if not isinstance(exc, RepodailyError):
                log.debug("unexpected error in %s", outcome.repo, exc_info=exc)
            outcome.error = exc
        return outcome

    async def _run(
        self,
        repos: Sequence[RepoConfig],
        days: Sequence[date],
        renderers: Sequence[Renderer],
        targets: Sequence[Target],
        delivering: _Delivering,
    ) -> RunSummary:
        """The repositories, ``[run] repositories`` at once; the summary lists them in the order given."""
        summary = RunSummary()
        run_id = self.store.start_run("run")
        room = asyncio.Semaphore(self.config.run.repositories)

        async def one(repo: RepoConfig) -> RepoOutcome:
            async with room:
                return await self._repository(run_id, repo, days, renderers, targets, delivering)

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(repo)) for repo in repos]
        except BaseExceptionGroup as stopped:
            # Only what stops a whole run gets here (stdout gone, an interrupt): the first one says why.
            raise stopped.exceptions[0] from None
        summary.outcomes.extend(task.result() for task in tasks)
        self.store.finish_run(
            run_id,
            {
                "repos": len(repos),
                "days": len(days),
                "reports": sum(len(o.reports) for o in summary.outcomes),
                "failed_repos": [o.repo for o in summary.failed_repos],
                "failed_deliveries": [f"{r.repo} {r.day} {r.target}" for r in summary.failed_deliveries],
                "degraded_commits": summary.degraded_commits,
                "incomplete_commits": summary.incomplete_commits,
                **{
                    key: sum(getattr(r.run, key) for o in summary.outcomes for r in o.reports)
                    for key in ("calls", "prompt_tokens", "completion_tokens", "cached_prompt_tokens", "cached")
                },
            },
        )
        return summary


def _title_tags(conventions: str | dict[str, Any] | None) -> list[TitleTag]:
    """The title tags ``conventions`` define, read by the analyzer plugin that reads such conventions."""
    if conventions is None:
        return []
    for spec in registry().specs("analyzer").values():
        if spec.conventions is not None and spec.title_tags is not None:
            return spec.title_tags(spec.conventions(conventions))
    return []


def _declared_preset(repo: str) -> str | None:
    """The shipped conventions preset an analyzer plugin declares for ``repo``, if any."""
    for spec in registry().specs("analyzer").values():
        if spec.preset is not None and (name := spec.preset(repo)) is not None:
            return name
    return None
