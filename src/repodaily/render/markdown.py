"""Render a :class:`DailyReport` as Markdown (through the templates) or as JSON.

The template receives the report itself plus what only code can compute
reliably: the importance groups with the GitHub slugs of their headings. A
slug depends on every heading before it (GitHub numbers duplicates), so the
slugs are computed here over the headings in the order the default template
writes them; a template that adds headings of the same text must keep that
order in mind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from repodaily.errors import RenderError
from repodaily.models import DailyReport, Importance, ReportCommit
from repodaily.render.anchors import commit_anchor, github_slug
from repodaily.render.environment import create_environment, template_error
from repodaily.render.labels import IMPORTANCE_EMOJI, LABELS, Labels
from repodaily.render.text import TITLE_CHARS, plain_text, shorten

REPORT_TEMPLATE = "report.md.j2"
#: Started only where a run of blanks starts: tried inside a long run too, it would cost time quadratic in it.
_PULL_SUFFIX = re.compile(r"(?<!\s)\s*\(#\d+\)\s*$")


@dataclass(frozen=True)
class ImportanceGroup:
    """The commits of one importance level, with the heading that introduces them."""

    importance: Importance
    heading: str
    slug: str
    commits: list[ReportCommit]
    #: The GitHub slug of each commit's heading, in the order of ``commits``: the HTML page gives its headings these.
    commit_slugs: list[str]


def commit_title(commit: ReportCommit) -> str:
    """The heading of a commit's section: its subject (its first :data:`TITLE_CHARS`), or its short SHA when blank.

    Headings, the table of contents, anchors, feeds and the search index all show this one title, so a
    shortened one still links to its section.
    """
    return shorten(commit.subject, TITLE_CHARS) if commit.subject.strip() else commit.short_sha


def pull_title(commit: ReportCommit) -> str:
    """The title of the commit's pull request when it says something its subject does not; else empty.

    A squash merge's subject is the pull request's title with ``(#N)`` after it, so
    that suffix, case and spacing do not make a difference.
    """
    if commit.pull_request is None:
        return ""
    title = commit.pull_request.title.strip()
    subject = _PULL_SUFFIX.sub("", commit.subject)
    return title if _words(title) != _words(subject) else ""


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def render_markdown(report: DailyReport, *, templates_dir: Path | None = None) -> str:
    """The report as Markdown, from ``report.md.j2`` (the user's if ``templates_dir`` has one)."""
    try:
        ZoneInfo(report.timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise RenderError(f"unknown timezone {report.timezone!r} in report for {report.repo}") from error
    labels = LABELS[report.language]
    environment = create_environment(templates_dir)
    try:
        template = environment.get_template(REPORT_TEMPLATE)
        return template.render(
            report=report,
            labels=labels,
            groups=importance_groups(report, labels),
            importance_levels=list(Importance),
            importance_emoji=IMPORTANCE_EMOJI,
            commit_index={commit.short_sha: commit for commit in report.commits},
            commit_title=commit_title,
            pull_title=pull_title,
        )
    except Exception as error:  # a user's template can raise anything Python can
        raise template_error(error, REPORT_TEMPLATE) from error


def render_json(report: DailyReport) -> str:
    """The whole report as indented UTF-8 JSON: the public, reloadable form of a report."""
    return report.model_dump_json(indent=2) + "\n"


def importance_groups(report: DailyReport, labels: Labels) -> list[ImportanceGroup]:
    """Non-empty groups, high to low, each with its heading and that heading's GitHub slug."""
    members = {level: [c for c in report.commits if c.analysis.importance == level] for level in Importance}
    # The commits' own anchors are taken first: a commit titled "c-1a2b3c4" must not take another commit's id.
    seen: dict[str, int] = {commit_anchor(commit.short_sha): 0 for commit in report.commits}
    heading_slugs(report, labels, seen)
    groups = []
    for level, commits in members.items():
        if not commits:
            continue
        heading = labels.group_heading.format(
            emoji=IMPORTANCE_EMOJI[level], name=labels.importance_names[level], n=len(commits)
        )
        slug = github_slug(heading, seen)
        groups.append(
            ImportanceGroup(
                level, heading, slug, commits, [github_slug(plain_text(commit_title(c)), seen) for c in commits]
            )
        )
    return groups


def heading_slugs(report: DailyReport, labels: Labels, seen: dict[str, int] | None = None) -> list[str]:
    """The GitHub slugs of the headings above the first group, in the order the default template writes them."""
    seen = {} if seen is None else seen
    return [github_slug(heading, seen) for heading in _headings_before_groups(report, labels)]


def _headings_before_groups(report: DailyReport, labels: Labels) -> list[str]:
    """Texts of the headings the default template writes above the first group, in order."""
    return [
        labels.title.format(date=report.date),
        plain_text(report.repo),
        labels.highlights,
        labels.commit_list,
        labels.stats,
        labels.toc,
    ]
