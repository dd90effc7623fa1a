"""End to end through the command line: real git repositories, a real SQLite store, real files."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from registered import analyzer_plugin
from report_checks import check_report

from repodaily.analyzers import Analyzer
from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.demo.scenario import DEMO_DAY, build_demo_repo
from repodaily.errors import ProviderError
from repodaily.models import Analysis, AnalysisInput
from repodaily.store import Store

SHANGHAI = ZoneInfo("Asia/Shanghai")

# The demo day's first-parent commits, newest first (the side branch's two are not among them).
DEMO_SUBJECTS = [
    "chore: update CHANGELOG for 0.4.1 (#116)",
    "[Core] Split the scheduler | executor settings (#115)",
    "[Model] Add Qwen3 model support (#114)",
    "[Deps] Upgrade to torch 2.10 (#113)",
    "[Frontend] Accept caf\ufffd-style accented model names in the API (#112)",
    "docs: add the project logo (#111)",
    "[Build] Regenerate the op table (#110)",
    "[Misc] Move utils into inferno/common (#109)",
    "feat(cli)!: rename --max-batch to --max-num-seqs (#108)",
    'Revert "[Perf] Cache the tokenizer in each worker (#99)" (#107)',
    "[Bugfix] Fix flaky test_schedule (#106)",
    "[Kernel][2/2] Use the fused RMSNorm kernel in the model runner (#105)",
    "[Kernel][1/2] Add a fused RMSNorm kernel (#104)",
    "fix(scheduler): avoid a busy loop when the waiting queue drains (#103)",
    "[Security] Refuse pickled payloads on the IPC channel (#102)",
    "[Doc] Fix typo in the quickstart (#101)",
]


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repo(path)
    return path


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _demo(demo_repo: Path, *extra: str) -> tuple[int, str, str]:
    """``repodaily report`` on the demo day of the demo repository."""
    return _invoke("report", str(demo_repo), "--name", "demo-org/inferno", "--date", DEMO_DAY.isoformat(), *extra)


def _report_json(demo_repo: Path, *extra: str) -> dict:
    code, out, err = _demo(demo_repo, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------- the demo


def test_demo_command_works_offline_and_says_where_the_report_is(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "repodaily", "demo", "--dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    report_line = [line for line in result.stdout.splitlines() if line.startswith("Report: ")]
    assert len(report_line) == 1
    path = Path(report_line[0].removeprefix("Report: "))
    assert path.is_file() and path.suffix == ".md"
    assert path.with_suffix(".json").is_file()
    assert "16 commits" in result.stdout


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_demo_day_report_has_exactly_the_days_first_parent_commits(demo_repo, lang):
    data = _report_json(demo_repo, "--lang", lang)
    assert [c["subject"] for c in data["commits"]] == DEMO_SUBJECTS
    assert data["stats"]["total"] == len(DEMO_SUBJECTS)
    assert all(c["analysis"]["status"] == "ok" for c in data["commits"])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_demo_markdown_passes_the_structural_check(demo_repo, lang):
    from repodaily.models import DailyReport

    report = DailyReport.model_validate(_report_json(demo_repo, "--lang", lang))
    code, markdown, err = _demo(demo_repo, "--lang", lang)
    assert code == 0, err
    check_report(markdown, report)


def test_demo_table_shows_trailer_free_message_lines_with_pipes_escaped(demo_repo):
    code, markdown, _ = _demo(demo_repo)
    assert code == 0
    row = next(line for line in markdown.splitlines() if "[Core] Split" in line and line.startswith("| 2026"))
    assert row == (
        "| 2026-03-02 22:48:09 | Omar Haddad | [Core] Split the scheduler \\| executor settings (#115)"
        "<br>Scheduler settings and executor settings were one dataclass."
        "<br>They are two now; nothing changes for users. |"
    )
    first = next(line for line in markdown.splitlines() if "(#101)" in line and line.startswith("| 2026"))
    assert first.startswith("| 2026-03-02 00:00:00 | Sofia Marin |")
    last = next(line for line in markdown.splitlines() if "(#116)" in line and line.startswith("| 2026"))
    assert last.startswith("| 2026-03-02 23:59:59 | Lin Qiao |")


def test_non_utf8_message_is_kept_and_marked(demo_repo):
    data = _report_json(demo_repo)
    frontend = next(c for c in data["commits"] if "(#112)" in c["subject"])
    assert "\ufffd" in frontend["subject"]


# --------------------------------------------------------------------------- cache and resume


def test_rerun_of_the_same_day_is_served_from_the_cache(demo_repo):
    first = _report_json(demo_repo)
    second = _report_json(demo_repo)
    assert first["run"]["cached"] == 0
    assert second["run"]["cached"] == len(DEMO_SUBJECTS)
    assert [c["analysis"] for c in first["commits"]] == [c["analysis"] for c in second["commits"]]


class _Killed(BaseException):
    """Stands for the process being killed: not an error any handler may swallow."""


@analyzer_plugin("test-dies-after-five")
class _DiesAfterFive(Analyzer):
    name = "test-dies-after-five"
    calls: list[str] = []

    def __init__(self, **_settings: object) -> None:
        from repodaily.analyzers.heuristic import HeuristicAnalyzer

        self._inner = HeuristicAnalyzer(language="zh")

    @property
    def fingerprint(self) -> str:
        return "test-dies-after-five/1"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        if len(self.calls) >= 5 and not getattr(type(self), "revived", False):
            raise _Killed()
        self.calls.append(item.sha)
        result = await self._inner.analyze(item)
        return result.model_copy(update={"analyzer": self.fingerprint})


def test_a_killed_run_resumes_without_redoing_finished_commits(demo_repo):
    args = (
        "report",
        str(demo_repo),
        "--name",
        "demo-org/inferno",
        "--date",
        "2026-03-02",
        "--analyzer",
        "test-dies-after-five",
    )
    with pytest.raises(_Killed):
        CliRunner().invoke(main, list(args), catch_exceptions=False)
    done_before = list(_DiesAfterFive.calls)
    assert len(done_before) == 5
    _DiesAfterFive.revived = True
    code, _, err = _invoke(*args, "--format", "json")
    assert code == 0, err
    redone = set(_DiesAfterFive.calls[5:]) & set(done_before)
    assert redone == set()
    assert len(_DiesAfterFive.calls) == len(DEMO_SUBJECTS)


@analyzer_plugin("test-provider-down")
class _ProviderDown(Analyzer):
    name = "test-provider-down"

    def __init__(self, **_settings: object) -> None:
        pass

    @property
    def fingerprint(self) -> str:
        return "test-provider-down/1"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        raise ProviderError("HTTP 503 from the endpoint")


def test_failed_analyses_fall_back_visibly_and_exit_1(demo_repo):
    code, markdown, err = _demo(
        demo_repo,
        "--analyzer",
        "test-provider-down",
    )
    assert code == 1
    assert "⚠️" in markdown
    assert markdown.count("模型分析失败") >= len(DEMO_SUBJECTS)
    code, out, _ = _demo(
        demo_repo,
        "--analyzer",
        "test-provider-down",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert data["stats"]["degraded"] == len(DEMO_SUBJECTS)
    assert {c["analysis"]["status"] for c in data["commits"]} == {"fallback"}
    assert data["run"]["cached"] == 0  # fallbacks are never cached as the analyzer's result


# --------------------------------------------------------------------------- files, config, run


def test_run_writes_every_configured_repo_at_the_path_template(demo_repo, tmp_path):
    other = RepoBuilder(tmp_path / "quiet")
    other.commit("init", when=datetime(2026, 1, 1, tzinfo=SHANGHAI))
    (tmp_path / "repodaily.toml").write_text(
        f"""
