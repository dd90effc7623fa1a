"""Digest: assemble one day's analysed commits into a :class:`DailyReport`.

This is where the day is seen as a whole: stats, the highlights
(:mod:`repodaily.highlights`), and links that no single commit shows — a
revert pointing at what it reverts, the parts of a ``[k/N]`` series landing
together. It reads what the source parsed out of each message
(``Commit.revert``, ``Commit.series``, ``Commit.title``), never the text itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, date
from typing import Literal

from repodaily.highlights import select_highlights
from repodaily.models import (
    Analysis,
    AnalysisStatus,
    Commit,
    DailyReport,
    DayLink,
    Highlight,
    Importance,
    PullRequest,
    Release,
    ReportCommit,
    RunInfo,
    Stats,
)


def _github_web_url(repo_url: str | None) -> str | None:
    return repo_url.rstrip("/") if repo_url else None


def _report_commit(
    commit: Commit, analysis: Analysis, web_url: str | None, pull_request: PullRequest | None
) -> ReportCommit:
    pr = commit.pr_number or (pull_request.number if pull_request else None)
    return ReportCommit(
        sha=commit.sha,
        short_sha=commit.short_sha,
        url=f"{web_url}/commit/{commit.sha}" if web_url else None,
        committed_at=commit.committed_at.astimezone(UTC),
        author=commit.author_name,
        subject=commit.subject,
        message_lines=commit.headline_lines,
        pr_number=pr,
        pr_url=(pull_request.url if pull_request else None) or (f"{web_url}/pull/{pr}" if web_url and pr else None),
        pull_request=pull_request,
        encoding_issues=commit.encoding_issues,
        missing_files=[f.path for f in commit.files if f.content_missing],
        date_issues=commit.date_issues,
        files_incomplete=commit.files_incomplete,
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
    """Tie each revert to the commit it reverts: by the SHA its body names, else by the title it names.

    A SHA is kept even when it is not one of the day's commits; a title only links
    to a commit of the day that bears it.
    """
    by_title = {c.title: c for c in commits}
    links: list[DayLink] = []
    for commit in commits:
        revert = commit.revert
        if revert is None:
            continue
        if revert.sha:
            target = next((c.sha for c in commits if c.sha.startswith(revert.sha)), revert.sha)
            links.append(DayLink(kind="revert", label=revert.sha[:7], shas=[commit.sha, target]))
        elif revert.title and (reverted := by_title.get(revert.title)):
            links.append(DayLink(kind="revert", label=revert.title, shas=[commit.sha, reverted.sha]))
    return links


def _series_links(commits: list[Commit]) -> list[DayLink]:
    """Group commits whose titles carry the same ``[k/N]`` series marker and other tags."""
    groups: dict[str, list[Commit]] = defaultdict(list)
    for commit in commits:
        if series := commit.series:
            total = "N" if series.total is None else series.total
            groups[f"{series.key} …/{total}".strip()].append(commit)
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
    language: Literal["zh", "en"],
    commits: list[Commit],
    analyses: dict[str, Analysis],
    run: RunInfo,
    highlights: Sequence[Highlight] = (),
    pull_requests: Mapping[str, PullRequest] | None = None,
    releases: Sequence[Release] = (),
    pull_context: bool | None = None,
) -> DailyReport:
    """One report: ``commits`` newest first, each with its analysis from ``analyses``.

    Its highlights are the commits :func:`select_highlights` picks, then the
    points the analyzer wrote over the day (``highlights``), if any. A commit
    whose SHA ``pull_requests`` maps shows that pull request; ``releases`` and
    ``pull_context`` (whether pull requests were read) are the report's as given.
    """
    web_url = _github_web_url(repo_url)
    ordered = [analyses[c.sha] for c in commits]
    pulls = pull_requests or {}
    report_commits = [_report_commit(c, analyses[c.sha], web_url, pulls.get(c.sha)) for c in commits]
    return DailyReport(
        repo=repo,
        repo_url=web_url,
        date=day,
        timezone=timezone,
        language=language,
        commits=report_commits,
        stats=_stats(commits, ordered),
        links=_revert_links(commits) + _series_links(commits),
        highlights=[*select_highlights(report_commits), *highlights],
        releases=list(releases),
        pull_context=pull_context,
        run=run,
    )
