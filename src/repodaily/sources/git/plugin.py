"""The ``git`` source as a plugin: a local clone or a URL mirrored under the cache directory."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from repodaily.hookspecs import Register, hookimpl
from repodaily.models import Commit, Release
from repodaily.plugins import PluginSpec
from repodaily.sources.base import Opened, SourceContext, Window
from repodaily.sources.git.locations import infer_repo_name, is_url
from repodaily.sources.git.log import collect_days
from repodaily.sources.git.repository import GitRepository, open_repository
from repodaily.sources.git.tags import Tagged, list_tags, tags_between
from repodaily.sources.git.tree import tree_paths

__all__ = ["GitSettings", "GitSource"]


class GitSettings(BaseModel):
    """Where the repository is: exactly one of ``url`` and ``path``; ``branch`` defaults to the default branch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str | None = Field(default=None, description="Mirrored under the cache directory, fetched on every run.")
    path: str | None = Field(default=None, description="A local clone, read in place.")
    branch: str | None = None

    @model_validator(mode="after")
    def _one_location(self) -> GitSettings:
        if bool(self.url) == bool(self.path):
            raise ValueError("give exactly one of 'url' or 'path'")
        return self


class GitSource:
    """:class:`~repodaily.sources.base.Source` over git: one listing and one streamed ``git log -p`` per span.

    It is a :class:`~repodaily.sources.base.TreeSource` too (one ``git ls-tree`` per tree), and a
    :class:`~repodaily.sources.base.TagSource` (one ``git for-each-ref`` per day).
    """

    def __init__(self, *, settings: GitSettings, context: SourceContext) -> None:
        self.settings = settings
        self.context = context
        self._repository: GitRepository | None = None
        self._tags: list[Tagged] | None = None

    def open(self) -> Opened:
        location = self.settings.url or self.settings.path or ""
        self._repository = open_repository(location, cache_dir=self.context.cache_dir, branch=self.settings.branch)
        self._tags = None  # an opening may have fetched new ones
        name = infer_repo_name(self.settings.url or self._repository.remote_url or "")
        return Opened(name=name or None, branch=self._repository.branch)

    def collect_days(self, windows: Sequence[Window]) -> Iterator[tuple[int, list[Commit]]]:
        return collect_days(self._opened(), windows, max_patch_bytes=self.context.max_patch_bytes)

    def tree_paths(self, sha: str) -> list[str]:
        """:class:`~repodaily.sources.base.TreeSource`: the files of ``sha``'s tree."""
        return tree_paths(self._opened(), sha)

    def tags_between(self, start: datetime, end: datetime) -> list[Release]:
        """:class:`~repodaily.sources.base.TagSource`: the tags created in the window.

        The tags are listed once per opening, not once per day of a backfill.
        """
        if self._tags is None:
            self._tags = list_tags(self._opened())
        return tags_between(self._tags, start, end)

    def _opened(self) -> GitRepository:
        if self._repository is None:
            self.open()
        assert self._repository is not None
        return self._repository


def _locate(location: str) -> dict[str, Any]:
    """A URL is mirrored; anything else is a local clone's path."""
    return {"url": location} if is_url(location) else {"path": location}


@hookimpl
def register_sources(register: Register) -> None:
    register(
        PluginSpec(
            "git", GitSource, settings=GitSettings, description="a local clone or a mirrored URL", locate=_locate
        )
    )