[output]
dir = "{tmp_path / "out"}"
formats = ["md", "json"]

[[repos]]
name = "demo-org/inferno"
path = "{demo_repo}"

[[repos]]
name = "demo-org/quiet"
path = "{tmp_path / "quiet"}"
""",
        encoding="utf-8",
    )
    code, out, err = _invoke("run", "--date", "2026-03-02")
    assert code == 0, err
    written = sorted(Path(p).relative_to(tmp_path / "out").as_posix() for p in out.split())
    assert written == [
        "2026/demo-org/inferno/2026-03-02.json",
        "2026/demo-org/inferno/2026-03-02.md",
        "2026/demo-org/quiet/2026-03-02.json",
        "2026/demo-org/quiet/2026-03-02.md",
    ]
    quiet = (tmp_path / "out/2026/demo-org/quiet/2026-03-02.md").read_text(encoding="utf-8")
    assert "本日无提交" in quiet
    _check_written(tmp_path / "out")
    with sqlite3.connect(tmp_path / "xdg-cache" / "repodaily" / "repodaily.db") as db:
        (summary,) = db.execute("SELECT summary FROM runs WHERE finished_at IS NOT NULL").fetchone()
        reports = db.execute("SELECT repo, day, commits FROM reports ORDER BY repo").fetchall()
        highlight_rows = db.execute("SELECT count(*) FROM highlights").fetchone()[0]
    assert highlight_rows == 0  # the heuristic writes no highlights, so nothing is asked or stored
    recorded = json.loads(summary)
    assert (recorded["reports"], recorded["failed_repos"], recorded["degraded_commits"]) == (2, [], 0)
    assert (recorded["calls"], recorded["prompt_tokens"], recorded["cached"]) == (
        0,
        0,
        0,
    )  # the heuristic asks no model
    assert reports == [("demo-org/inferno", "2026-03-02", 16), ("demo-org/quiet", "2026-03-02", 0)]


def test_run_writes_the_other_repos_when_one_fails_in_any_way(demo_repo, tmp_path, monkeypatch):
    """A render error, a write error and an exception nobody foresaw, one per repository, in one run."""
    import repodaily.pipeline

    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "report.md.j2").write_text(
        '{% if report.repo == "demo-org/render-fails" %}{{ 1/0 }}{% endif %}{% include "default:report.md.j2" %}',
        encoding="utf-8",
    )
    names = ["demo-org/first", "demo-org/render-fails", "demo-org/write-fails", "demo-org/crashes", "demo-org/last"]
    repos = "".join(f'[[repos]]\nname = "{name}"\npath = "{demo_repo}"\n' for name in names)
    (tmp_path / "repodaily.toml").write_text(
        f'templates_dir = "{tmp_path / "templates"}"\n[output]\ndir = "{tmp_path / "out"}"\n'
        f'formats = ["md", "json"]\n{repos}',
        encoding="utf-8",
    )
    (tmp_path / "out" / "2026" / "demo-org").mkdir(parents=True)
    (tmp_path / "out" / "2026" / "demo-org" / "write-fails").write_text("a file where a directory must go")
    build_report = repodaily.pipeline.build_report

    def crashes_for_one(**kwargs):
        if kwargs["repo"] == "demo-org/crashes":
            raise KeyError("a bug in one repository's processing")
        return build_report(**kwargs)

    monkeypatch.setattr(repodaily.pipeline, "build_report", crashes_for_one)

    code, out, err = _invoke("run", *_DAY)

    assert code == 1
    assert [line for line in err.splitlines() if line.startswith("repodaily: error:")] == [
        f"repodaily: error: demo-org/render-fails: {tmp_path / 'templates' / 'report.md.j2'}, line 1: "
        "ZeroDivisionError: division by zero",
        f"repodaily: error: demo-org/write-fails 2026-03-02 → files: cannot write "
        f"{tmp_path / 'out/2026/demo-org/write-fails'}/2026-03-02.md: File exists",
        'repodaily: error: demo-org/crashes: unexpected KeyError: "a bug in one repository\'s processing" '
        "(rerun with -vv for the traceback)",
    ]
    # Without a terminal, a line per repository and target, and a total: what a cron or CI log shows.
    # Repositories work side by side, so their lines come as each is delivered; the errors keep the config's order.
    log = [line for line in err.splitlines() if not line.startswith("repodaily: error:")]
    assert sorted(line.split(" · ")[0] for line in log[:-1]) == [
        "repodaily: demo-org/first 2026-03-02 → files: delivered",
        "repodaily: demo-org/last 2026-03-02 → files: delivered",
        f"repodaily: demo-org/write-fails 2026-03-02 → files: failed: cannot write "
        f"{tmp_path / 'out/2026/demo-org/write-fails'}/2026-03-02.md: File exists",
    ]
    assert log[-1].startswith("repodaily: done: 5 repositories (2 failed), 3 reports, 48 commits (degraded 0); ")
    written = sorted(Path(p).relative_to(tmp_path / "out").as_posix() for p in out.split())
    assert written == [
        f"2026/{name}/2026-03-02.{fmt}" for name in ("demo-org/first", "demo-org/last") for fmt in ("json", "md")
    ]
    _check_written(tmp_path / "out")
    with sqlite3.connect(tmp_path / "xdg-cache" / "repodaily" / "repodaily.db") as db:
        (summary,) = db.execute("SELECT summary FROM runs WHERE finished_at IS NOT NULL").fetchone()
    assert json.loads(summary)["failed_repos"] == [names[1], names[3]]
    assert json.loads(summary)["failed_deliveries"] == ["demo-org/write-fails 2026-03-02 files"]


def _check_written(out_dir: Path) -> None:
    """Every Markdown file written passes the structural check against its JSON twin."""
    from repodaily.models import DailyReport

    markdown_files = sorted(out_dir.rglob("*.md"))
    assert markdown_files
    for path in markdown_files:
        report = DailyReport.model_validate_json(path.with_suffix(".json").read_text(encoding="utf-8"))
        check_report(path.read_text(encoding="utf-8"), report)


def test_dry_run_prints_and_writes_nothing(demo_repo, tmp_path):
    code, out, _ = _demo(
        demo_repo,
        "--output",
        str(tmp_path / "out"),
        "--dry-run",
    )
    assert code == 0
    assert "# would write" in out and "每日更新报告" in out
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("formats", "opening"), [('["md", "json"]', "# "), ('["json", "html"]', "{")])
def test_stdout_shows_the_first_of_the_configs_formats(demo_repo, tmp_path, formats, opening):
    """A config written for files (several formats) must not break a quick look at one day on stdout."""
    config = tmp_path / "repodaily.toml"
    config.write_text(f"[output]\nformats = {formats}\n", encoding="utf-8")
    code, out, err = _demo(demo_repo, "--config", str(config))
    assert code == 0, err
    assert out.startswith(opening)


@pytest.mark.parametrize("command", ["report", "run"])
def test_output_writes_there_instead_of_the_configured_targets(demo_repo, tmp_path, command):
    """``--output DIR`` is where the user looks next: the config's targets must not take the reports elsewhere."""
    config = tmp_path / "repodaily.toml"
    config.write_text(
        f'[[repos]]\nname = "demo-org/inferno"\npath = "{demo_repo}"\n\n'
        f'[[publish]]\ntype = "files"\ndir = "{tmp_path / "configured"}"\n',
        encoding="utf-8",
    )
    where = [str(demo_repo), "--name", "demo-org/inferno"] if command == "report" else []
    day = ["--date", DEMO_DAY.isoformat()]
    code, _, err = _invoke(command, *where, *day, "--config", str(config), "--output", str(tmp_path / "out"))
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").rglob("*.md")] == [f"{DEMO_DAY.isoformat()}.md"]
    assert not (tmp_path / "configured").exists()


