"""Day-by-day reporting over a span, and a repository that lacks some of its objects.

Real git repositories built with pinned dates, the real CLI, real files.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from report_checks import check_report

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport
from repodaily.sources.git import collect_days, open_repository

SHANGHAI = ZoneInfo("Asia/Shanghai")
FIRST = date(2026, 2, 2)


def at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=SHANGHAI).astimezone(UTC)


def window(day: date) -> tuple[datetime, datetime]:
    return (
        datetime(day.year, day.month, day.day, tzinfo=SHANGHAI),
        datetime(day.year, day.month, day.day, 23, 59, 59, tzinfo=SHANGHAI),
    )


@pytest.fixture
def week(tmp_path: Path) -> RepoBuilder:
    """Seven days with two commits each, plus one pushed late: on day 6's line, committed on day 3."""
    builder = RepoBuilder(tmp_path / "week")
    for offset in range(7):
        day = FIRST + timedelta(days=offset)
        for hour in (9, 17):
            builder.commit(
                f"[Core] Work of {day} at {hour} (#{offset * 10 + hour})",
                when=at(day, hour),
                files={f"src/day{offset}.py": f"x = {hour}\n" * (offset + 1)},
            )
        if offset == 5:
            builder.commit("[Misc] Carried over from an old branch", when=at(FIRST + timedelta(days=1), 12))
    return builder


def test_collect_days_yields_each_window_in_order_with_its_own_commits(week: RepoBuilder, tmp_path: Path) -> None:
    source = open_repository(str(week.path), cache_dir=tmp_path / "cache")
    days = [FIRST + timedelta(days=offset) for offset in range(7)]

    got = [(index, [c.subject for c in commits]) for index, commits in collect_days(source, [window(d) for d in days])]

    assert [index for index, _ in got] == list(range(7))
    assert got[0][1] == [f"[Core] Work of {FIRST} at 17 (#17)", f"[Core] Work of {FIRST} at 9 (#9)"]
    # The late-pushed commit sits on day 6's part of the line but belongs to day 2 by its committer date.
    assert "[Misc] Carried over from an old branch" in got[1][1] and len(got[1][1]) == 3
    assert all(len(subjects) == 2 for index, subjects in got if index != 1)


def test_closing_the_day_stream_early_ends_git(week: RepoBuilder, tmp_path: Path) -> None:
    source = open_repository(str(week.path), cache_dir=tmp_path / "cache")
    stream = collect_days(source, [window(FIRST + timedelta(days=offset)) for offset in range(7)])
    index, commits = next(stream)
    assert index == 0 and len(commits) == 2
    stream.close()  # the git process behind it is killed and reaped; nothing is left running
    with pytest.raises(StopIteration):
        next(stream)


def test_a_range_writes_every_day_as_it_goes(week: RepoBuilder, tmp_path: Path) -> None:
    out = tmp_path / "reports"
    last = FIRST + timedelta(days=6)
    args = ["report", str(week.path), "--name", "acme/week", "--since", str(FIRST), "--until", str(last)]
    result = CliRunner().invoke(main, [*args, "--output", str(out), "--format", "md", "--format", "json"])

    assert result.exit_code == 0, result.stderr
    printed = [Path(line).stem for line in result.stdout.split()]
    assert printed == [str(FIRST + timedelta(days=n // 2)) for n in range(14)]  # md and json of each day, in order
    for offset in range(7):
        day = FIRST + timedelta(days=offset)
        report = DailyReport.model_validate_json((out / f"2026/acme/week/{day}.json").read_text(encoding="utf-8"))
        assert report.date == day and report.stats.total == (3 if offset == 1 else 2)
        check_report((out / f"2026/acme/week/{day}.md").read_text(encoding="utf-8"), report)


def test_a_range_on_stdout_is_one_json_array_oldest_first(week: RepoBuilder) -> None:
    args = ["report", str(week.path), "--name", "acme/week", "--since", str(FIRST), "--until", "2026-02-04"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])

    assert result.exit_code == 0, result.stderr
    assert [r["date"] for r in json.loads(result.stdout)] == ["2026-02-02", "2026-02-03", "2026-02-04"]


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[RepoBuilder, str]:
    """A day whose second commit's image blob is gone from the object store."""
    builder = RepoBuilder(tmp_path / "damaged")
    builder.commit("[Core] Add the scheduler (#1)", when=at(FIRST, 9), files={"src/scheduler.py": "run()\n"})
    broken = builder.commit(
        "[Doc] Add the architecture diagram (#2)",
        when=at(FIRST, 11),
        files={"docs/diagram.png": b"\x89PNG" + bytes(range(256)) * 40, "docs/index.md": "see diagram\n"},
    )
    builder.commit("[Core] Tune the scheduler (#3)", when=at(FIRST, 15), files={"src/scheduler.py": "run(fast)\n"})
    blob = builder.git("rev-parse", f"{broken}:docs/diagram.png")
    (builder.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    return builder, broken


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_commit_with_missing_objects_is_marked_and_the_run_exits_1(
    damaged: tuple[RepoBuilder, str], tmp_path: Path, lang: str
) -> None:
    builder, broken = damaged
    out = tmp_path / "reports"
    args = ["report", str(builder.path), "--name", "acme/damaged", "--date", str(FIRST), "--lang", lang]
    result = CliRunner().invoke(main, [*args, "--output", str(out), "--format", "md", "--format", "json"])

    assert result.exit_code == 1, result.stderr
    assert "1 commit(s) with file contents missing from the repository" in result.stderr
    report = DailyReport.model_validate_json((out / f"2026/acme/damaged/{FIRST}.json").read_text(encoding="utf-8"))
    assert report.stats.total == 3 and report.stats.incomplete == 1
    marked = {c.sha: c.missing_files for c in report.commits}
    assert marked == {sha: (["docs/diagram.png"] if sha == broken else []) for sha in marked}
    markdown = (out / f"2026/acme/damaged/{FIRST}.md").read_text(encoding="utf-8")
    check_report(markdown, report)
    banner = next(line for line in markdown.splitlines() if line.startswith("> ❗"))
    assert "1" in banner and markdown.index(banner) < markdown.index("###")
    section = markdown[markdown.index(f'<a id="c-{broken[:7]}">') :]
    assert "`docs/diagram.png`" in section[: section.index("---")]


def test_a_damaged_repository_on_stdout_also_exits_1(damaged: tuple[RepoBuilder, str]) -> None:
    builder, _ = damaged
    args = ["report", str(builder.path), "--name", "acme/damaged", "--date", str(FIRST), "--lang", "en"]
    result = CliRunner().invoke(main, args)

    assert result.exit_code == 1
    assert "The repository lacks file contents of 1 commit" in result.stdout


def test_the_stream_continues_across_git_processes(
    week: RepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = open_repository(str(week.path), cache_dir=tmp_path / "cache")
    windows = [window(FIRST + timedelta(days=offset)) for offset in range(7)]
    whole = [[c.sha for c in commits] for _, commits in collect_days(source, windows)]

    monkeypatch.setattr("repodaily.sources.git.log._COMMITS_PER_PROCESS", 3)  # 15 commits: five git processes
    chunked = [[c.sha for c in commits] for _, commits in collect_days(source, windows)]

    assert chunked == whole and sum(map(len, whole)) == 15
