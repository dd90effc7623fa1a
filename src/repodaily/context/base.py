"""The context-source protocol: what a platform adds to one repository's day of commits.

A git history says what changed; the platform it is hosted on says why and in
what frame: the pull request each commit came from, and the releases published
that day. A context source is made once per run by the factory its plugin
registers, called with keyword arguments ``settings`` (its own model, validated
from the top-level table named after it, ``[github]``) and ``context``
(:class:`ContextSourceContext`).

Enrichment never costs a report: a source that cannot ask (a rate limit used
up, a refused token, a platform down) returns what it has with ``complete``
false, and the report says it lacks pull-request context. A source keeps what
it learnt in the :class:`ContextCache` the pipeline hands it (the store), so a
rerun asks the platform little or nothing; it never opens the store itself.

An analysis made with a pull request's text is keyed apart from one made
without it (:meth:`~repodaily.analyzers.base.Analyzer.analysis_key`), so a
commit judged while the context was missing is judged again once it is there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from repodaily.models import Commit, PullRequest, Release
from repodaily.redact import NO_SECRETS, Redactor

__all__ = [
    "CachedAnswer",
    "ContextCache",
    "ContextSource",
    "ContextSourceContext",
    "DayContext",
]


@dataclass(frozen=True)
class CachedAnswer:
    """What a source kept of one answer: its payload (JSON text), its validators, and when it was fetched."""

    payload: str
    fetched_at: datetime
    etag: str | None = None
    last_modified: str | None = None


class ContextCache(Protocol):
    """Where a context source keeps answers between runs, by its own keys (the store implements it)."""

    def get_context(self, source: str, key: str) -> CachedAnswer | None: ...

    def put_context(self, source: str, key: str, answer: CachedAnswer) -> None: ...


@dataclass(frozen=True)
class ContextSourceContext:
    """What the core hands every context source: its cache, the environment its tokens are read from, the redactor."""

    cache: ContextCache
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    redact: Redactor = NO_SECRETS


@dataclass(frozen=True)
class DayContext:
    """What a source found for one day: each commit's pull request by SHA, and the releases published in it."""

    pulls: dict[str, PullRequest] = field(default_factory=dict)
    releases: list[Release] = field(default_factory=list)
    #: False when the source stopped before it had asked for everything: what it found is kept, the rest is missing.
    complete: bool = True


@runtime_checkable
class ContextSource(Protocol):
    """The context of the repositories one platform hosts."""

    def serves(self, repo: str, web_url: str | None) -> bool:
        """Whether this source knows the repository ``repo`` (``owner/name``) whose pages are at ``web_url``."""
        ...

    async def day(self, repo: str, commits: Sequence[Commit], start: datetime, end: datetime) -> DayContext:
        """The context of ``commits``, the day [``start``, ``end``] of ``repo``; never raises for what it cannot ask."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