def test_range_writes_one_file_per_day(demo_repo, tmp_path):
    code, out, err = _invoke(
        "report",
        str(demo_repo),
        "--name",
        "demo-org/inferno",
        "--since",
        "2026-03-01",
        "--until",
        "2026-03-03",
        "--output",
        str(tmp_path / "o"),
        "--lang",
        "en",
        "--format",
        "md",
        "--format",
        "json",
    )
    assert code == 0, err
    assert [Path(p).name for p in out.split() if p.endswith(".md")] == [
        "2026-03-01.md",
        "2026-03-02.md",
        "2026-03-03.md",
    ]
    _check_written(tmp_path / "o")
    day_before = (tmp_path / "o/2026/demo-org/inferno/2026-03-01.md").read_text(encoding="utf-8")
    assert "[Perf] Cache the tokenizer" in day_before and "Tidy imports" in day_before
    assert "Nightly GPU job" in (tmp_path / "o/2026/demo-org/inferno/2026-03-03.md").read_text(encoding="utf-8")


def test_url_is_mirrored_and_named_from_its_path(demo_repo, tmp_path):
    remote = tmp_path / "acme" / "widget.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(demo_repo), str(remote)], check=True)
    config = tmp_path / "c.toml"
    config.write_text(f'cache_dir = "{tmp_path / "cache"}"\n', encoding="utf-8")
    code, out, err = _invoke(
        "report", f"file://{remote}", "--date", "2026-03-02", "--format", "json", "--config", str(config)
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["repo"] == "acme/widget"
    assert data["stats"]["total"] == len(DEMO_SUBJECTS)
    assert any((tmp_path / "cache" / "repos").iterdir())


@pytest.mark.parametrize("origin", ["https://git.example/../..", "https://git.example/a b/c", "git@git.example:./."])
def test_a_name_found_in_an_origin_that_names_no_repository_is_not_taken(demo_repo, tmp_path, origin):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(demo_repo), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "remote", "set-url", "origin", origin], check=True)
    code, out, err = _invoke("report", str(clone), "--date", "2026-03-02", "--output", str(tmp_path / "out"))
    assert (code, out) == (2, "") and not (tmp_path / "out").exists()
    assert err.startswith(f"repodaily: error: cannot tell owner/repo for '{clone}' (") and err.count("\n") == 1
    assert err.endswith("is not one); give it with --name or `name =`\n")


