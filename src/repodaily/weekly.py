"""A week at a glance: the :class:`WeeklyDigest` of one repository, built from its stored daily reports.

What a lead reads on Monday: the week's breaking changes, security fixes, new
models, APIs and backends, changed defaults, releases and the rest of its
high-importance changes, and how many commits of each importance and type each
day had. The sections are the days' own highlights (:mod:`repodaily.highlights`)
gathered over the week, so the week says what its days said: every
high-importance commit is in exactly one section, under the first kind it is.

:func:`build_weekly` is pure: reports in, a digest out. ``repodaily digest``
reads the reports from the store, which ``report`` and ``run`` fill.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from repodaily.errors import ConfigError
from repodaily.models import (
    ChangeType,
    DailyReport,
    Flags,
    HighlightKind,
    Importance,
    Release,
    SurfaceChange,
)
from repodaily.store import Store

if TYPE_CHECKING:  # the store is handed in; the digest itself is pure
    from repodaily.store import Store

__all__ = [
    "WEEK_SECTIONS",
    "DayCount",
    "WeekItem",
    "WeekRelease",
    "WeeklyDigest",
    "build_weekly",
    "parse_week",
    "stored_weeklies",
    "week_of",
]

# ASCII digits only: int() reads a fullwidth or Arabic-Indic "２０２６", and the text would name a file and a title.
_WEEK = re.compile(r"(\d{4})-W(\d{2})", re.ASCII)
#: The digest's sections, in the order it shows them: the highlight kinds that name one commit each.
WEEK_SECTIONS: tuple[HighlightKind, ...] = (
    HighlightKind.breaking,
    HighlightKind.security,
    HighlightKind.added,
    HighlightKind.default_changed,
    HighlightKind.release,
    HighlightKind.high,
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WeekItem(_Model):
    """One commit a section of the week names, with what a reader needs to go to it."""

    day: date
    kind: HighlightKind
    text: str = Field(description="The commit's title, as the day's highlight has it.")
    one_line: str
    sha: str
    short_sha: str
    anchor: str = Field(description="The id of the commit's section in its day's report (Markdown and HTML).")
    url: str | None = None
    importance: Importance
    type: ChangeType
    flags: Flags
    surface: list[SurfaceChange] = Field(default_factory=list)


class DayCount(_Model):
    """How many commits one day of the week had, by importance and by type."""

    day: date
    total: int
    high: int
    medium: int
    low: int
    by_type: dict[str, int] = Field(default_factory=dict)


class WeekRelease(Release):
    """A release or tag of the week, with the day whose report names it."""

    day: date


class WeeklyDigest(_Model):
    """One repository's week (ISO 8601, Monday to Sunday); also the JSON of ``digest --format json``."""

    schema_version: Literal["1"] = "1"
    repo: str
    repo_url: str | None = None
    week: str = Field(description="The ISO week, `YYYY-Www`.")
    start: date
    end: date
    timezone: str
    language: Literal["zh", "en"] = "zh"
    days: list[DayCount] = Field(description="Each day of the week with a stored report, oldest first.")
    total: DayCount = Field(description="The week's sums; its `day` is the week's Monday.")
    sections: dict[HighlightKind, list[WeekItem]] = Field(
        description="The week's commits by highlight kind, in WEEK_SECTIONS order; newest day first within each."
    )
    releases: list[WeekRelease] = Field(default_factory=list)


def parse_week(text: str, today: date) -> tuple[date, date]:
    """The Monday and Sunday of the ISO week ``YYYY-Www``; ConfigError if malformed, impossible or not yet begun."""
    match = _WEEK.fullmatch(text.strip())
    if not match:
        raise ConfigError(f"--week {text!r} is not an ISO week; use YYYY-Www, e.g. 2026-W06")
    try:
        monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise ConfigError(f"--week {text}: the year {match[1]} has no week {int(match[2])}") from None
    if monday > today:
        raise ConfigError(f"--week {text} has not begun (today is {today.isoformat()})")
    return monday, monday + timedelta(days=6)


def week_of(day: date) -> str:
    """The ISO week ``day`` is in, as ``YYYY-Www``."""
    year, week, _ = day.isocalendar()
    return f"{year:04d}-W{week:02d}"


def _count(day: date, reports: Sequence[DailyReport]) -> DayCount:
    types: Counter[str] = Counter()
    for report in reports:
        types.update(report.stats.by_type)
    return DayCount(
        day=day,
        total=sum(r.stats.total for r in reports),
        high=sum(r.stats.high for r in reports),
        medium=sum(r.stats.medium for r in reports),
        low=sum(r.stats.low for r in reports),
        by_type=dict(types.most_common()),
    )


def _items(report: DailyReport) -> list[WeekItem]:
    commits = {commit.sha: commit for commit in report.commits}
    items = []
    for highlight in report.highlights:
        if highlight.kind not in WEEK_SECTIONS:
            continue
        for sha in highlight.shas:
            commit = commits.get(sha)
            if commit is None:
                continue
            items.append(
                WeekItem(
                    day=report.date,
                    kind=highlight.kind,
                    text=highlight.text,
                    one_line=commit.analysis.one_line,
                    sha=commit.sha,
                    short_sha=commit.short_sha,
                    anchor=f"c-{commit.short_sha}",
                    url=commit.url,
                    importance=commit.analysis.importance,
                    type=commit.analysis.type,
                    flags=commit.analysis.flags,
                    surface=highlight.surface,
                )
            )
    return items


def build_weekly(reports: Sequence[DailyReport], week: str) -> WeeklyDigest:
    """The digest of one repository's ``week`` from its daily ``reports`` (those outside the week are ignored).

    ``reports`` must be one repository's, in one language, at least one of them
    in the week: a week without a report is not a quiet week but one not reported on.
    """
    monday, sunday = parse_week(week, date.max)
    days = sorted((r for r in reports if monday <= r.date <= sunday), key=lambda r: r.date)
    if len({(r.repo, r.language) for r in days}) != 1:
        raise ValueError("a weekly digest is of one repository in one language, with a report in the week")
    first = days[0]
    items = [item for report in reversed(days) for item in _items(report)]
    return WeeklyDigest(
        repo=first.repo,
        repo_url=first.repo_url,
        week=week_of(monday),  # as written by the week, not by whoever asked: its text is in what a reader sees
        start=monday,
        end=sunday,
        timezone=first.timezone,
        language=first.language,
        days=[_count(report.date, [report]) for report in days],
        total=_count(monday, days),
        sections={kind: [item for item in items if item.kind == kind] for kind in WEEK_SECTIONS},
        releases=[WeekRelease(day=r.date, **release.model_dump()) for r in days for release in r.releases],
    )


def stored_weeklies(store: Store, week: str, today: date, language: str, repo: str | None = None) -> list[WeeklyDigest]:
    """The digest of ``week`` for ``repo`` (every repository with a stored report, by default), from ``store``.

    ConfigError when the week is malformed or not begun, or no report of it is stored.
    """
    monday, sunday = parse_week(week, today)
    digests = []
    for name in [repo] if repo else store.reported_repos(language):
        reports = store.reports(name, language, monday, sunday)
        if reports:
            digests.append(build_weekly(reports, week))
    if not digests:
        whose = repo or "any repository"
        raise ConfigError(
            f"no stored {language} report of {whose} in {week}; `repodaily run` and `repodaily report` store them"
        )
    return digests
