"""Render stage: Markdown layout and its guarantees, the commit-table contract, text safety,
user templates, JSON, and GitHub heading anchors."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hostile import ALL, FILE_NAMES, params
from report_checks import (
    ANALYSIS_KEYS,
    COMMIT_KEYS,
    REPORT_KEYS,
    check_report,
    heading_problems,
    headings,
    link_problems,
    parse,
    rendered,
    rendered_text,
)

from repodaily.errors import RenderError
from repodaily.models import (
    Analysis,
    AnalysisStatus,
    CoverageReceipt,
    DailyReport,
    DayLink,
    FileReceipt,
    Flags,
    Highlight,
    Importance,
    Insight,
    Recommendation,
    ReportCommit,
    RunInfo,
    Stats,
)
from repodaily.render import github_slug, render_json, render_markdown
from repodaily.render.text import plain_text

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "argus-vllm-2026-02-09.md"
SHANGHAI = timezone(timedelta(hours=8))

# --------------------------------------------------------------------------- builders


def _receipt(full: int = 2, clipped: tuple[str, ...] = (), stats_only: int = 1) -> CoverageReceipt:
    def receipt(path: str, coverage: str) -> FileReceipt:
        return FileReceipt(path=path, category="source", coverage=coverage, tokens_total=100, tokens_sent=50)

    files = [receipt(f"src/full_{i}.py", "full") for i in range(full)]
    files += [receipt(path, "clipped") for path in clipped]
    files += [receipt(f"docs/stats_{i}.md", "stats_only") for i in range(stats_only)]
    return CoverageReceipt(budget_tokens=6000, tokens_sent=50 * len(files), files=files)


def _analysis(importance: str, **fields: object) -> Analysis:
    values: dict[str, object] = dict(
        type="feat",
        importance=importance,
        importance_reason=f"why it is {importance}",
        summary=[f"{importance} summary one", f"{importance} summary two with `code`"],
        one_line=f"{importance} in one line",
        impact_scope=[f"`src/{importance}.py`"],
        insights=[Insight(aspect="compatibility", text=f"{importance} insight")],
        risks=[f"{importance} risk"],
        recommendations=[
            Recommendation(audience="developers", text=f"{importance} advice for developers"),
            Recommendation(audience="users", text=f"{importance} advice for users"),
        ],
        coverage=_receipt(),
        analyzer="heuristic/1",
    )
    values.update(fields)
    written = Analysis.model_validate(values)
    return Analysis.of(written.verdict, written.provenance)  # at its depth, as every analyzer makes one


def _commit(seed: str, minute: int, analysis: Analysis, **fields: object) -> ReportCommit:
    sha = hashlib.sha1(seed.encode()).hexdigest()
    subject = str(fields.pop("subject", f"[Feature] {seed} (#{100 + minute})"))
    values: dict[str, object] = dict(
        sha=sha,
        short_sha=sha[:7],
        url=f"https://github.com/acme/widget/commit/{sha}",
        committed_at=datetime(2026, 2, 9, 12, minute, 0, tzinfo=UTC),
        author="Ada Lovelace",
        subject=subject,
        message_lines=[subject],
        pr_number=100 + minute,
        pr_url=f"https://github.com/acme/widget/pull/{100 + minute}",
        analysis=analysis,
    )
    values.update(fields)
    return ReportCommit.model_validate(values)


def _report(commits: list[ReportCommit], **fields: object) -> DailyReport:
    """A report whose stats agree with its commits, as the digest stage makes them."""
    levels = Counter(c.analysis.importance for c in commits)
    degraded = sum(1 for c in commits if c.analysis.status != AnalysisStatus.ok)
    values: dict[str, object] = dict(
        repo="acme/widget",
        repo_url="https://github.com/acme/widget",
        date=date(2026, 2, 9),
        timezone="Asia/Shanghai",
        commits=commits,
        stats=Stats(
            total=len(commits),
            high=levels[Importance.high],
            medium=levels[Importance.medium],
            low=levels[Importance.low],
            degraded=degraded,
            by_type=dict(Counter(c.analysis.type.value for c in commits).most_common()),
        ),
        run=RunInfo(
            analyzer="heuristic/1",
            prompt_version="3f9a1c07be",
            calls=3,
            prompt_tokens=9812,
            completion_tokens=1240,
            seconds=6.1,
            degraded=degraded,
        ),
    )
    values.update(fields)
    return DailyReport.model_validate(values)


def _three_commits() -> list[ReportCommit]:
    """Newest first: medium, high, low."""
    return [
        _commit("medium", 50, _analysis("medium")),
        _commit("high", 40, _analysis("high", secondary_types=["test"], flags=Flags(security=True, breaking=True))),
        _commit("low", 30, _analysis("low", type="refactor")),
    ]


def _day(language: str = "zh") -> DailyReport:
    commits = _three_commits()
    return _report(
        commits,
        language=language,
        highlights=[Highlight(text="the high change matters", shas=[commits[1].sha])],
        links=[DayLink(kind="revert", label="low", shas=[commits[0].sha, commits[2].sha])],
    )


def _section(markdown: str, commit: ReportCommit) -> str:
    """The Markdown of one commit's section: from its anchor to the next separator."""
    start = markdown.index(f'<a id="c-{commit.short_sha}"></a>')
    return markdown[start : markdown.index("\n---\n", start)]


