"""The source protocol: one repository's commits, one report day at a time.

A source is made per repository by the factory its plugin registers, called as
``factory(settings=..., context=SourceContext(...))``. ``settings`` is the
plugin's own model validated from the repository's ``[[repos]]`` keys that the
core does not own (``name``, ``source``, ``web_url``, ``description`` and
``conventions`` are the core's). ``git`` is the built-in source; a source of
another kind (a patch archive, a forge's API) implements the same two methods.
A source that can also list a commit's tree offers :class:`TreeSource`, from
which the repository context counts the primary language.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from repodaily.models import Commit, Release
from repodaily.redact import NO_SECRETS, Redactor

__all__ = ["Opened", "Source", "SourceContext", "TagSource", "TreeSource", "Window"]

#: An inclusive, timezone-aware (start, end) span of committer times: one report day.
Window = tuple[datetime, datetime]


@dataclass(frozen=True)
class SourceContext:
    """What the core hands every source: where caches go, how much of one file's patch to keep,
    the environment a token is read from, and the run's redactor for what a source says."""

    cache_dir: Path
    max_patch_bytes: int
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    redact: Redactor = NO_SECRETS


@dataclass(frozen=True)
class Opened:
    """What a source learnt on opening: the repository's ``owner/name`` when it can tell, and its branch."""

    name: str | None
    branch: str


@runtime_checkable
class Source(Protocol):
    """Commits of one repository."""

    def open(self) -> Opened:
        """Make the repository readable (a mirror fetches here); call before :meth:`collect_days`.

        Raises :class:`~repodaily.errors.SourceError` with one line naming the repository.
        """
        ...

    def collect_days(self, windows: Sequence[Window]) -> Iterator[tuple[int, list[Commit]]]:
        """``(index into windows, that window's commits newest first)`` for each window, oldest first.

        ``windows`` ascend and do not overlap. Only one window's commits need be
        held at a time, so a long backfill costs the memory of one day; a consumer
        that stops early closes the iterator (a generator's ``close``).
        """
        ...


@runtime_checkable
class TagSource(Protocol):
    """A source that knows the repository's tags: optional; what a report calls released without a platform."""

    def tags_between(self, start: datetime, end: datetime) -> list[Release]:
        """The tags created in [``start``, ``end``], oldest first, with no URL (the pipeline links them).

        Raises :class:`~repodaily.errors.SourceError` when they cannot be listed.
        """
        ...


@runtime_checkable
class TreeSource(Protocol):
    """A source that can list a commit's tree: optional, and only read when an analyzer uses the repository context."""

    def tree_paths(self, sha: str) -> list[str]:
        """The path of every file in the tree of commit ``sha``, read without reading any file.

        Raises :class:`~repodaily.errors.SourceError` when the tree cannot be read.
        """
        ...
