"""Typed data passed between the pipeline stages.

``source`` yields :class:`Commit`, ``context`` turns one into an
:class:`AnalysisInput`, an analyzer judges that (a :class:`Verdict`) and says how
(its :class:`Provenance`), together an :class:`Analysis`, and
``digest`` assembles a :class:`DailyReport`, which ``render`` formats. Nothing
downstream reaches back into an earlier stage; everything it needs travels in
these models.

An :class:`Analysis` is its verdict and its provenance as one flat record, by
inheritance rather than nesting: the JSON report's ``commits[].analysis`` and
the cache's rows are that flat object, in that key order (verdict, then
provenance), and every reader (templates, digest, store) reads
``analysis.importance``. Analyzers and the pipeline make one with
:meth:`Analysis.of`, which applies the rubric's depth rule
(:meth:`Verdict.at_depth`), so no producer keeps a copy of it.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

REPORT_SCHEMA_VERSION: Final = "1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


# --------------------------------------------------------------------------- source


class FileStatus(StrEnum):
    added = "added"
    modified = "modified"
    deleted = "deleted"
    renamed = "renamed"
    copied = "copied"


class FileChange(_Model):
    """One file of a commit's first-parent diff."""

    path: str
    old_path: str | None = None
    status: FileStatus = FileStatus.modified
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    patch: str = ""
    patch_truncated: bool = Field(
        default=False,
        description="The patch text was cut at the source's byte cap; counts are still exact.",
    )
    content_missing: bool = Field(
        default=False,
        description="The file's blobs are absent (a partial clone); its patch and counts are unknown.",
    )


class Trailer(_Model):
    key: str
    value: str


class RevertRef(_Model):
    """What a commit's message says it reverts; either part may be missing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sha: str | None = Field(
        default=None,
        description="The commit that `This reverts commit <sha>` in the body names: 7 to 40 hex digits, lower case.",
    )
    title: str | None = Field(
        default=None,
        description=(
            'The title the subject says it reverts: the quoted one of `Revert "<title>"` (a nested revert\'s '
            "quotes kept), or the words after `Revert`; empty when it names none, null when the subject "
            "does not say it reverts."
        ),
    )


class SeriesRef(_Model):
    """A ``[k/N]`` marker in a title: one part of a series of commits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    part: int | Literal["last"]
    total: int | None = Field(description="Null for an open-ended series (`[k/N]`).")
    key: str = Field(description="The title before the marker, which names the series (often its tags).")


class MessageParts(_Model):
    """A commit message as the source parsed it (:func:`repodaily.sources.message.parse_message`).

    :class:`Commit` and :class:`AnalysisInput` carry these fields, so no stage after
    the source reads the message text again. The parsed parts have no defaults: a
    commit or an input built by hand takes them from ``parse_message`` too, or an
    analyzer would judge an empty title.
    """

    subject: str
    body: str = ""
    title: str = Field(description="The subject without its pull-request suffix `(#N)`.")
    pr_number: int | None = Field(
        description="From the subject's `(#N)` suffix or a `Merge pull request #N from …` subject."
    )
    revert: RevertRef | None
    series: SeriesRef | None
    trailers: list[Trailer] = Field(default_factory=list)
    headline_lines: list[str] = Field(
        description="The commit table's lines: the message before its first sign-off line, blank lines dropped."
    )
    prose: str = Field(description="The body without its sign-off and other attribution lines.")

    def message_parts(self) -> dict[str, Any]:
        """These fields by name, for another model that carries them: ``AnalysisInput(**commit.message_parts(), …)``."""
        return {name: getattr(self, name) for name in MessageParts.model_fields}


class Commit(MessageParts):
    """A commit as the source read it: its message's parts, metadata and first-parent diff."""

    sha: str
    parents: list[str] = Field(default_factory=list)
    author_name: str
    author_email: str = ""
    authored_at: datetime
    committer_name: str = ""
    committed_at: datetime
    files: list[FileChange] = Field(default_factory=list)
    encoding_issues: list[str] = Field(
        default_factory=list,
        description="Fields whose bytes were not UTF-8 and were decoded with U+FFFD replacements.",
    )
    date_issues: list[str] = Field(
        default_factory=list,
        description="Header dates no clock shows (an offset of +9999, a year past 9999) and how they were read.",
    )
    files_incomplete: bool = Field(
        default=False,
        description="The source lists only some of the commit's files (GitHub at most 3,000): `files` are those.",
    )

    @property
    def short_sha(self) -> str:
        return self.sha[:7]

    @property
    def message(self) -> str:
        return f"{self.subject}\n\n{self.body}".rstrip() if self.body else self.subject