# --------------------------------------------------------------------------- layout


@pytest.mark.parametrize("language", ["zh", "en"])
def test_report_passes_the_structural_check(language: str):
    report = _day(language)
    check_report(render_markdown(report), report)


def test_layout_follows_the_target_order_in_chinese():
    markdown = render_markdown(_day("zh"))
    order = [
        "# 每日更新报告（2026-02-09）",
        "## acme/widget",
        "> 时区 Asia/Shanghai · 3 个提交",
        "### 📌 今日要点",
        "### 📜 提交列表",
        "### 📊 统计摘要",
        "### 📋 目录",
        "### 🔴 高重要度变更 (1)",
        "### 🟡 中重要度变更 (1)",
        "### 🟢 低重要度变更 (1)",
        "<sub>repodaily · 分析器 `heuristic/1` · 提示词 3f9a1c07be · 降级 0</sub>",
    ]
    positions = [markdown.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert "> 本日共 3 个提交 | 🔴高 1 | 🟡中 1 | 🟢低 1\n" in markdown
    assert "按类型：功能增强 2 · 代码重构 1\n" in markdown
    # What a run cost (calls, tokens, seconds) is the run's, not the report's: a rerun renders the same bytes.
    assert "9,812" not in markdown and "6.1" not in markdown and "次调用" not in markdown


def test_english_report_uses_english_labels():
    markdown = render_markdown(_day("en"))
    assert markdown.startswith("# Daily update report (2026-02-09)\n")
    assert "| Time | Author | Message |\n|----------|------|----------|\n" in markdown
    assert "> 3 commits on this day | 🔴 High 1 | 🟡 Medium 1 | 🟢 Low 1\n" in markdown
    assert "### 🔴 High importance (1)" in markdown
    assert "**🎯 Type**: Feature (also: Tests) · 🔒 Security · 💥 Breaking | **⚡ Importance**: 🔴 High" in markdown
    assert not re.search(r"[\u4e00-\u9fff]", markdown), "Chinese text in an English report"


def test_toc_links_groups_by_github_slug_and_commits_by_anchor():
    report = _day("zh")
    markdown = render_markdown(report)
    high = report.commits[1]
    assert "- [🔴 高重要度变更 (1)](#-高重要度变更-1)\n" in markdown
    assert f"  - [\\[Feature\\] high (#140)](#c-{high.short_sha})\n" in markdown
    assert f'<a id="c-{high.short_sha}"></a>\n#### \\[Feature\\] high (#140)\n' in markdown


def test_highlights_and_day_links_point_at_commit_anchors():
    report = _day("en")
    markdown = render_markdown(report)
    medium, high, low = report.commits
    assert f"- the high change matters — [#140](#c-{high.short_sha})\n" in markdown
    assert f"- ↩️ [#150](#c-{medium.short_sha}) reverts [#130](#c-{low.short_sha})\n" in markdown


def test_group_slug_counts_an_identical_commit_heading_before_it():
    commits = [
        _commit("a", 50, _analysis("high"), subject="🟡 中重要度变更 (1)"),
        _commit("b", 40, _analysis("medium")),
    ]
    report = _report(commits)
    markdown = render_markdown(report)
    assert "](#-中重要度变更-1-1)" in markdown
    check_report(markdown, report)


def test_depth_follows_importance():
    report = _day("zh")
    markdown = render_markdown(report)
    medium, high, low = (_section(markdown, c) for c in report.commits)
    for label in ("📋 变更摘要", "🎯 影响范围", "🔍 技术洞察", "⚠️ 潜在风险", "💡 关注建议"):
        assert label in high
    assert "1. high risk" in high
    assert "- **用户**：high advice for users\n- **开发者**：high advice for developers" in high
    for label in ("📋 变更摘要", "🎯 影响范围", "💡 关注建议"):
        assert label in medium
    assert "🔍 技术洞察" not in medium and "⚠️ 潜在风险" not in medium
    assert "**🎯 变更类型**：功能增强　**⚡ 重要程度**：🟡 中 —— why it is medium" in medium
    low_lines = [line for line in low.splitlines() if line and not line.startswith(("<a id", "####", "<sub>"))]
    assert low_lines == [
        f"**SHA**: `{report.commits[2].short_sha}` | 🔗 [查看提交]({report.commits[2].url}) "
        f"| PR [#130]({report.commits[2].pr_url}) | Ada Lovelace | 🟢 低 · 代码重构 —— low in one line"
    ]


def test_evidence_line_counts_files_and_names_three_clipped():
    analysis = _analysis(
        "high", coverage=_receipt(full=6, clipped=("a/b/one.py", "two.py", "three.py", "four.py"), stats_only=3)
    )
    report = _report([_commit("x", 1, analysis)])
    markdown = render_markdown(report)
    assert (
        "<sub>📎 分析依据：6 个文件全文 · 4 个文件节选（`one.py`、`two.py`、`three.py`等） · 3 个文件仅统计</sub>"
        in markdown
    )
    empty = _report([_commit("y", 1, _analysis("low", coverage=_receipt(full=0, stats_only=0)))], language="en")
    assert "<sub>📎 Based on: no file changes</sub>" in render_markdown(empty)


def test_degraded_analysis_is_marked_and_bannered():
    commits = _three_commits()
    commits[0] = commits[0].model_copy(
        update={"analysis": _analysis("medium", status=AnalysisStatus.fallback, note="provider timed out twice")}
    )
    report = _report(commits)
    markdown = render_markdown(report)
    check_report(markdown, report)
    assert "> ⚠️ 1 个提交的模型分析失败" in markdown.split("### ")[0]
    assert "| ⚠️降级 1\n" in markdown
    assert "> ⚠️ 模型分析失败，以下为启发式分析：provider timed out twice\n" in _section(markdown, commits[0])
    assert "⚠️ Model analysis failed; heuristic analysis shown: provider timed out twice" in render_markdown(
        report.model_copy(update={"language": "en"})
    )


def test_non_utf8_commit_gets_a_note():
    commit = _commit("latin1", 5, _analysis("low"), encoding_issues=["subject", "body"])
    markdown = render_markdown(_report([commit]))
    assert "> ℹ️ 提交中的非 UTF-8 字节已替换为 U+FFFD（字段：`subject`、`body`）。\n" in _section(markdown, commit)


@pytest.mark.parametrize(("language", "sentence"), [("zh", "本日无提交。"), ("en", "No commits on this day.")])
def test_day_without_commits_says_so_plainly(language: str, sentence: str):
    report = _report([], language=language)
    markdown = render_markdown(report)
    check_report(markdown, report)
    assert f"\n{sentence}\n" in markdown
    assert "|" not in markdown and "###" not in markdown and "<a id" not in markdown


# --------------------------------------------------------------------------- commit table contract


def _table_lines(markdown: str) -> list[str]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| 提交时间 |"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def test_table_rows_are_byte_exact():
    lines = [
        "fix: a | b  with  double  spaces",
        "second line keeps `x | y` and <b>bold</b> and `<T>`",
        "Signed-off-by lines are already gone",
    ]
    commit = _commit(
        "table",
        7,
        _analysis("low"),
        author="张三 | Zhang",
        subject=lines[0],
        message_lines=lines,
        committed_at=datetime(2026, 2, 9, 23, 59, 59, tzinfo=SHANGHAI),
    )
    markdown = render_markdown(_report([commit]))
    assert _table_lines(markdown)[2] == (
        "| 2026-02-09 23:59:59 | 张三 \\| Zhang | fix: a \\| b  with  double  spaces<br>"
        "second line keeps `x \\| y` and &lt;b&gt;bold&lt;/b&gt; and `<T>`<br>Signed-off-by lines are already gone |"
    )


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("[Bugfix](xpu): prevent (#1)", "[Bugfix]\\(xpu): prevent (#1)"),
        ("![p](https://t.example/p.gif)", "![p]\\(https:\\//t.example/p.gif)"),
        ("[a](`) <img src=x> `", "[a]\\(`) <img src=x> `"),
        ("see www.example.com or mail ceo@example.com", "see www\\.example.com or mail ceo`@`example.com"),
        ("&lt;b&gt; & co", "&amp;lt;b&amp;gt; & co"),
        ("don`t pair [^1]", "don\\`t pair [\\^1]"),
        ("ends with \\", "ends with \\\\"),
    ],
)
def test_table_respells_only_what_could_break_out(line: str, written: str):
    commit = _commit("respell", 7, _analysis("low"), subject=line, message_lines=[line, "next"])
    row = _table_lines(render_markdown(_report([commit])))[2]
    assert row.endswith(f" | {written}<br>next |")


@pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference report not found")
def test_reference_table_renders_byte_identical():
    expected = _table_lines(REFERENCE.read_text(encoding="utf-8"))
    commits = []
    for index, row in enumerate(expected[2:]):
        shown, author, message = (cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1])
        lines = [line.replace("\\|", "|") for line in message.split("<br>")]
        committed = datetime.strptime(shown, "%Y-%m-%d %H:%M:%S").replace(tzinfo=SHANGHAI).astimezone(UTC)
        commits.append(
            _commit(
                f"ref{index}",
                0,
                _analysis("low"),
                author=author,
                subject=lines[0],
                message_lines=lines,
                committed_at=committed,
            )
        )
    assert _table_lines(render_markdown(_report(commits))) == expected


# --------------------------------------------------------------------------- text safety


@pytest.mark.parametrize("payload", params(ALL))
def test_hostile_text_in_every_field_stays_text(payload: str):
    """Every field that shows commit or analyzer text gets the payload; every renderer must show only our markup."""
    commits = _three_commits()
    hostile = _analysis(
        "high",
        summary=[payload, f"ok {payload}"],
        one_line=payload,
        importance_reason=payload,
        impact_scope=[payload],
        insights=[Insight(aspect="security", text=payload)],
        risks=[payload],
        recommendations=[Recommendation(audience="operators", text=payload)],
        status=AnalysisStatus.failed,
        note=payload,
        coverage=_receipt(clipped=(payload, f"dir/{payload}")),
    )
    commits[1] = commits[1].model_copy(
        update={"analysis": hostile, "subject": payload, "author": payload, "message_lines": payload.split("\n")}
    )
    commits[2] = commits[2].model_copy(update={"analysis": _analysis("low", one_line=payload, type="docs")})
    report = _report(
        commits,
        highlights=[Highlight(text=payload, shas=[commits[1].sha])],
        links=[DayLink(kind="series", label=payload, shas=[c.sha for c in commits])],
    )
    for language in ("zh", "en"):
        localized = report.model_copy(update={"language": language})
        check_report(render_markdown(localized), localized)