@pytest.mark.parametrize(
    "base_url",
    ["ftp://llm.example/v1", "http://[::1/v1", "http://llm.example:99999/v1", "https://u:sk-Hidden0123456@[x/v1"],
)
def test_an_endpoint_url_that_is_no_http_url_is_refused_in_one_line_without_it(demo_repo, monkeypatch, base_url):
    # Refused before any commit is read, not by every commit's request; the URL may hold the key, so it is not repeated.
    monkeypatch.setenv("LLM_BASE_URL", base_url)
    monkeypatch.setenv("LLM_MODEL", "m")
    code, out, err = _demo(demo_repo)
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith("repodaily: error: LLM_BASE_URL/LLM_MODEL: base_url: Value error, not a")
    assert "Hidden" not in err and "llm.example" not in err


def test_two_entries_named_alike_are_refused_before_anything_is_written(demo_repo, tmp_path):
    quiet = RepoBuilder(tmp_path / "quiet")
    quiet.commit("init", when=datetime(2026, 3, 2, 9, tzinfo=SHANGHAI))
    entries = "".join(f'[[repos]]\nname = "demo-org/inferno"\npath = "{path}"\n' for path in (demo_repo, quiet.path))
    (tmp_path / "repodaily.toml").write_text(f'[output]\ndir = "{tmp_path / "out"}"\n{entries}', encoding="utf-8")
    code, out, err = _invoke("run", "--date", "2026-03-02")
    assert code == 2 and out == ""
    assert err == (
        "repodaily: error: repodaily.toml: repos: Value error, "
        "two [[repos]] entries are named 'demo-org/inferno': give each its own `name`\n"
    )
    assert not (tmp_path / "out").exists()


def test_two_entries_a_source_names_alike_report_the_repository_once(demo_repo, tmp_path):
    urls = []
    for place in ("one", "two"):
        remote = tmp_path / place / "acme" / "widget.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(demo_repo), str(remote)], check=True)
        urls.append(f"file://{remote}")
    entries = "".join(f'[[repos]]\nurl = "{url}"\n' for url in urls)
    (tmp_path / "repodaily.toml").write_text(
        f'cache_dir = "{tmp_path / "cache"}"\n[output]\ndir = "{tmp_path / "out"}"\n{entries}', encoding="utf-8"
    )
    code, out, err = _invoke("run", "--date", "2026-03-02")
    assert code == 1
    assert out.split() == [str(tmp_path / "out/2026/acme/widget/2026-03-02.md")]
    (failed,) = [line for line in err.splitlines() if "error:" in line]
    assert "is acme/widget, as" in failed and "give each [[repos]] entry a `name`" in failed


def test_foreign_words_on_stderr_are_shown_not_run_by_the_terminal(tmp_path):
    # A key of the user's file is quoted back in the error, as a server's or a commit's words are in others.
    config = tmp_path / "c.toml"
    config.write_text('"\\u001b]8;;https://evil.example\\u0007click\\u202eereh" = 1\n', encoding="utf-8")
    code, out, err = _invoke("run", "--config", str(config))
    assert (code, out) == (2, "")
    assert err == f"repodaily: error: {config}: \ufffd]8;;https://evil.example\ufffdclick\ufffdereh: unknown key\n"


# --------------------------------------------------------------------------- bad input


