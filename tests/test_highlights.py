"""The highlights block: what a reader who reads only the top of a report must not miss.

Real repositories built by git, reported by the CLI with the heuristic analyzer;
the selection is also checked on its own for analyses a model wrote (no surface),
and over arbitrary days for its invariant: every high commit is in the block.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from hostile import ALL, SUBJECTS
from hypothesis import given, settings
from hypothesis import strategies as st
from report_checks import anchor_ids, check_report, parse, rendered

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.highlights import select_highlights
from repodaily.models import (
    Analysis,
    ChangeType,
    CoverageReceipt,
    DailyReport,
    Flags,
    Highlight,
    HighlightKind,
    Importance,
    ReportCommit,
    RunInfo,
    Stats,
    SurfaceAction,
    SurfaceChange,
    SurfaceKind,
)
from repodaily.publish.chat.summary import summarize
from repodaily.render import render_markdown

SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY, QUIET_DAY, EMPTY_DAY = "2026-03-02", "2026-03-03", "2026-03-04"

_CLI = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4, help="How many workers.")
parser.add_argument("--legacy", action="store_true")
"""
_LEGACY = 'parser.add_argument("--legacy", action="store_true")\n'
_REGISTRY = '_MODELS = {{\n    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),\n{extra}}}\n'
_UPLOAD = "import os\n\n\ndef save(root, name, data):\n    path = os.path.join(root, name)\n    return path\n"
_SCHEDULER = """import threading


class Scheduler:
    def __init__(self):
        self.queue = []

    def push(self, item):
        self.queue.append(item)
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A day with one commit of each kind, a low one, then a day of only a typo fix, then a day of nothing."""
    builder = RepoBuilder(tmp_path_factory.mktemp("highlights") / "repo")
    start = datetime(2026, 3, 1, 10, 0, tzinfo=SHANGHAI)
    builder.commit(
        "Initial engine",
        when=start,
        files={
            "engine/cli.py": _CLI,
            "engine/models/registry.py": _REGISTRY.format(extra=""),
            "engine/upload.py": _UPLOAD,
            "engine/scheduler.py": _SCHEDULER,
            "VERSION": "1.1.0\n",
            "README.md": "# engine\n",
        },
    )
    day = datetime(2026, 3, 2, 9, 0, tzinfo=SHANGHAI)
    eight = _CLI.replace("default=4", "default=8")
    commits: list[tuple[str, dict[str, str]]] = [
        ("[Core] Use eight workers by default (#11)", {"engine/cli.py": eight}),
        (
            "feat(cli)!: drop the --legacy option (#12)\n\nBREAKING CHANGE: --legacy is gone.\n",
            {"engine/cli.py": eight.replace(_LEGACY, "")},
        ),
        (
            "[Security] Fix path traversal in uploads (CVE-2026-1234) (#13)",
            {"engine/upload.py": _UPLOAD.replace("name)\n", "os.path.basename(name))\n")},
        ),
        (
            "[Model] Add Mistral support (#14)",
            {
                "engine/models/registry.py": _REGISTRY.format(
                    extra='    "MistralForCausalLM": ("mistral", "MistralForCausalLM"),\n'
                ),
                "engine/models/mistral.py": "class MistralForCausalLM:\n    def forward(self, x):\n        return x\n",
            },
        ),
        (
            "[Bugfix] Fix race condition in the scheduler (#15)",
            {
                "engine/scheduler.py": _SCHEDULER.replace(
                    "        self.queue.append(item)\n",
                    "        with threading.Lock():\n            self.queue.append(item)\n",
                )
            },
        ),
        ("Release 1.2.0 (#16)", {"VERSION": "1.2.0\n"}),
        ("[Doc] Fix a typo (#17)", {"README.md": "# Engine\n"}),
    ]
    for minute, (message, files) in enumerate(commits):
        builder.commit(message, when=day + timedelta(minutes=minute), files=files)
    builder.commit("[Doc] Fix another typo", when=day + timedelta(days=1), files={"README.md": "# The engine\n"})
    return builder.path


