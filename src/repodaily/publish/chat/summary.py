"""What a chat message says about a report: a summary, never the whole report.

The repository and the day, the day's figures, the report's highlights
(each named by its kind, less the ``high`` ones: the message lists every high
commit), and the high-importance commits (title, one line, link), with a link
to the full report when ``report_url`` says where it lives. Each platform writes the same
:class:`Summary` in its own format; :func:`fit` drops commits from the end
until the message fits the platform's limit, and the message says how many
it left out.

Everything here is a pure function of the report (and the run's redactor), so
the same report gives the same message, byte for byte: no clock, no timing
(``report.run.seconds`` is never read), no order that depends on a hash. Texts
are kept raw, redacted; each platform escapes them for its medium
(:mod:`~repodaily.publish.chat.escape`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TypeVar
from urllib.parse import quote

from repodaily.errors import PublishError
from repodaily.models import DailyReport, Highlight, HighlightKind, Importance
from repodaily.publish.base import report_fields
from repodaily.publish.chat.escape import clip, link_target
from repodaily.redact import Redactor
from repodaily.render.labels import IMPORTANCE_EMOJI, LABELS, Labels, counted
from repodaily.render.page_labels import WEEK_LABELS
from repodaily.weekly import WeeklyDigest

__all__ = ["Item", "Summary", "fit", "report_link", "summarize", "summarize_week"]

#: How much of each foreign text a message shows: one long subject must not push the others out.
TITLE_CHARS = 200
LINE_CHARS = 300
HIGHLIGHT_CHARS = 240
MAX_HIGHLIGHTS = 8
# The words of a chat message that the report itself does not print.
_WORDS = {
    "zh": {"more": "……另有 {n} 个高重要度提交未列出", "full_report": "查看完整报告", "repo_sep": " · "},
    "en": {"more": "… and {n} more high-importance commit{s}", "full_report": "Full report", "repo_sep": " · "},
}

T = TypeVar("T")


@dataclass(frozen=True)
class Item:
    """One high-importance commit: its title and one line (raw, redacted) and the link to it, if it has one."""

    sha: str
    title: str
    line: str
    url: str | None


@dataclass(frozen=True)
class Summary:
    """A report's chat summary: our own words (:attr:`title`, :attr:`stats`, headings) and its raw texts."""

    repo: str
    date: date
    language: str
    #: ``owner/name · 每日更新报告（2026-03-02）``.
    title: str
    #: The day's figures in the report's own words: total, high/medium/low, degraded.
    stats: str
    highlights_heading: str
    highlights: tuple[str, ...]
    #: The high group's heading, counting every high commit of the day, listed or not.
    items_heading: str
    items: tuple[Item, ...]
    #: High commits left out to fit the platform's limit.
    omitted: int
    report_label: str
    report_url: str | None
    #: What separates a commit's title from its one line, in the report's language.
    dash: str

    @property
    def more(self) -> str:
        """ "… and N more" when commits were left out, else empty."""
        return counted(_WORDS[self.language]["more"], self.omitted) if self.omitted else ""

    def without_last_item(self) -> Summary:
        return dataclasses.replace(self, items=self.items[:-1], omitted=self.omitted + 1)


def report_link(template: str, report: DailyReport) -> str | None:
    """The full report's URL: ``template`` filled with the report's fields (percent-encoded); None without one."""
    if not template:
        return None
    fields = {key: quote(value, safe="/") for key, value in report_fields(report).items()}
    return link_target(template.format(**fields))


def _figures(labels: Labels, total: str, high: int, medium: int, low: int) -> list[str]:
    """The total (already worded) and the counts by importance, in the report's words."""
    return [total] + [
        labels.stats_item.format(emoji=IMPORTANCE_EMOJI[level], name=labels.importance_names[level], n=f"{count:,}")
        for level, count in (("high", high), ("medium", medium), ("low", low))
    ]