def _run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own: what a user sees, tracebacks included."""
    return subprocess.run(
        [sys.executable, "-m", "repodaily", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _assert_one_error_line(result: subprocess.CompletedProcess[str], code: int, fragment: str) -> str:
    assert "Traceback" not in result.stderr
    assert result.returncode == code, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("repodaily: error: "), result.stderr
    assert fragment in lines[0]
    return lines[0]


def test_an_error_that_quotes_an_enormous_value_is_cut_to_one_readable_line() -> None:
    result = _run_cli("report", ".", "--name", "o/r", "--date", "2026-03-02", "--timezone", "Zone/" + "A" * 20_000)
    line = _assert_one_error_line(result, 2, "unknown IANA timezone 'Zone/AAA")
    assert len(line) <= 2000 and line.endswith("…")


@pytest.fixture
def bad_inputs(tmp_path: Path) -> Path:
    """Files the bad-input cases name, under ``tmp_path``."""
    (tmp_path / "broken.toml").write_text("[context\nbudget_tokens = 1\n", encoding="utf-8")
    (tmp_path / "nested.toml").write_text("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", encoding="utf-8")
    (tmp_path / "tpl-long.toml").write_text(f'templates_dir = "{tmp_path / ("t" * 300)}"\n', encoding="utf-8")
    for name, path in {"path-attribute": "{repo.__class__}/{date}.md", "path-width": "{date:>99999999}.md"}.items():
        (tmp_path / f"{name}.toml").write_text(f'[output]\npath = "{path}"\n', encoding="utf-8")
    (tmp_path / "stranger.toml").write_text('cache_dir = "~no-such-user-rd/cache"\n', encoding="utf-8")
    (tmp_path / "latin1.toml").write_bytes(b'timezone = "UTC"\n# r\xe9sum\xe9\n')
    (tmp_path / "blocker").write_text("not a directory", encoding="utf-8")
    os.mkfifo(tmp_path / "fifo")  # no one ever writes to it: opening it to read would wait for ever
    (tmp_path / "fifo-conventions.toml").write_text(
        f'[[repos]]\nname = "o/r"\npath = "."\nconventions = "{tmp_path / "fifo"}"\n', encoding="utf-8"
    )
    (tmp_path / "badcache.toml").write_text(f'cache_dir = "{tmp_path / "blocker" / "cache"}"\n', encoding="utf-8")
    (tmp_path / "garbage-cache").mkdir()
    (tmp_path / "garbage-cache" / "repodaily.db").write_bytes(bytes(range(256)) * 16)
    subprocess.run(["git", "init", "--quiet", str(tmp_path / "empty-repo")], check=True)
    (tmp_path / "garbage-db.toml").write_text(f'cache_dir = "{tmp_path / "garbage-cache"}"\n', encoding="utf-8")
    label = {"type": "fix", "importance": "low", "security": False, "breaking": False, "user_facing": False}
    days = [{**label, "sha": "0" * 40, "date": "0001-01-01"}, {**label, "sha": "1" * 40, "date": "2026-03-02"}]
    (tmp_path / "year-1.json").write_text(json.dumps(days), encoding="utf-8")
    Store(tmp_path / "cut-cache").close()  # a store as a full disk or a copy cut short leaves it: its first pages
    with (tmp_path / "cut-cache" / "repodaily.db").open("r+b") as store:
        store.truncate(3 * 4096)
    (tmp_path / "dir-cache" / "repodaily.db").mkdir(parents=True)
    for name in ("cut", "dir"):
        (tmp_path / f"{name}-db.toml").write_text(f'cache_dir = "{tmp_path / f"{name}-cache"}"\n', encoding="utf-8")
    for name, source in _RAISING_TEMPLATES.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.md.j2").write_text(source, encoding="utf-8")
        (tmp_path / f"{name}.toml").write_text(f'templates_dir = "{tmp_path / name}"\n', encoding="utf-8")
    return tmp_path


_RAISING_TEMPLATES = {
    "tpl-zero": "# {{ report.repo }}\n{{ 1/0 }}\n",
    "tpl-self": '{% include "report.md.j2" %}\n',
    "tpl-filter": "{{ report.repo|number }}\n",
    "tpl-undefined": "{{ nope }}\n",
}
_REPORT = ["report", "{demo}", "--name", "o/r", "--output", "{out}"]
_DAY = ["--date", "2026-03-02"]
_BAD_INPUTS = [
    # (id, arguments, environment, exit code, fragment of the one line)
    ("empty-location", ["report", "", "--name", "o/r", "--output", "{out}", *_DAY], {}, 2, "PATH_OR_URL is empty"),
    ("path-name-too-long", ["report", "{tmp}/" + "a" * 300, "--name", "o/r", "--output", "{out}", *_DAY], {}, 2,
     "is not usable: File name too long"),
    ("templates-dir-name-too-long", [*_REPORT, *_DAY, "--config", "{tmp}/tpl-long.toml"], {}, 3,
     "does not exist"),
    ("path-of-an-unknown-user", ["report", "~no-such-user-rd/repo", "--name", "o/r", "--output", "{out}", *_DAY], {},
     2, "no user 'no-such-user-rd' on this system"),
    ("cache-of-an-unknown-user", [*_REPORT, *_DAY, "--config", "{tmp}/stranger.toml"], {}, 2,
     "no user 'no-such-user-rd' on this system"),
    ("no-such-path", ["report", "/no/such/repo", "--name", "o/r", "--output", "{out}", *_DAY], {}, 2, "/no/such/repo"),
    ("no-such-remote", ["report", "file:///no/such/remote.git", "--output", "{out}", *_DAY], {}, 2, "remote.git"),
    ("future", [*_REPORT, "--date", "2999-01-01"], {}, 2, "in the future"),
    ("inverted", [*_REPORT, "--since", "2026-03-05", "--until", "2026-03-01"], {}, 2, "is after --until"),
    ("no-such-day", [*_REPORT, "--date", "2026-02-30"], {}, 2, "is not a date"),
    ("empty-date", [*_REPORT, "--date", ""], {}, 2, "--date '' is not a date"),
    ("empty-since", [*_REPORT, "--since", ""], {}, 2, "--since '' is not a date"),
    ("year-1", [*_REPORT, "--date", "0001-01-01"], {}, 2, "before 1970"),
    ("timezone-a-zone-directory", [*_REPORT, *_DAY, "--timezone", "Asia"], {}, 2, "unknown IANA timezone 'Asia'"),
    ("timezone-past-a-file-name", [*_REPORT, *_DAY, "--timezone", "A" * 300], {}, 2, "unknown IANA timezone 'AAA"),
    ("empty-timezone", [*_REPORT, *_DAY, "--timezone", ""], {}, 2, "unknown IANA timezone ''"),
    ("name-without-slash", ["report", "{demo}", "--name", "noslash", "--output", "{out}", *_DAY], {}, 2, "OWNER/REPO"),
    ("name-with-an-escape", ["report", "{demo}", "--name", "o/r\x1b[2J", "--output", "{out}", *_DAY], {}, 2,
     "is not OWNER/REPO"),
    ("name-with-a-bidi-override", ["report", "{demo}", "--name", "o/\u202er", "--output", "{out}", *_DAY], {}, 2,
     "is not OWNER/REPO"),
    ("name-past-a-directory-name", ["report", "{demo}", "--name", "o/" + "r" * 256, "--output", "{out}", *_DAY], {},
     2, "cannot be a directory name"),
    ("name-not-utf8", ["report", "{demo}", "--name", "o/r\udcff", *_DAY, "--format", "json"], {}, 2,
     "is not OWNER/REPO"),
    ("no-such-branch", [*_REPORT, "--branch", "nope", *_DAY], {}, 2, "nope"),
    ("unnamed-on-a-branch", ["report", "{demo}", "--branch", "main", "--output", "{out}", *_DAY], {}, 2,
     "cannot tell owner/repo for '/"),
    ("no-commits-yet", ["report", "{tmp}/empty-repo", "--name", "o/r", "--output", "{out}", *_DAY], {}, 2,
     "has no commits yet"),
    ("no-such-analyzer", [*_REPORT, "--analyzer", "nope", *_DAY], {}, 2, "unknown analyzer"),
    ("broken-toml", [*_REPORT, *_DAY, "--config", "{tmp}/broken.toml"], {}, 2, "not valid TOML"),
    ("toml-nested-past-any-reader", [*_REPORT, *_DAY, "--config", "{tmp}/nested.toml"], {}, 2,
     "not valid TOML: nested too deeply"),
    ("env-nested-past-any-reader", [*_REPORT, *_DAY], {"REPODAILY__LANGUAGE": "[" * 5000 + "]" * 5000}, 2,
     "language: Input should be 'zh' or 'en'"),
    ("path-template-reads-an-attribute", [*_REPORT, *_DAY, "--config", "{tmp}/path-attribute.toml"], {}, 2,
     "output.path: Value error, unknown or malformed field in path template: 'repo.__class__'"),
    ("path-template-pads-a-field", [*_REPORT, *_DAY, "--config", "{tmp}/path-width.toml"], {}, 2,
     "output.path: Value error, unknown or malformed field in path template: 'date:>99999999'"),
    ("config-that-never-ends", [*_REPORT, *_DAY, "--config", "/dev/zero"], {}, 2,
     "config file /dev/zero: cannot read: not a regular file (a character device)"),
    ("config-a-fifo-no-one-writes", [*_REPORT, *_DAY, "--config", "{tmp}/fifo"], {}, 2,
     "cannot read: not a regular file (a FIFO)"),
    ("config-env-a-fifo", [*_REPORT, *_DAY], {"REPODAILY_CONFIG": "{tmp}/fifo"}, 2, "not a regular file (a FIFO)"),
    ("conventions-a-fifo", [*_REPORT, *_DAY, "--config", "{tmp}/fifo-conventions.toml"], {}, 2,
     "not a regular file (a FIFO)"),
    ("labels-that-never-end", ["eval", "/dev/zero", "--repo", "{demo}", "--name", "o/r"], {}, 2,
     "/dev/zero: cannot read labels file: not a regular file (a character device)"),
    ("labels-dated-year-1", ["eval", "{tmp}/year-1.json", "--repo", "{demo}", "--name", "o/r"], {}, 2,
     "year-1.json: labelled days 0001-01-01..2026-03-02: 0001-01-01 is before 1970"),
    ("labels-a-fifo", ["eval", "{tmp}/fifo", "--repo", "{demo}", "--name", "o/r"], {}, 2,
     "cannot read labels file: not a regular file (a FIFO)"),
    ("config-not-utf8", [*_REPORT, *_DAY, "--config", "{tmp}/latin1.toml"], {}, 2, "not UTF-8 (byte 0xe9"),
    ("config-is-a-dir", [*_REPORT, *_DAY, "--config", "{tmp}"], {}, 2, "'--config'"),
    ("config-env-is-a-dir", [*_REPORT, *_DAY], {"REPODAILY_CONFIG": "{tmp}"}, 2, "not a regular file (a directory)"),
    ("env-names-no-key", [*_REPORT, *_DAY], {"REPODAILY__": "x"}, 2, "names no key"),
    ("unusable-cache", [*_REPORT, *_DAY, "--config", "{tmp}/badcache.toml"], {}, 2,
     "not usable: Not a directory; a file stands where the cache directory goes: move it, or set cache_dir"),
    ("store-not-a-db", [*_REPORT, *_DAY, "--config", "{tmp}/garbage-db.toml"], {}, 2,
     "repodaily.db: cannot open the store: file is not a database; not a repodaily store: move it aside"),
    ("store-cut-short", [*_REPORT, *_DAY, "--config", "{tmp}/cut-db.toml"], {}, 2,
     "repodaily.db: cannot open the store: database disk image is malformed; not a repodaily store: move it aside"),
    ("store-a-directory", [*_REPORT, *_DAY, "--config", "{tmp}/dir-db.toml"], {}, 2,
     "repodaily.db: cannot open the store: not a regular file (a directory); not a repodaily store: move it aside"),
    ("no-repos", ["run", *_DAY, "--output", "{out}"], {}, 2, "no repositories configured"),
    # click's own usage errors, one line too
    ("lang-xx", [*_REPORT, *_DAY, "--lang", "xx"], {}, 2, "'xx' is not one of 'zh', 'en'"),
    ("format-xml", [*_REPORT, *_DAY, "--format", "xml"], {}, 2, "unknown format 'xml'"),
    ("output-is-a-file", ["report", "{demo}", "--name", "o/r", *_DAY, "--output", "{tmp}/blocker"], {}, 2, "is a file"),
    ("output-is-a-device", ["report", "{demo}", "--name", "o/r", *_DAY, "--output", "/dev/null"], {}, 2,
     "'/dev/null' is not a directory but a character device"),
    ("output-is-a-fifo", ["report", "{demo}", "--name", "o/r", *_DAY, "--output", "{tmp}/fifo"], {}, 2,
     "is not a directory but a FIFO"),
    ("unknown-option", [*_REPORT, *_DAY, "--bogus"], {}, 2, "No such option"),
    ("missing-argument", ["report"], {}, 2, "Missing argument 'PATH_OR_URL'"),
    ("unknown-command", ["reprot"], {}, 2, "No such command"),
    ("run-lang-xx", ["run", "--lang", "xx"], {}, 2, "'xx' is not one of"),
    ("two-formats-on-stdout", ["report", "{demo}", "--name", "o/r", *_DAY, "--format", "md", "--format", "json"], {}, 2,
     "stdout takes one --format"),
    # a user's template that raises
    ("template-divides-by-zero", [*_REPORT, *_DAY, "--config", "{tmp}/tpl-zero.toml"], {}, 3,
     "report.md.j2, line 2: ZeroDivisionError"),
    ("template-includes-itself", [*_REPORT, *_DAY, "--config", "{tmp}/tpl-self.toml"], {}, 3, "RecursionError"),
    ("template-filter-raises", [*_REPORT, *_DAY, "--config", "{tmp}/tpl-filter.toml"], {}, 3, "ValueError"),
    ("template-undefined", [*_REPORT, *_DAY, "--config", "{tmp}/tpl-undefined.toml"], {}, 3, "'nope' is undefined"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "env", "code", "fragment"), [pytest.param(*case[1:], id=case[0]) for case in _BAD_INPUTS]
)
def test_bad_input_is_one_line_with_its_exit_code_and_no_report(demo_repo, bad_inputs, args, env, code, fragment):
    values = {"demo": str(demo_repo), "out": str(bad_inputs / "out"), "tmp": str(bad_inputs)}
    result = _run_cli(
        *(a.format(**values) for a in args), env={key: value.format(**values) for key, value in env.items()}
    )
    _assert_one_error_line(result, code, fragment)
    assert result.stdout == ""
    assert not (bad_inputs / "out").exists()


def test_the_null_device_as_config_is_an_empty_config(demo_repo, tmp_path):
    """``--config /dev/null`` is the shell's "no config": a device, but one that reads as empty at once."""
    out = tmp_path / "out"
    result = _run_cli(
        "report", str(demo_repo), "--name", "o/r", "--date", "2026-03-02", "--output", str(out), "--config", os.devnull
    )
    assert result.returncode == 0, result.stderr
    assert list(out.rglob("*.md"))


