from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from repodaily.digest import build_report
from repodaily.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    Commit,
    CoverageReceipt,
    FileChange,
    Importance,
    RunInfo,
)
from repodaily.sources.message import parse_message

TZ = ZoneInfo("Asia/Shanghai")
BASE = datetime(2026, 2, 9, 12, 0, tzinfo=TZ)


def _commit(n: int, subject: str, body: str = "", files: list[FileChange] | None = None) -> Commit:
    """A commit as the source builds it, its message parsed."""
    return Commit(
        sha=f"{n:x}".rjust(40, "a"),
        author_name=f"author {n}",
        authored_at=BASE,
        committed_at=BASE - timedelta(minutes=n),
        files=files or [],
        **parse_message(f"{subject}\n\n{body}").message_parts(),
    )


def _analysis(importance: Importance, status: AnalysisStatus = AnalysisStatus.ok, kind=ChangeType.fix) -> Analysis:
    return Analysis(
        type=kind,
        importance=importance,
        one_line="x",
        coverage=CoverageReceipt(budget_tokens=1, tokens_sent=0),
        analyzer="heuristic/test",
        status=status,
    )


def _report(commits, analyses, repo_url="https://github.com/o/r"):
    return build_report(
        repo="o/r",
        repo_url=repo_url,
        day=date(2026, 2, 9),
        timezone="Asia/Shanghai",
        language="zh",
        commits=commits,
        analyses=analyses,
        run=RunInfo(analyzer="heuristic/test"),
    )


def test_stats_count_importance_types_degradation_and_lines():
    commits = [
        _commit(1, "a (#1)", files=[FileChange(path="x.py", additions=3, deletions=1)]),
        _commit(2, "b", files=[FileChange(path="x.py", additions=2), FileChange(path="y.py", deletions=4)]),
        _commit(3, "c"),
    ]
    analyses = {
        commits[0].sha: _analysis(Importance.high, kind=ChangeType.feat),
        commits[1].sha: _analysis(Importance.low, AnalysisStatus.fallback),
        commits[2].sha: _analysis(Importance.low),
    }
    stats = _report(commits, analyses).stats
    assert (stats.total, stats.high, stats.medium, stats.low, stats.degraded) == (3, 1, 0, 2, 1)
    assert stats.by_type == {"fix": 2, "feat": 1}
    assert (stats.additions, stats.deletions, stats.files_changed) == (5, 5, 2)


def test_commit_and_pr_links_come_from_the_web_url():
    commit = _commit(1, "[Model] Add X (#34110)")
    report = _report([commit], {commit.sha: _analysis(Importance.medium)})
    (entry,) = report.commits
    assert entry.url == f"https://github.com/o/r/commit/{commit.sha}"
    assert entry.pr_url == "https://github.com/o/r/pull/34110"
    assert _report([commit], {commit.sha: _analysis(Importance.medium)}, repo_url=None).commits[0].url is None


def test_revert_points_at_the_reverted_commit_by_sha_and_by_title():
    original = _commit(5, "[Perf] Cache tokenizer (#99)")
    by_sha = _commit(2, 'Revert "[Perf] Cache tokenizer (#99)" (#107)', body=f"This reverts commit {original.sha}.")
    by_title = _commit(1, 'Revert "[Perf] Cache tokenizer"')
    commits = [by_title, by_sha, original]
    report = _report(commits, {c.sha: _analysis(Importance.low) for c in commits})
    reverts = [link for link in report.links if link.kind == "revert"]
    assert [link.shas for link in reverts] == [[by_title.sha, original.sha], [by_sha.sha, original.sha]]


def test_nested_and_tagged_reverts_point_at_the_title_they_name():
    original = _commit(4, "[Perf] Cache tokenizer (#99)")
    revert = _commit(3, 'Revert "[Perf] Cache tokenizer (#99)" (#100)')
    again = _commit(2, 'Revert "Revert "[Perf] Cache tokenizer (#99)" (#100)" (#101)')
    tagged = _commit(1, '[Bugfix] Revert "[Perf] Cache tokenizer"')
    commits = [tagged, again, revert, original]
    report = _report(commits, {c.sha: _analysis(Importance.low) for c in commits})
    assert [(link.shas, link.label) for link in report.links if link.kind == "revert"] == [
        ([tagged.sha, original.sha], "[Perf] Cache tokenizer"),
        ([again.sha, revert.sha], 'Revert "[Perf] Cache tokenizer (#99)"'),
        ([revert.sha, original.sha], "[Perf] Cache tokenizer"),
    ]


def test_series_parts_of_the_same_day_are_tied_together_in_order():
    parts = [
        _commit(1, "[XPU][2/N] add kernel (#2)"),
        _commit(2, "[XPU][1/N] add op (#1)"),
        _commit(3, "[CPU][1/3] lone"),
    ]
    report = _report(parts, {c.sha: _analysis(Importance.low) for c in parts})
    (series,) = [link for link in report.links if link.kind == "series"]
    assert series.shas == [parts[1].sha, parts[0].sha]
    assert series.label == "[XPU] …/N"


def test_empty_day_has_zero_stats():
    report = _report([], {})
    assert report.commits == [] and report.stats.total == 0 and not report.degraded
