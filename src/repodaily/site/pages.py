"""What the site's own pages show beyond a report: a repository's days at a glance, the home page's summaries.

Plain data for the templates (``site_home.html.j2``, ``site_repo.html.j2``),
computed from the stored reports; every link is relative to the page it is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from repodaily.models import DailyReport, Stats
from repodaily.site import paths
from repodaily.weekly import week_of

#: How many of a repository's latest days the home page counts.
HOME_DAYS = 7


@dataclass(frozen=True)
class DayCell:
    """One day of a repository: its page and counts, or no report (``href`` empty)."""

    day: date
    href: str
    stats: Stats | None

    @property
    def level(self) -> int:
        """How much the day holds, for its colour: 0 none, 1 low only, 2 medium, 3 high."""
        if self.stats is None or not self.stats.total:
            return 0
        return 3 if self.stats.high else 2 if self.stats.medium else 1


@dataclass(frozen=True)
class WeekRow:
    week: str
    href: str
    days: list[DayCell]


@dataclass(frozen=True)
class RepoSummary:
    """A watched repository as the home page lists it."""

    name: str
    href: str
    latest: DayCell | None
    week_href: str
    last_days: list[DayCell]
    days: int


def calendar(repo: str, reports: Sequence[DailyReport], from_path: str) -> list[WeekRow]:
    """``repo``'s stored days as ISO weeks, newest first, seven cells each (a day without a report empty)."""
    by_day = {report.date: report for report in reports}
    mondays = sorted({day - timedelta(days=day.weekday()) for day in by_day}, reverse=True)
    rows = []
    for monday in mondays:
        cells = []
        for offset in range(7):
            day = monday + timedelta(days=offset)
            report = by_day.get(day)
            href = paths.link(from_path, paths.day_page(repo, day)) if report else ""
            cells.append(DayCell(day, href, report.stats if report else None))
        week = week_of(monday)
        rows.append(WeekRow(week, paths.link(from_path, paths.week_page(repo, week)), cells))
    return rows


def summary(repo: str, reports: Sequence[DailyReport]) -> RepoSummary:
    """``repo`` for the home page: its latest days' counts by importance, newest first."""
    cells = [DayCell(report.date, paths.day_page(repo, report.date), report.stats) for report in reports[-HOME_DAYS:]][
        ::-1
    ]
    latest = cells[0] if cells else None
    week = paths.week_page(repo, week_of(latest.day)) if latest else ""
    return RepoSummary(repo, paths.timeline(repo), latest, week, cells, len(reports))