@pytest.mark.parametrize("subject", params(ALL))
def test_heading_and_toc_entry_show_a_hostile_subject_literally(subject: str):
    commit = _commit("s", 1, _analysis("medium"), subject=subject, message_lines=[subject])
    markdown = render_markdown(_report([commit]))
    title = plain_text(subject) or commit.short_sha
    for name, html in rendered(markdown).items():
        assert html.texts("h4") == [title], name
        assert title in html.texts("li"), name


@pytest.mark.parametrize(
    ("subject", "shown"),
    [
        ("Fix __init__ and *args in [Bugfix] path\\to (#1)", "Fix __init__ and *args in [Bugfix] path\\to (#1)"),
        ("`code` with ``double `tick` spans`` and a lone ` tick", "code with double `tick` spans and a lone ` tick"),
        ("1. looks like a list # and ends with #", "1. looks like a list # and ends with #"),
        ("&amp; &lt;b&gt; entities stay text", "&amp; &lt;b&gt; entities stay text"),
        ("  spaced   out  ", "spaced   out"),
    ],
)
def test_commit_heading_shows_the_subject_literally(subject: str, shown: str):
    report = _report([_commit("s", 1, _analysis("medium"), subject=subject, message_lines=[subject])])
    markdown = render_markdown(report)
    check_report(markdown, report)
    assert [h.text for h in headings(parse(markdown)) if h.level == 4] == [shown]


