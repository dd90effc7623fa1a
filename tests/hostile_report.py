"""A report whose every foreign field carries the hostile corpus (:mod:`hostile`), for the HTML pages' tests.

One commit per payload, each of high importance so every deep field is shown,
with the payload as its subject, author, message, pull-request title and labels,
file name, and every text an analyzer writes; the day's highlights, links and
releases carry them too.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta

from hostile import ALL

from repodaily.models import (
    Analysis,
    AnalysisStatus,
    CoverageReceipt,
    DailyReport,
    DayLink,
    FileReceipt,
    Flags,
    Highlight,
    Insight,
    PullRequest,
    Recommendation,
    Release,
    ReportCommit,
    RunInfo,
    Stats,
)


def _commit(index: int, name: str, text: str, day: date) -> ReportCommit:
    sha = hashlib.sha1(name.encode()).hexdigest()
    analysis = Analysis(
        type="fix",
        importance="high",
        importance_reason=text,
        flags=Flags(security=index % 2 == 0, breaking=index % 3 == 0, user_facing=True),
        summary=[text, f"{name} summary"],
        one_line=text or name,
        impact_scope=[text],
        insights=[Insight(aspect="security", text=text)],
        risks=[text],
        recommendations=[Recommendation(audience="users", text=text)],
        coverage=CoverageReceipt(
            budget_tokens=10,
            tokens_sent=1,
            files=[FileReceipt(path=text or "x", category="source", coverage="clipped", tokens_total=2, tokens_sent=1)],
        ),
        analyzer="heuristic/1",
        status=AnalysisStatus.fallback if index % 5 == 0 else AnalysisStatus.ok,
        note=text,
    )
    return ReportCommit(
        sha=sha,
        short_sha=sha[:7],
        url=f"https://github.com/acme/widget/commit/{sha}",
        committed_at=datetime(day.year, day.month, day.day, 4, 0, tzinfo=UTC) + timedelta(seconds=index),
        author=text,
        subject=text,
        message_lines=[text, text],
        pr_number=index + 1,
        pr_url="javascript:alert(1)",
        pull_request=PullRequest(number=index + 1, title=f"{text} PR", labels=[text], linked_issues=[7]),
        encoding_issues=[text],
        missing_files=[text],
        analysis=analysis,
    )


def hostile_report(day: date = date(2026, 3, 2), language: str = "zh") -> DailyReport:
    """The corpus as one day of acme/widget."""
    commits = [_commit(index, name, text, day) for index, (name, text) in enumerate(ALL.items())]
    first = ALL["subject-html-script"]
    return DailyReport(
        repo="acme/widget",
        repo_url="https://github.com/acme/widget",
        date=day,
        timezone="Asia/Shanghai",
        language=language,
        commits=commits,
        stats=Stats(total=len(commits), high=len(commits), by_type={"fix": len(commits), "<b>x</b>": 1}),
        links=[DayLink(kind="series", label=first, shas=[c.sha for c in commits[:3]])],
        highlights=[Highlight(kind="breaking", text=text, shas=[commits[0].sha]) for text in list(ALL.values())[:8]],
        releases=[Release(tag=first, url="javascript:alert(1)")],
        run=RunInfo(analyzer="heuristic/1", model=first, prompt_version=first),
    )