def test_eval_json_into_a_fifo_no_one_reads_is_one_line_not_a_hang(demo_repo, tmp_path):
    """Opening a FIFO to write waits for a reader: with none, eval would print its table and never end."""
    sha = subprocess.run(
        ["git", "-C", str(demo_repo), "log", "-1", "--format=%H", "--until=2026-03-02T23:00:00+08:00"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    label = {"sha": sha, "date": "2026-03-02", "type": "fix", "importance": "low"}
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps([{**label, "security": False, "breaking": False, "user_facing": False}]))
    os.mkfifo(tmp_path / "fifo")
    result = _run_cli("eval", str(labels), "--repo", str(demo_repo), "--name", "o/r", "--json", str(tmp_path / "fifo"))
    _assert_one_error_line(result, 2, "fifo: cannot write: a FIFO no one reads")


def test_commits_with_dates_no_clock_shows_are_reported_end_to_end(tmp_path):
    """Headers written with ``hash-object --literally``, as other tools have: the day is still reported."""
    builder = RepoBuilder(tmp_path / "odd")
    builder.commit("Initial import", when=datetime(2026, 3, 1, tzinfo=SHANGHAI))
    noon = int(datetime(2026, 3, 2, 12, tzinfo=SHANGHAI).timestamp())
    headers = {
        "Offset +9999": (f"{noon} +9999", f"{noon} +9999"),
        "Offset -0000": (f"{noon + 1} -0000", f"{noon + 1} -0000"),
        "Author in the year 3170843": ("99999999999999 +0000", f"{noon + 2} +0800"),
        "Author before 1970": ("-100 +0000", f"{noon + 3} +0800"),
        "Author ident without its '>'": (f"{noon} +0800", f"{noon + 4} +0800"),
    }
    for subject, (authored, committed) in headers.items():
        close = "" if "without" in subject else ">"
        builder.write("f.txt", subject)
        builder.git("add", "-A")
        builder.write_commit(f"A <a@x{close} {authored}".encode(), f"C <c@x> {committed}".encode(), subject.encode())

    result = _run_cli("report", str(builder.path), "--name", "o/odd", "--date", "2026-03-02", "--format", "json")

    assert (result.returncode, result.stderr) == (0, "")
    commits = json.loads(result.stdout)["commits"]
    assert [c["subject"] for c in commits] == list(reversed(headers))
    assert commits[-1]["committed_at"] == "2026-03-02T04:00:00Z"
    assert all(c["date_issues"] for c in commits if "-0000" not in c["subject"])
    markdown = _run_cli("report", str(builder.path), "--name", "o/odd", "--date", "2026-03-02", "--lang", "en")
    assert (markdown.returncode, markdown.stderr) == (0, "")
    assert "| 2026-03-02 12:00:00 | A | Offset +9999 |" in markdown.stdout


def test_the_json_gives_every_commit_time_in_utc_whatever_offset_git_stored(tmp_path):
    """The format promises UTC: a program comparing times as text must not meet +08:00 beside Z."""
    builder = RepoBuilder(tmp_path / "offsets")
    builder.commit("Initial import", when=datetime(2026, 3, 1, tzinfo=SHANGHAI))
    noon = datetime(2026, 3, 2, 12, tzinfo=SHANGHAI)
    offsets = {"+0800": 8, "+1400": 14, "-1200": -12, "+0530": 5.5}
    for minute, (offset, hours) in enumerate(offsets.items()):
        builder.commit(
            f"Stored at {offset}", when=(noon + timedelta(minutes=minute)).astimezone(timezone(timedelta(hours=hours)))
        )
    result = _run_cli("report", str(builder.path), "--name", "o/offsets", "--date", "2026-03-02", "--format", "json")
    assert (result.returncode, result.stderr) == (0, "")
    times = [c["committed_at"] for c in json.loads(result.stdout)["commits"]]
    assert times == ["2026-03-02T04:03:00Z", "2026-03-02T04:02:00Z", "2026-03-02T04:01:00Z", "2026-03-02T04:00:00Z"]


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_stdout_whose_encoding_cannot_hold_the_report_gets_it_in_utf8(demo_repo, encoding):
    """A locale's encoding (PYTHONIOENCODING, a redirect on a cp1252 system) once lost the report to a
    UnicodeEncodeError, quoted whole on stderr as the target's "one line"."""
    args = ["report", str(demo_repo), "--name", "o/r", *_DAY]
    expected = _run_cli(*args)
    assert expected.returncode == 0, expected.stderr
    shown = _run_cli(*args, env={"PYTHONIOENCODING": encoding})
    assert (shown.returncode, shown.stderr, shown.stdout) == (0, "", expected.stdout)


def test_a_cached_analysis_corrupted_by_hand_is_analysed_again_not_fatal(demo_repo, tmp_path):
    args = ["report", str(demo_repo), "--name", "demo-org/inferno", *_DAY, "--format", "json"]
    first = _run_cli(*args)
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(tmp_path / "xdg-cache" / "repodaily" / "repodaily.db") as db:
        shas = [sha for (sha,) in db.execute("SELECT sha FROM analyses ORDER BY sha LIMIT 3")]
        db.execute("UPDATE analyses SET analysis = '{not json' WHERE sha = ?", (shas[0],))
        db.execute(
            "UPDATE analyses SET analysis = json_set(analysis, '$.importance', 'vital') WHERE sha = ?", shas[1:2]
        )
        db.execute("UPDATE analyses SET analysis = json_remove(analysis, '$.one_line') WHERE sha = ?", shas[2:])

    second = _run_cli(*args)

    assert second.returncode == 0 and "Traceback" not in second.stderr
    (warning,) = second.stderr.splitlines()
    assert warning.startswith("repodaily: WARNING: 3 cached analyses of demo-org/inferno are unreadable")
    assert json.loads(second.stdout)["run"]["cached"] == len(DEMO_SUBJECTS) - 3
    assert json.loads(first.stdout)["commits"] == json.loads(second.stdout)["commits"]
    third = _run_cli(*args)
    assert (third.returncode, third.stderr) == (0, "")
    assert json.loads(third.stdout)["run"]["cached"] == len(DEMO_SUBJECTS)


# Runs the real command with one pipeline step replaced, to reach what no input can: an
# interrupt at a known moment, an exception nobody foresaw.
# A source plugin, registered through the one door, that does {action} while collecting.
_DRIVER = """
import os, signal, sys, time
from repodaily.cli import main
from repodaily.plugins import PluginSpec, registry
from repodaily.sources.base import Opened

class Failing:
    def __init__(self, **_context):
        pass

    def open(self):
        return Opened(name=None, branch="main")

    def collect_days(self, windows):
        {action}
        yield from ()

registry().add("source", PluginSpec("failing", Failing, locate=lambda location: {{}}))
main()
"""


def _run_driver(action: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _DRIVER.format(action=action), *args], capture_output=True, text=True, timeout=120
    )