@pytest.mark.parametrize("path", params(FILE_NAMES))
def test_file_names_stay_inside_code_spans(path: str):
    analysis = _analysis("medium", coverage=_receipt(clipped=(path,)))
    report = _report([_commit("f", 1, analysis)])
    markdown = render_markdown(report)
    check_report(markdown, report)
    evidence = next(t for t in parse(markdown) if t.type == "inline" and t.content.startswith("<sub>📎"))
    code = [c.content for c in evidence.children or [] if c.type == "code_inline"]
    assert code == [" ".join(path.rsplit("/", 1)[-1].splitlines())]


# --------------------------------------------------------------------------- templates and errors


def test_user_template_replaces_a_packaged_one(tmp_path: Path):
    (tmp_path / "report.md.j2").write_text("# {{ report.repo|plain }} has {{ report.commits|length }}\n")
    assert render_markdown(_day(), templates_dir=tmp_path) == "# acme/widget has 3\n"


def test_user_template_extends_the_default(tmp_path: Path):
    (tmp_path / "report.md.j2").write_text(
        '{% extends "default:report.md.j2" %}\n{% block footer %}<sub>our team footer</sub>\n{% endblock %}\n'
    )
    markdown = render_markdown(_day(), templates_dir=tmp_path)
    assert markdown.endswith("---\n\n<sub>our team footer</sub>\n")
    assert "### 📋 目录" in markdown and "repodaily ·" not in markdown


def test_user_partial_overrides_commit_sections(tmp_path: Path):
    (tmp_path / "commit.md.j2").write_text('<a id="{{ c|anchor }}"></a>\n#### {{ c.short_sha }}\n\n')
    report = _day()
    markdown = render_markdown(report, templates_dir=tmp_path)
    assert f"#### {report.commits[0].short_sha}\n" in markdown and "📋 变更摘要" not in markdown


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("# ok\n\n{{ report.no_such_field }}\n", 3),
        ("# ok\n{% if %}\n", 2),
        # Python's own errors, raised from inside a user's template.
        ("# ok\n{{ 1/0 }}\n", 2),
        ('{% include "report.md.j2" %}\n', 1),
        ("{% macro m() %}{{ m() }}{% endmacro %}\n{{ m() }}\n", 1),
        ("# ok\n\n\n{{ report.repo|number }}\n", 4),
        ("# ok\n{{ report.commits[0].committed_at.isoformat()|local_time }}\n", 2),
    ],
)
def test_template_errors_raise_render_error_with_name_and_line(tmp_path: Path, source: str, line: int):
    (tmp_path / "report.md.j2").write_text(source)
    with pytest.raises(RenderError, match=rf"report\.md\.j2, line {line}: ") as info:
        render_markdown(_day(), templates_dir=tmp_path)
    assert "\n" not in str(info.value)


