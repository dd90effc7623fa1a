"""Digest: assemble one day's analysed commits into a :class:`DailyReport`.

This is where the day is seen as a whole: stats, and links that no single
commit shows — a revert pointing at what it reverts, the parts of a ``[k/N]``
series landing together.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import date

from repodaily.models import (
    Analysis,
    AnalysisStatus,
    Commit,
    DailyReport,
    DayLink,
    Highlight,
    Importance,
    ReportCommit,
    RunInfo,
    Stats,
)

_REVERTS_SHA_RE = re.compile(r"This reverts commit ([0-9a-f]{7,40})", re.IGNORECASE)
_REVERT_TITLE_RE = re.compile(r'^Revert\s+"(?P<title>.+)"\s*(\(#\d+\))?\s*$', re.IGNORECASE)
_SERIES_RE = re.compile(r"\[(?P<part>\d+|last)\s*/\s*(?P<total>\d+|n)\]", re.IGNORECASE)
_PR_SUFFIX_RE = re.compile(r"\s*\(#\d+\)\s*$")


def _github_web_url(repo_url: str | None) -> str | None:
    return repo_url.rstrip("/") if repo_url else None


def _report_commit(commit: Commit, analysis: Analysis, web_url: str | None) -> ReportCommit:
    pr = commit.pr_number
    return ReportCommit(
        sha=commit.sha,
        short_sha=commit.short_sha,
        url=f"{web_url}/commit/{commit.sha}" if web_url else None,
        committed_at=commit.committed_at,
        author=commit.author_name,
        subject=commit.subject,
        message_lines=commit.headline_lines,
        pr_number=pr,
        pr_url=f"{web_url}/pull/{pr}" if web_url and pr else None,
        encoding_issues=commit.encoding_issues,
        missing_files=[f.path for f in commit.files if f.content_missing],
        date_issues=commit.date_issues,
        analysis=analysis,
    )


def _stats(commits: list[Commit], analyses: list[Analysis]) -> Stats:
    importance = Counter(a.importance for a in analyses)
    return Stats(
        total=len(analyses),
        high=importance[Importance.high],
        medium=importance[Importance.medium],
        low=importance[Importance.low],
        degraded=sum(1 for a in analyses if a.status != AnalysisStatus.ok),
        incomplete=sum(1 for c in commits if any(f.content_missing for f in c.files)),
        by_type=dict(Counter(a.type.value for a in analyses).most_common()),
        additions=sum(f.additions for c in commits for f in c.files),
        deletions=sum(f.deletions for c in commits for f in c.files),
        files_changed=len({f.path for c in commits for f in c.files}),
    )


def _revert_links(commits: list[Commit]) -> list[DayLink]:
    """Tie each revert to the commit it reverts, by SHA in the body or by quoted title."""
    by_title = {_PR_SUFFIX_RE.sub("", c.subject): c for c in commits}
    links: list[DayLink] = []
    for commit in commits:
        target: str | None = None
        label = ""
        if match := _REVERTS_SHA_RE.search(commit.body):
            prefix = match.group(1).lower()
            target = next((c.sha for c in commits if c.sha.startswith(prefix)), prefix)
            label = prefix[:7]
        elif match := _REVERT_TITLE_RE.match(commit.subject):
            title = _PR_SUFFIX_RE.sub("", match.group("title"))
            reverted = by_title.get(title)
            target = reverted.sha if reverted else None
            label = title
        if target:
            links.append(DayLink(kind="revert", label=label, shas=[commit.sha, target]))
    return links


def _series_links(commits: list[Commit]) -> list[DayLink]:
    """Group commits whose titles carry the same ``[k/N]`` series marker and other tags."""
    groups: dict[str, list[Commit]] = defaultdict(list)
    for commit in commits:
        match = _SERIES_RE.search(commit.subject)
        if not match:
            continue
        prefix = commit.subject[: match.start()].strip()
        groups[f"{prefix} …/{match.group('total').upper()}".strip()].append(commit)
    links = []
    for key, members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda c: c.committed_at)
        links.append(DayLink(kind="series", label=key, shas=[c.sha for c in members]))
    return links


def build_report(
    *,
    repo: str,
    repo_url: str | None,
    day: date,
    timezone: str,
    language: str,
    commits: list[Commit],
    analyses: dict[str, Analysis],
    run: RunInfo,
    highlights: Sequence[Highlight] = (),
) -> DailyReport:
    """One report: ``commits`` newest first, each with its analysis from ``analyses``."""
    web_url = _github_web_url(repo_url)
    ordered = [analyses[c.sha] for c in commits]
    return DailyReport(
        repo=repo,
        repo_url=web_url,
        date=day,
        timezone=timezone,
        language=language,  # type: ignore[arg-type]
        commits=[_report_commit(c, analyses[c.sha], web_url) for c in commits],
        stats=_stats(commits, ordered),
        links=_revert_links(commits) + _series_links(commits),
        highlights=list(highlights),
        run=run,
    )