# --------------------------------------------------------------------------- context


class FileCategory(StrEnum):
    """Path classes, most important first; the budget spends tokens in this order."""

    source = "source"
    build = "build"
    test = "test"
    docs = "docs"
    generated = "generated"
    binary = "binary"


class Coverage(StrEnum):
    full = "full"
    clipped = "clipped"
    stats_only = "stats_only"


class FileReceipt(_Model):
    """What the context stage did with one file: a receipt the report shows."""

    path: str
    category: FileCategory
    coverage: Coverage
    tokens_total: int
    tokens_sent: int


class CoverageReceipt(_Model):
    budget_tokens: int
    tokens_sent: int
    files: list[FileReceipt] = Field(default_factory=list)

    def paths(self, coverage: Coverage) -> list[str]:
        return [f.path for f in self.files if f.coverage == coverage]

    def count(self, coverage: Coverage) -> int:
        return sum(1 for f in self.files if f.coverage == coverage)


class ContextFile(_Model):
    """A file as an analyzer sees it: classified, with the patch text the budget allowed."""

    path: str
    old_path: str | None = None
    status: FileStatus
    category: FileCategory
    additions: int
    deletions: int
    binary: bool = False
    coverage: Coverage
    text: str = ""


class TitleTag(_Model):
    """One row of a repository's own title-tag conventions: what its ``[Tag]`` (or scope) says about a change."""

    names: list[str] = Field(description="The tag as titles spell it, any case; synonyms share a row.")
    type: ChangeType | None = Field(default=None, description="The change type the tag stands for, if any.")
    narrow: bool = Field(default=False, description="The tag confines a change to one area, method or backend.")
    max_importance: Importance | None = None
    user_facing: bool | None = Field(
        default=None, description="Whether what the tag marks reaches users; None: unsaid."
    )
    security: bool = False


class PullRequest(_Model):
    """The pull request a commit came from, as its platform tells it: text written by its author, untrusted."""

    number: int
    title: str = ""
    body: str = Field(default="", description="Trimmed, images dropped.")
    labels: list[str] = Field(default_factory=list)
    author: str | None = None
    merged_at: datetime | None = None
    base: str | None = Field(default=None, description="The branch it was merged into.")
    linked_issues: list[int] = Field(default_factory=list, description="Issues it says it closes.")
    url: str | None = None


class RepositoryContext(_Model):
    """What an analyzer may know of the repository a commit belongs to, beyond the commit.

    Built by the pipeline once per repository and report day, bounded in size
    (:mod:`repodaily.context.repository`); every commit of that day carries the
    same one. The description is untrusted text, as a commit message is.
    """

    name: str
    description: str | None = Field(default=None, description="What the repository is, as its configuration says.")
    language: str | None = Field(default=None, description="Its primary language, by the files of the day's tree.")
    title_tags: list[TitleTag] = Field(
        default_factory=list, description="Its own title-tag conventions, from the conventions it is judged by."
    )


class AnalysisInput(MessageParts):
    """Everything an analyzer may read about one commit: its message's parts as :class:`Commit` has them, and more."""

    repo: str
    sha: str
    author_name: str
    committed_at: datetime
    parents: list[str]
    files: list[ContextFile]
    parts: list[list[int]] = Field(
        description=(
            "The prompts the diff is read in, planned by the context stage: per part, the indexes into `files` "
            "whose text it carries. One part when the diff fits one prompt; every text is in exactly one part."
        )
    )
    receipt: CoverageReceipt
    total_additions: int
    total_deletions: int
    repository: RepositoryContext | None = Field(
        default=None, description="The repository's context, for analyzers that read it; None when none was built."
    )
    pull_request: PullRequest | None = Field(
        default=None, description="The pull request that merged the commit, when a context source found one."
    )

    @model_validator(mode="after")
    def _every_text_in_one_part(self) -> AnalysisInput:
        # A text outside the plan would be read by no prompt while its receipt says it was.
        planned = sorted(index for part in self.parts for index in part)
        if not self.parts or planned != [index for index, file in enumerate(self.files) if file.text]:
            raise ValueError("parts must hold the index of every file with text exactly once, and no other")
        return self


# --------------------------------------------------------------------------- analysis


class ChangeType(StrEnum):
    feat = "feat"
    fix = "fix"
    perf = "perf"
    refactor = "refactor"
    docs = "docs"
    test = "test"
    ci = "ci"
    build = "build"
    chore = "chore"
    revert = "revert"