def test_a_template_that_is_not_utf8_is_a_render_error(tmp_path: Path):
    (tmp_path / "report.md.j2").write_bytes(b"# caf\xe9\n")
    with pytest.raises(RenderError, match="report.md.j2"):
        render_markdown(_day(), templates_dir=tmp_path)


def test_missing_templates_dir_and_unknown_timezone_are_render_errors(tmp_path: Path):
    with pytest.raises(RenderError, match="does not exist"):
        render_markdown(_day(), templates_dir=tmp_path / "absent")
    with pytest.raises(RenderError, match="Mars/Olympus"):
        render_markdown(_day().model_copy(update={"timezone": "Mars/Olympus"}))


# --------------------------------------------------------------------------- JSON


def test_json_round_trips_with_the_documented_keys():
    report = _day("zh")
    text = render_json(report)
    assert text.endswith("}\n") and "每日" not in text and "Ada Lovelace" in text
    assert DailyReport.model_validate_json(text) == report
    data = json.loads(text)
    assert data.keys() >= REPORT_KEYS
    commit = data["commits"][0]
    assert commit.keys() >= COMMIT_KEYS
    assert commit["analysis"].keys() >= ANALYSIS_KEYS
    assert set(commit["analysis"]["flags"]) == {"security", "breaking", "user_facing"}
    assert render_json(report) == text


def test_json_keeps_non_ascii_as_utf8():
    report = _report([_commit("cjk", 1, _analysis("low"), author="张三")])
    assert '"author": "张三"' in render_json(report)


# --------------------------------------------------------------------------- anchors


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("🔴 高重要度变更 (2)", "-高重要度变更-2"),
        ("Hello, World!", "hello-world"),
        ("📊 统计摘要", "-统计摘要"),
        ("vllm-project/vllm", "vllm-projectvllm"),
        (
            "[UX] Add --language-model-only for hybrid models (#34120)",
            "ux-add---language-model-only-for-hybrid-models-34120",
        ),
        ("heading with an _ underscore", "heading-with-an-_-underscore"),
        (
            "exchange.bind_headers(exchange, routing [, bindCallback])",
            "exchangebind_headersexchange-routing--bindcallback",
        ),
        ("😄-😄 unicode emoji", "--unicode-emoji"),
        ("Привет non-latin 你好", "привет-non-latin-你好"),
        ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
        ("en–dash", "endash"),
        (" a ", "-a-"),
        ("a\tb", "ab"),
        ("Ⓖ and ½", "ⓖ-and-"),
    ],
)
def test_github_slug_matches_github(text: str, slug: str):
    assert github_slug(text) == slug


def test_github_slug_numbers_duplicates_like_github():
    seen: dict[str, int] = {}
    slugs = [
        github_slug(text, seen)
        for text in ("echo", "echo", "echo 1", "echo-1", "echo", "foxtrot-1", "foxtrot", "foxtrot")
    ]
    assert slugs == ["echo", "echo-1", "echo-1-1", "echo-1-2", "echo-2", "foxtrot-1", "foxtrot", "foxtrot-2"]


# --------------------------------------------------------------------------- the checker itself


@pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference report not found")
def test_checker_rejects_the_old_tools_report():
    tokens = parse(REFERENCE.read_text(encoding="utf-8"))
    assert heading_problems(tokens) == ["line 61: h4 '🔴 高重要度变更 (2)' follows h2"]
    broken = link_problems(tokens)
    assert "link #9562912 leads nowhere" in broken and "link #-🔴-高重要度变更-2 leads nowhere" in broken
    assert len(broken) == 26  # the repo link, 3 groups, 22 commits; only "#-统计摘要" works
    assert rendered_text(next(t for t in tokens if t.type == "inline")) == "每日更新报告（2026-02-09）"