def test_ctrl_c_is_one_line_and_exit_130(demo_repo):
    args = ("report", str(demo_repo), "--source", "failing", "--name", "o/r", *_DAY)
    result = _run_driver("os.kill(os.getpid(), signal.SIGINT)", *args)
    assert "Traceback" not in result.stderr
    assert (result.returncode, result.stderr) == (130, "repodaily: error: interrupted\n")


def test_sigterm_is_one_line_and_exit_143(demo_repo):
    args = ("report", str(demo_repo), "--source", "failing", "--name", "o/r", *_DAY)
    result = _run_driver("os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)", *args)
    assert (result.returncode, result.stderr) == (143, "repodaily: error: terminated\n")


def test_an_unexpected_exception_is_one_line_exit_3_and_its_traceback_goes_to_the_log_with_vv(demo_repo):
    args = ("report", str(demo_repo), "--source", "failing", "--name", "o/r", *_DAY)
    result = _run_driver("raise RuntimeError('no one saw this coming')", *args)
    line = _assert_one_error_line(result, 3, "unexpected RuntimeError: no one saw this coming")
    assert line.endswith("(rerun with -vv for the traceback)")
    verbose = _run_driver("raise RuntimeError('no one saw this coming')", "-vv", *args)
    assert verbose.returncode == 3
    assert "Traceback" in verbose.stderr and "no one saw this coming" in verbose.stderr
    assert verbose.stderr.splitlines()[-1] == line