class Importance(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"

    @property
    def rank(self) -> int:
        """0 for high: sorting by rank puts the important first."""
        return ("high", "medium", "low").index(self.value)


class AnalysisStatus(StrEnum):
    ok = "ok"
    fallback = "fallback"
    failed = "failed"


class Flags(_Model):
    security: bool = False
    breaking: bool = False
    user_facing: bool = False


class Insight(_Model):
    aspect: Literal["architecture", "performance", "security", "compatibility", "maintainability"]
    text: str


class Recommendation(_Model):
    audience: Literal["users", "operators", "developers"]
    text: str


class Usage(_Model):
    """What producing one analysis cost, from the provider's own usage figures."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = Field(
        default=0,
        description="Of the prompt tokens, those the provider's prefix cache served, when its answers say so.",
    )
    seconds: float = 0.0


#: The deep fields each importance shows (RUBRIC.md, "Depth by importance"); the others stay empty.
#: Every importance shows type, importance, reason and the one-line summary.
DEPTH: dict[Importance, tuple[str, ...]] = {
    Importance.high: ("summary", "impact_scope", "insights", "risks", "recommendations"),
    Importance.medium: ("summary", "impact_scope", "recommendations"),
    Importance.low: (),
}


class Verdict(_Model):
    """What an analyzer judges about one commit against the rubric, and nothing about how it came to."""

    type: ChangeType
    secondary_types: list[ChangeType] = Field(default_factory=list)
    importance: Importance
    importance_reason: str = ""
    flags: Flags = Field(default_factory=Flags)
    summary: list[str] = Field(default_factory=list)
    one_line: str
    impact_scope: list[str] = Field(default_factory=list)
    insights: list[Insight] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)

    def at_depth(self) -> Self:
        """This verdict with only the deep fields its importance shows: the rubric's depth rule, in its one place.

        An analyzer may write more than the importance shows (a model answers
        every field; the heuristic writes before it knows what to keep); what the
        depth hides is emptied here, so the report, the JSON and the cache agree.
        """
        hidden = [name for name in DEPTH[Importance.high] if name not in DEPTH[self.importance]]
        return self.model_copy(update={name: [] for name in hidden})


class SurfaceKind(StrEnum):
    """What part of a project's user-visible surface a change touches."""

    cli_option = "cli_option"
    env_var = "env_var"
    config_key = "config_key"
    http_route = "http_route"
    metric = "metric"
    model_arch = "model_arch"
    backend = "backend"
    platform = "platform"
    public_api = "public_api"
    dependency_floor = "dependency_floor"
    dependency = "dependency"
    default_feature = "default_feature"
    deprecation = "deprecation"
    removal = "removal"


class SurfaceAction(StrEnum):
    added = "added"
    removed = "removed"
    renamed = "renamed"
    default_changed = "default_changed"
    raised_floor = "raised_floor"
    deprecated = "deprecated"
    now_raises = "now_raises"


class SurfaceChange(_Model):
    """One change to what users of the project type, set, call or install, as read from the diff."""

    kind: SurfaceKind
    name: str
    change: SurfaceAction
    old: str | None = Field(default=None, description="The old name, default or version, when it changed.")
    new: str | None = Field(default=None, description="The new name, default or version, when it changed.")
    replacement: str | None = Field(default=None, description="What a deprecation or removal names instead.")
    path: str = Field(description="The file whose diff shows it.")


class Provenance(_Model):
    """How a verdict came to be: what the analyzer read, who it was, what it cost, and whether it is degraded."""

    coverage: CoverageReceipt
    analyzer: str = Field(description="Fingerprint of the analyzer that produced this.")
    model: str | None = Field(default=None, description="The model that answered, when a model did.")
    usage: Usage = Field(default_factory=Usage)
    status: AnalysisStatus = AnalysisStatus.ok
    note: str = Field(default="", description="Why the analysis is degraded, when it is.")


# Pydantic collects fields from the last base to the first: Provenance is named first so its fields come last.
class Analysis(Provenance, Verdict):
    """One commit judged against the rubric; deep fields are filled for high/medium only."""

    surface: list[SurfaceChange] = Field(
        default_factory=list,
        description="What the diff changes of the project's user-visible surface; empty when the analyzer reads none.",
    )

    @classmethod
    def of(cls, verdict: Verdict, provenance: Provenance, surface: list[SurfaceChange] | None = None) -> Self:
        """``verdict`` at its depth (:meth:`Verdict.at_depth`) with ``provenance`` and the ``surface`` read attached."""
        return cls(**_fields(verdict.at_depth(), Verdict), **_fields(provenance, Provenance), surface=surface or [])

    @property
    def verdict(self) -> Verdict:
        """The judgement alone, e.g. to compare two analyzers' verdicts whatever they cost."""
        return Verdict(**_fields(self, Verdict))

    @property
    def provenance(self) -> Provenance:
        """How the judgement came to be, without it."""
        return Provenance(**_fields(self, Provenance))


def _fields(model: BaseModel, part: type[BaseModel]) -> dict[str, Any]:
    """The values ``model`` holds for the fields of ``part``, one of its bases."""
    return {name: getattr(model, name) for name in part.model_fields}


# --------------------------------------------------------------------------- digest


class ReportCommit(_Model):
    sha: str
    short_sha: str
    url: str | None = None
    committed_at: datetime
    author: str
    subject: str
    message_lines: list[str]
    pr_number: int | None = None
    pr_url: str | None = None
    pull_request: PullRequest | None = Field(
        default=None, description="The pull request that merged the commit, when a context source found one."
    )
    encoding_issues: list[str] = Field(default_factory=list)
    missing_files: list[str] = Field(
        default_factory=list,
        description="Files whose content the repository lacks (missing objects): their diff could not be read.",
    )
    date_issues: list[str] = Field(default_factory=list)
    files_incomplete: bool = Field(
        default=False, description="Only some of the commit's files were listed by its source; the rest went unread."
    )
    analysis: Analysis


class DayLink(_Model):
    """A relation between commits that only the whole day shows."""

    kind: Literal["revert", "series"]
    label: str
    shas: list[str]


class HighlightKind(StrEnum):
    """Why a line is in the day's highlights; the block lists them in this order (:mod:`repodaily.highlights`)."""

    breaking = "breaking"
    security = "security"
    default_changed = "default_changed"
    added = "added"
    release = "release"
    high = "high"
    summary = "summary"


class Highlight(_Model):
    """One line of the day's highlights: a commit the reader must not miss, or a point an analyzer wrote."""

    kind: HighlightKind = Field(
        default=HighlightKind.summary,
        description=(
            "`breaking`, `security`, `default_changed`, `added` (a new model, backend or API), `release`, "
            "`high` (any other high-importance commit): one commit each, picked from the analyses; "
            "`summary`: a point the analyzer wrote over the day (the only kind before kinds existed)."
        ),
    )
    text: str = Field(description="The commit's title or its analysis' one line; a summary point's own words.")
    shas: list[str]
    surface: list[SurfaceChange] = Field(
        default_factory=list,
        description="What the item is about, from the commit's surface: what breaks, the defaults, what is new.",
    )


class Stats(_Model):
    total: int = 0
    high: int = 0
    medium: int = 0
    low: int = 0
    degraded: int = 0
    incomplete: int = Field(
        default=0, description="Commits with files whose content the repository lacks (see missing_files)."
    )
    by_type: dict[str, int] = Field(default_factory=dict)
    additions: int = 0
    deletions: int = 0
    files_changed: int = 0


class RunInfo(_Model):
    analyzer: str
    model: str | None = None
    prompt_version: str | None = None
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = Field(
        default=0, description="Of the prompt tokens, those the providers' prefix caches served."
    )
    seconds: float = 0.0
    degraded: int = 0
    cached: int = 0


class Release(_Model):
    """A release or tag published on the report's day."""

    tag: str
    name: str = ""
    url: str | None = None
    published_at: datetime | None = None
    prerelease: bool = False


class DailyReport(_Model):
    """The whole report for one repository and one day; also the public JSON format."""

    schema_version: Literal["1"] = REPORT_SCHEMA_VERSION
    repo: str
    repo_url: str | None = None
    date: date
    timezone: str
    language: Literal["zh", "en"] = "zh"
    commits: list[ReportCommit] = Field(default_factory=list, description="Newest first.")
    stats: Stats = Field(default_factory=Stats)
    links: list[DayLink] = Field(default_factory=list)
    highlights: list[Highlight] = Field(default_factory=list)
    releases: list[Release] = Field(default_factory=list, description="Releases and tags published that day.")
    pull_context: bool | None = Field(
        default=None,
        description="Whether pull-request context was read: None when no source was asked, False when it failed.",
    )
    run: RunInfo
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def degraded(self) -> bool:
        return self.stats.degraded > 0
