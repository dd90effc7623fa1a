"""The tags a repository gained in a window: what a report calls released, when no platform says more.

A release on GitHub has a page, a name and notes; a tag is all git knows, and it
is enough to say "v0.9.0 was tagged today". An annotated tag is dated by its
tagger, a lightweight one by the commit it points at (git's ``creatordate``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from repodaily.models import Release
from repodaily.sources.git.process import git_text
from repodaily.sources.git.repository import GitRepository

__all__ = ["Tagged", "list_tags", "tags_between"]

#: A tag's creation time and name.
Tagged = tuple[datetime, str]


def list_tags(repo: GitRepository) -> list[Tagged]:
    """Every tag with its creation time, oldest first (by name on a tie); one ``git for-each-ref``."""
    listing = git_text(
        ["for-each-ref", "refs/tags", "--format=%(creatordate:unix)%00%(refname:strip=2)"],
        failure="cannot list the tags",
        git_dir=repo.git_dir,
    )
    found = []
    for line in listing.splitlines():
        stamp, _, name = line.partition("\0")
        if stamp.isdigit() and name:
            found.append((datetime.fromtimestamp(int(stamp), UTC), name))
    return sorted(found)


def tags_between(tags: list[Tagged], start: datetime, end: datetime) -> list[Release]:
    """The ``tags`` created in [``start``, ``end``], oldest first."""
    return [Release(tag=name, published_at=created) for created, name in tags if start <= created <= end]
