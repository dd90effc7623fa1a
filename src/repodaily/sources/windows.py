"""Report days as sources read them: which listed commits fall in which window.

Every source decides membership the same way, so a day holds the same commits
whichever source read it: a commit belongs to the window whose inclusive
[start, end] holds its committer time, and to none when it falls between or
outside them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from datetime import datetime

__all__ = ["bucket", "check_windows"]


def check_windows(windows: Sequence[tuple[datetime, datetime]]) -> None:
    """Refuse naive bounds: a day is cut in a timezone, and a naive moment has none."""
    for start, end in windows:
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError("window bounds must be timezone-aware datetimes")


def bucket(listed: Sequence[tuple[str, float]], windows: Sequence[tuple[datetime, datetime]]) -> list[list[str]]:
    """The SHAs of each window from ``(sha, committer timestamp)`` pairs, in listing order (newest first)."""
    starts = [start.timestamp() for start, _ in windows]
    buckets: list[list[str]] = [[] for _ in windows]
    for sha, committed in listed:
        index = bisect_right(starts, committed) - 1
        if index >= 0 and committed <= windows[index][1].timestamp():
            buckets[index].append(sha)
    return buckets
