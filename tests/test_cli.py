"""End to end through the command line: real git repositories, a real SQLite store, real files."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from report_checks import check_report

from repodaily.analyzers import Analyzer, register_analyzer
from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.demo.scenario import DEMO_DAY, build_demo_repo
from repodaily.errors import ProviderError
from repodaily.models import Analysis, AnalysisInput

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


@register_analyzer("test-dies-after-five")
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


@register_analyzer("test-provider-down")
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


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["report", "/no/such/repo", "--name", "o/r", "--date", "2026-03-02"], "/no/such/repo"),
        (["report", "file:///no/such/remote.git", "--name", "o/r", "--date", "2026-03-02"], "remote.git"),
        (["report", "{demo}", "--name", "o/r", "--date", "2999-01-01"], "in the future"),
        (["report", "{demo}", "--name", "o/r", "--since", "2026-03-05", "--until", "2026-03-01"], "is after --until"),
        (["report", "{demo}", "--name", "o/r", "--date", "2026-02-30"], "is not a date"),
        (["report", "{demo}", "--name", "o/r", "--date", "2026-03-02", "--config", "{broken}"], "not valid TOML"),
        (["report", "{demo}", "--name", "o/r", "--date", "2026-03-02", "--config", "{badcache}"], "not usable"),
        (["report", "{demo}", "--name", "o/r", "--branch", "nope", "--date", "2026-03-02"], "nope"),
        (["report", "{demo}", "--name", "o/r", "--analyzer", "nope", "--date", "2026-03-02"], "unknown analyzer"),
        (["run", "--date", "2026-03-02"], "no repositories configured"),
    ],
)
def test_bad_input_gives_one_clear_line_exit_2_and_no_file(demo_repo, tmp_path, args, fragment):
    (tmp_path / "broken.toml").write_text("[context\nbudget_tokens = 1\n", encoding="utf-8")
    (tmp_path / "blocker").write_text("not a directory", encoding="utf-8")
    (tmp_path / "badcache.toml").write_text(f'cache_dir = "{tmp_path / "blocker" / "cache"}"\n', encoding="utf-8")
    values = {
        "demo": str(demo_repo),
        "broken": str(tmp_path / "broken.toml"),
        "badcache": str(tmp_path / "badcache.toml"),
    }
    out_dir = tmp_path / "out"
    argv = [a.format(**values) for a in args] + ["--output", str(out_dir)]
    code, out, err = _invoke(*argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("repodaily: error: ")
    assert fragment in lines[0]
    assert not out_dir.exists() or not any(out_dir.rglob("*.*"))


@pytest.mark.parametrize("command", [[], ["report"], ["run"], ["demo"]])
def test_every_command_explains_itself(command):
    code, out, _ = _invoke(*command, "--help")
    assert code == 0
    assert "Usage:" in out and len(out.splitlines()) > 5