def _run(repo: Path, day: str, *options: str) -> str:
    result = CliRunner().invoke(
        main, ["report", str(repo), "--name", "acme/engine", "--date", day, *options], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _both(repo: Path, day: str, language: str) -> tuple[DailyReport, str]:
    """The day's report as JSON and as Markdown."""
    report = DailyReport.model_validate(json.loads(_run(repo, day, "--lang", language, "--format", "json")))
    return report, _run(repo, day, "--lang", language)


def _block(markdown: str, language: str) -> list[str]:
    """The lines of the highlights block, between its heading and the next heading."""
    heading = {"zh": "### 📌 今日要点", "en": "### 📌 Highlights"}[language]
    start = markdown.index(heading + "\n")
    end = markdown.index("\n### ", start + 1)
    return [line for line in markdown[start + len(heading) : end].splitlines() if line]


def _sha(report: DailyReport, subject_start: str) -> str:
    return next(c.short_sha for c in report.commits if c.subject.startswith(subject_start))


# --------------------------------------------------------------------------- a real day


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_high_commit_is_in_the_block_and_its_links_resolve(repo: Path, language: str):
    report, markdown = _both(repo, DAY, language)
    check_report(markdown, report)  # every link in the report leads to a heading or an anchor
    high = {f"c-{c.short_sha}" for c in report.commits if c.analysis.importance == Importance.high}
    assert len(high) >= 4, "the fixture day has high commits, or this test checks nothing"
    targets = [target for line in _block(markdown, language) for target in re.findall(r"\]\(#([^)]+)\)", line)]
    assert high <= set(targets)
    assert set(targets) <= set(anchor_ids(parse(markdown)))  # each one a commit section of this report
    assert len(targets) == len(set(targets)), "a commit is listed once"


#: The fixture day's commits by the start of their subjects, as the expected lines name them.
_SUBJECTS = {"feat": "feat", "security": "[Security]", "core": "[Core]", "model": "[Model]", "release": "Release"}
_SUBJECTS |= {"bugfix": "[Bugfix]"}
_WORDING = {
    "zh": [
        "- 💥 破坏性变更：feat(cli)!: drop the --legacy option（移除 `--legacy`） —— [#12](#c-{feat})",
        "- 🔒 安全相关：\\[Security\\] Fix path traversal in uploads (CVE-2026-1234) —— [#13](#c-{security})",
        "- ⚙️ 默认值变更：\\[Core\\] Use eight workers by default（默认值 `--workers`：`4` → `8`） —— [#11](#c-{core})",
        "- ✨ 新增：\\[Model\\] Add Mistral support（新增 `MistralForCausalLM`） —— [#14](#c-{model})",
        "- 🏷️ 发布：Release 1.2.0 —— [#16](#c-{release})",
        "- 🔴 高重要度：\\[Bugfix\\] Fix race condition in the scheduler —— [#15](#c-{bugfix})",
    ],
    "en": [
        "- 💥 Breaking: feat(cli)!: drop the --legacy option (removed `--legacy`) — [#12](#c-{feat})",
        "- 🔒 Security: \\[Security\\] Fix path traversal in uploads (CVE-2026-1234) — [#13](#c-{security})",
        "- ⚙️ Default changed: \\[Core\\] Use eight workers by default (default of `--workers`: `4` → `8`) — "
        "[#11](#c-{core})",
        "- ✨ New: \\[Model\\] Add Mistral support (new `MistralForCausalLM`) — [#14](#c-{model})",
        "- 🏷️ Release: Release 1.2.0 — [#16](#c-{release})",
        "- 🔴 High importance: \\[Bugfix\\] Fix race condition in the scheduler — [#15](#c-{bugfix})",
    ],
}


@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_kind_in_its_order_with_its_wording(repo: Path, language: str):
    report, markdown = _both(repo, DAY, language)
    shas = {key: _sha(report, start) for key, start in _SUBJECTS.items()}
    assert _block(markdown, language) == [line.format(**shas) for line in _WORDING[language]]


def test_the_json_report_carries_the_block_typed(repo: Path):
    report, _ = _both(repo, DAY, "en")
    kinds = [(h.kind, h.text) for h in report.highlights]
    assert kinds == [
        (HighlightKind.breaking, "feat(cli)!: drop the --legacy option"),
        (HighlightKind.security, "[Security] Fix path traversal in uploads (CVE-2026-1234)"),
        (HighlightKind.default_changed, "[Core] Use eight workers by default"),
        (HighlightKind.added, "[Model] Add Mistral support"),
        (HighlightKind.release, "Release 1.2.0"),
        (HighlightKind.high, "[Bugfix] Fix race condition in the scheduler"),
    ]
    default = report.highlights[2]
    assert [(s.kind, s.change, s.name, s.old, s.new) for s in default.surface] == [
        (SurfaceKind.cli_option, SurfaceAction.default_changed, "--workers", "4", "8")
    ]
    assert all(len(h.shas) == 1 and len(h.shas[0]) == 40 for h in report.highlights)
    assert "[Doc] Fix a typo" not in {h.text for h in report.highlights}


@pytest.mark.parametrize(("language", "line"), [("zh", "今日没有"), ("en", "No breaking")])
def test_a_day_with_nothing_to_highlight_says_so_in_one_line(repo: Path, language: str, line: str):
    report, markdown = _both(repo, QUIET_DAY, language)
    assert report.highlights == [] and len(report.commits) == 1
    (shown,) = _block(markdown, language)
    assert shown.startswith(line)
    check_report(markdown, report)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_empty_day_has_no_block(repo: Path, language: str):
    report, markdown = _both(repo, EMPTY_DAY, language)
    assert report.commits == [] and report.highlights == []
    assert "📌" not in markdown
    check_report(markdown, report)


# --------------------------------------------------------------------------- hostile text


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One day of breaking changes whose titles are the hostile corpus: every one of them is in the block."""
    builder = RepoBuilder(tmp_path_factory.mktemp("hostile-highlights") / "repo")
    start = datetime(2026, 3, 2, 1, 0, tzinfo=SHANGHAI)
    for index, subject in enumerate(SUBJECTS.values()):
        builder.commit(
            f"{subject}\n\nBREAKING CHANGE: the old call is gone.\n",
            when=start + timedelta(minutes=index),
            files={f"src/module_{index}.py": f"VALUE = {index}\n"},
        )
    return builder.path


@pytest.mark.parametrize("language", ["zh", "en"])
def test_hostile_titles_in_the_block_stay_text(hostile_repo: Path, language: str):
    report, markdown = _both(hostile_repo, DAY, language)
    assert [h.kind for h in report.highlights] == [HighlightKind.breaking] * len(SUBJECTS)
    check_report(markdown, report)  # no element, link or heading that our templates did not write
    assert len(_block(markdown, language)) == len(SUBJECTS)  # one line each: no text ended its line
    by_sha = {c.sha: c for c in report.commits}
    refs = [f"#{c.pr_number}" if c.pr_number else c.short_sha for c in (by_sha[h.shas[0]] for h in report.highlights)]
    for name, reader in rendered(markdown).items():
        items = [text.strip() for text in reader.texts("li") if text.startswith("💥")]
        assert len(items) == len(SUBJECTS), name
        assert all(item.endswith(ref) for item, ref in zip(items, refs, strict=True)), name  # each ends with its link


def test_hostile_model_and_surface_text_in_a_highlight_stays_text():
    """What only a model or a report's JSON can hold (NUL, line breaks, any name) is inert too."""
    payloads = list(ALL.values())
    commits = [_commit(i, _analysis(Importance.high, model="m", one_line=p)) for i, p in enumerate(payloads)]
    highlights = [
        Highlight(
            kind=HighlightKind.breaking,
            text=payload,
            shas=[commit.sha],
            surface=[
                SurfaceChange(kind=kind, change=change, name=payload, old=payload, new=payload, path="x")
                for kind, change in (("cli_option", "renamed"), ("env_var", "default_changed"), ("backend", "removed"))
            ],
        )
        for commit, payload in zip(commits, payloads, strict=True)
    ]
    report = _day(commits, highlights=[*highlights, Highlight(text=payloads[0], shas=[commits[0].sha])])
    markdown = render_markdown(report)
    check_report(markdown, report)
    assert len(_block(markdown, "zh")) == len(payloads) + 1


# --------------------------------------------------------------------------- the selection on its own


def _analysis(importance: Importance, **fields: object) -> Analysis:
    values: dict[str, object] = dict(
        type="fix",
        importance=importance,
        one_line="what it does",
        coverage=CoverageReceipt(budget_tokens=1, tokens_sent=0),
        analyzer="test",
    )
    values.update(fields)
    return Analysis.model_validate(values)


def _commit(index: int, analysis: Analysis, subject: str = "") -> ReportCommit:
    sha = hashlib.sha1(str(index).encode()).hexdigest()
    subject = subject or f"Change {index} (#{index + 1})"
    return ReportCommit(
        sha=sha,
        short_sha=sha[:7],
        committed_at=datetime(2026, 3, 2, 12, 0, tzinfo=UTC) - timedelta(minutes=index),
        author="Ada",
        subject=subject,
        message_lines=[subject],
        pr_number=index + 1,
        analysis=analysis,
    )


def _day(commits: list[ReportCommit], **fields: object) -> DailyReport:
    levels = {level: sum(1 for c in commits if c.analysis.importance == level) for level in Importance}
    stats = Stats(total=len(commits), high=levels["high"], medium=levels["medium"], low=levels["low"])
    values: dict[str, object] = dict(
        repo="acme/engine",
        date=date(2026, 3, 2),
        timezone="Asia/Shanghai",
        commits=commits,
        stats=stats,
        run=RunInfo(analyzer="test"),
    )
    values.update(fields)
    return DailyReport.model_validate(values)


def test_a_models_analyses_are_picked_by_flags_importance_and_type():
    """An LLM reads no surface: its breaking, security and high features are picked all the same, in its words."""
    commits = [
        _commit(0, _analysis(Importance.medium, model="m", one_line="Drops the v1 API.", flags=Flags(breaking=True))),
        _commit(1, _analysis(Importance.high, model="m", one_line="Closes an injection.", flags=Flags(security=True))),
        _commit(2, _analysis(Importance.high, model="m", type="feat", one_line="Adds speculative decoding.")),
        _commit(3, _analysis(Importance.high, model="m", type="perf", one_line="Halves the latency.")),
        _commit(4, _analysis(Importance.medium, model="m", type="feat", one_line="Adds a flag.")),
        _commit(5, _analysis(Importance.low, model="m", type="chore"), subject="chore(release): v2.1.0 (#6)"),
    ]
    picked = [(h.kind, h.text, h.shas) for h in select_highlights(commits)]
    assert picked == [
        (HighlightKind.breaking, "Drops the v1 API.", [commits[0].sha]),
        (HighlightKind.security, "Closes an injection.", [commits[1].sha]),
        (HighlightKind.added, "Adds speculative decoding.", [commits[2].sha]),
        (HighlightKind.release, "what it does", [commits[5].sha]),
        (HighlightKind.high, "Halves the latency.", [commits[3].sha]),
    ]
    markdown = render_markdown(_day(commits, language="en", highlights=select_highlights(commits)))
    assert f"- 💥 Breaking: Drops the v1 API. — [#1](#c-{commits[0].short_sha})" in markdown


@pytest.mark.parametrize(
    ("subject", "type_", "release"),
    [
        ("Release 1.2.0 (#16)", "chore", True),
        ("[Release] v0.11.0rc1", "chore", True),
        ("Bump version to 3.1.0", "build", True),
        ("chore(release): 2.0.0-beta.1", "chore", True),
        ("1.4.2.post1", "chore", True),
        ("[Release 2.10] Update to Torch 2.10 - final release (#30525)", "build", False),
        ("Release notes for 1.2", "docs", False),
        ("Release 1.2.0", "feat", False),  # an analyzer that found more than a version
        ("Fix 1.2 regression", "chore", False),
        ("1." + "1." * 3000 + "x", "chore", False),  # long and hostile: cheap to refuse
    ],
)
def test_a_release_is_a_chore_whose_title_only_announces_a_version(subject: str, type_: str, release: bool):
    commit = _commit(0, _analysis(Importance.low, type=type_), subject=subject)
    kinds = [h.kind for h in select_highlights([commit])]
    assert kinds == ([HighlightKind.release] if release else [])


def test_surface_from_a_fix_or_a_low_commit_is_not_news():
    """A fix that registers a model again, or a low commit moving a test's default, is not in the block."""
    arch = SurfaceChange(kind="model_arch", change="added", name="LlamaForCausalLM", path="r.py")
    default = SurfaceChange(kind="config_key", change="default_changed", name="k", old="1", new="2", path="t.py")
    commits = [
        _commit(0, _analysis(Importance.medium, type="fix", surface=[arch])),
        _commit(1, _analysis(Importance.low, type="test", surface=[default])),
        _commit(2, _analysis(Importance.medium, type="feat", surface=[arch])),
    ]
    assert [(h.kind, h.shas) for h in select_highlights(commits)] == [(HighlightKind.added, [commits[2].sha])]


def test_a_break_that_only_moves_a_default_is_listed_as_the_default():
    default = SurfaceChange(kind="env_var", change="default_changed", name="CACHE", old="0", new="1", path="envs.py")
    removed = SurfaceChange(kind="cli_option", change="removed", name="--old", path="cli.py")
    breaking = Flags(breaking=True)
    commits = [
        _commit(0, _analysis(Importance.low, flags=breaking, surface=[default])),
        _commit(1, _analysis(Importance.high, flags=breaking, surface=[default, removed])),
    ]
    picked = [(h.kind, h.shas, [s.name for s in h.surface]) for h in select_highlights(commits)]
    assert picked == [
        (HighlightKind.breaking, [commits[1].sha], ["--old", "CACHE"]),
        (HighlightKind.default_changed, [commits[0].sha], ["CACHE"]),
    ]


def test_a_highlight_from_an_older_report_is_a_summary_point():
    old = Highlight.model_validate({"text": "FP8 fix matters", "shas": ["a" * 40]})
    assert old.kind == HighlightKind.summary and old.surface == []


def test_the_chat_summary_names_each_highlight_by_kind_and_leaves_high_ones_to_its_list(repo: Path):
    report, _ = _both(repo, DAY, "en")
    summary = summarize(report, report_url="", redact=lambda text: text)
    assert summary.highlights[:2] == (
        "💥 Breaking: feat(cli)!: drop the --legacy option",
        "🔒 Security: [Security] Fix path traversal in uploads (CVE-2026-1234)",
    )
    assert not any("race condition" in line for line in summary.highlights)
    assert any("race condition" in item.title for item in summary.items)


_surface = st.builds(
    lambda kind, change, name: SurfaceChange(kind=kind, change=change, name=name, old="a", new="b", path="p.py"),
    st.sampled_from(list(SurfaceKind)),
    st.sampled_from(list(SurfaceAction)),
    st.sampled_from(["--x", "X_ENV", "XForCausalLM"]),
)
_analyses = st.builds(
    lambda importance, type_, breaking, security, surface: _analysis(
        importance, type=type_, flags=Flags(breaking=breaking, security=security), surface=surface
    ),
    st.sampled_from(list(Importance)),
    st.sampled_from(list(ChangeType)),
    st.booleans(),
    st.booleans(),
    st.lists(_surface, max_size=5),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_analyses, max_size=12), st.sampled_from(["zh", "en"]))
def test_every_high_commit_is_picked_once_and_kinds_come_in_order(analyses: list[Analysis], language: str):
    commits = [_commit(i, a) for i, a in enumerate(analyses)]
    picked = select_highlights(commits)
    shas = [sha for h in picked for sha in h.shas]
    assert len(shas) == len(set(shas))
    assert {c.sha for c in commits if c.analysis.importance == Importance.high} <= set(shas)
    assert {c.sha for c in commits if c.analysis.flags.breaking or c.analysis.flags.security} <= set(shas)
    order = list(HighlightKind)
    assert [order.index(h.kind) for h in picked] == sorted(order.index(h.kind) for h in picked)
    # Every kind and action of surface has its words: no report fails for a surface it has not met before.
    markdown = render_markdown(_day(commits, language=language, highlights=picked))
    assert not commits or len(_block(markdown, language)) == max(len(picked), 1)