def test_a_closed_stdout_ends_quietly_with_exit_141(demo_repo):
    process = subprocess.Popen(
        [sys.executable, "-m", "repodaily", "report", str(demo_repo), "--name", "o/r", *_DAY, "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the report is written, as `| head -0` would be
    stderr = process.stderr.read()
    assert (process.wait(timeout=120), stderr) == (141, b"")


def test_a_stdout_closed_from_the_start_ends_quietly_with_exit_141(demo_repo):
    """`repodaily report … >&-`: Python has no sys.stdout at all, which is the same news as a reader gone."""
    command = [sys.executable, "-m", "repodaily", "report", str(demo_repo), "--name", "o/r", *_DAY]
    closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *command], capture_output=True, timeout=120)
    assert (closed.returncode, closed.stderr) == (141, b"")


def test_doctor_names_a_failing_endpoint_once_per_problem(tmp_path):
    """The problem line under doctor's table is read and searched for: ``local: local: …`` reads as a bug."""
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "repodaily.toml"
    config.write_text(
        f'[[llm.endpoints]]\nname = "local"\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\n',
        encoding="utf-8",
    )
    result = _run_cli("doctor", "--config", str(config))
    assert result.returncode == 1, result.stderr
    (problem,) = [line for line in result.stdout.splitlines() if "connection failed" in line]
    assert problem.startswith("local: ") and "local: local:" not in problem


def test_help_is_still_click_help():
    for args in (["--help"], ["report", "--help"]):
        result = _run_cli(*args)
        assert result.returncode == 0 and result.stdout.startswith("Usage: ")
    bare = _run_cli()
    assert bare.returncode == 2 and "Usage: " in bare.stderr and "Commands:" in bare.stderr


@pytest.mark.parametrize("command", [[], ["report"], ["run"], ["demo"]])
def test_every_command_explains_itself(command):
    code, out, _ = _invoke(*command, "--help")
    assert code == 0
    assert "Usage:" in out and len(out.splitlines()) > 5
