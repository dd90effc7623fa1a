"""The releases published in a day, from GitHub's listing (``GET /repos/{owner}/{repo}/releases``).

The listing is newest first, a hundred a page; paging stops at the first page
that reaches past the day's start, so a report of yesterday costs one request
however long the project's history. Drafts are never listed for a reader: they
are not published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from repodaily.context.github.pulls import when
from repodaily.context.github.text import MAX_LABEL_CHARS, clean_line
from repodaily.models import Release

__all__ = ["page_releases", "reaches_before"]


def page_releases(page: Sequence[Any]) -> list[Release]:
    """The published releases of one page of the listing."""
    return [
        Release(
            tag=clean_line(item.get("tag_name"), MAX_LABEL_CHARS * 4),
            name=clean_line(item.get("name")),
            url=item.get("html_url") or None,
            published_at=when(item.get("published_at")),
            prerelease=bool(item.get("prerelease")),
        )
        for item in page
        if isinstance(item, Mapping) and item.get("tag_name") and not item.get("draft") and item.get("published_at")
    ]


def reaches_before(page: Sequence[Any], start: datetime) -> bool:
    """Whether a page holds a release created before ``start``: later pages are all older."""
    created = [when(item.get("created_at")) for item in page if isinstance(item, Mapping)]
    return any(moment is not None and moment < start for moment in created)