def summarize(report: DailyReport, *, report_url: str, redact: Redactor) -> Summary:
    """The summary of ``report``, its texts passed through ``redact``, in the report's language."""
    labels, words = LABELS[report.language], _WORDS[report.language]
    stats = report.stats
    figures = _figures(labels, counted(labels.stats_total, stats.total), stats.high, stats.medium, stats.low)
    if stats.degraded:
        figures.append(counted(labels.stats_degraded, stats.degraded))
    high = [commit for commit in report.commits if commit.analysis.importance == Importance.high]
    highlights = [h for h in report.highlights if h.kind != HighlightKind.high]
    items = tuple(
        Item(
            sha=commit.short_sha,
            title=clip(redact(commit.subject), TITLE_CHARS),
            line=clip(redact(commit.analysis.one_line), LINE_CHARS),
            url=link_target(commit.url) or link_target(commit.pr_url),
        )
        for commit in high
    )
    return Summary(
        repo=report.repo,
        date=report.date,
        language=report.language,
        title=f"{report.repo}{words['repo_sep']}{labels.title.format(date=report.date.isoformat())}",
        stats=" | ".join(figures),
        highlights_heading=labels.highlights,
        highlights=tuple(clip(redact(_highlight(h, labels)), HIGHLIGHT_CHARS) for h in highlights[:MAX_HIGHLIGHTS]),
        items_heading=labels.group_heading.format(
            emoji=IMPORTANCE_EMOJI["high"], name=labels.importance_names["high"], n=f"{len(high):,}"
        ),
        items=items,
        omitted=0,
        report_label=words["full_report"],
        report_url=report_link(report_url, report),
        dash=labels.dash,
    )


def _highlight(highlight: Highlight, labels: Labels) -> str:
    """A highlight as one line of text: its kind in the report's words, then its text (a summary point: the text)."""
    if highlight.kind == HighlightKind.summary:
        return highlight.text
    return f"{labels.highlight_kinds[highlight.kind]}{labels.colon}{highlight.text}"


def fit(summary: Summary, build: Callable[[Summary], T], problem: Callable[[T], str | None], *, target: str) -> T:
    """The message ``build`` makes of ``summary``, with commits dropped from the end until ``problem`` finds none.

    ``problem`` names what is over the platform's limit (None: it fits). With no
    commit left to drop, the message cannot be sent: a PublishError says why.
    """
    while True:
        message = build(summary)
        found = problem(message)
        if found is None:
            return message
        if not summary.items:
            raise PublishError(
                f"{target}: the summary of {summary.repo} {summary.date} does not fit even without commits: {found}"
            )
        summary = summary.without_last_item()


def summarize_week(digest: WeeklyDigest, *, redact: Redactor) -> Summary:
    """The summary of a week's digest: its sums, its sections' commits as highlights, its high commits listed.

    A week has no report page of its own to link to, so the message carries no link.
    """
    labels, words = LABELS[digest.language], _WORDS[digest.language]
    week = WEEK_LABELS[digest.language]
    sums = digest.total
    heading = week.title.format(week=digest.week, start=digest.start, end=digest.end)
    items = [item for kind, found in digest.sections.items() for item in found]
    high = [item for item in items if item.importance == Importance.high]
    highlights = [
        f"{labels.highlight_kinds[item.kind]}{labels.colon}{item.text}"
        for item in items
        if item.kind != HighlightKind.high
    ]
    return Summary(
        repo=digest.repo,
        date=digest.start,
        language=digest.language,
        title=f"{digest.repo}{words['repo_sep']}{heading}",
        stats=" | ".join(_figures(labels, counted(week.totals, sums.total), sums.high, sums.medium, sums.low)),
        highlights_heading=labels.highlights,
        highlights=tuple(clip(redact(text), HIGHLIGHT_CHARS) for text in highlights[:MAX_HIGHLIGHTS]),
        items_heading=labels.group_heading.format(
            emoji=IMPORTANCE_EMOJI["high"], name=labels.importance_names["high"], n=f"{len(high):,}"
        ),
        items=tuple(
            Item(
                sha=item.short_sha,
                title=clip(redact(item.text), TITLE_CHARS),
                line=clip(redact(item.one_line), LINE_CHARS),
                url=link_target(item.url),
            )
            for item in high
        ),
        omitted=0,
        report_label=words["full_report"],
        report_url=None,
        dash=labels.dash,
    )
