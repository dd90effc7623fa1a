"""Structural checks that every rendered Markdown report must pass.

``check_report(markdown, report)`` parses the report the way a CommonMark + GFM
table renderer does (markdown-it) and asserts the guarantees of the format: one
heading hierarchy, every TOC link resolving, each commit in exactly one
section of the right group, counts that agree, the commit table in order, and
no heading or HTML that our templates did not write. The lower-level functions
return lists of problems instead of asserting, so a test can show that a
broken report (the replaced tool's) fails them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from markdown_it import MarkdownIt
from markdown_it.token import Token

from repodaily.models import AnalysisStatus, DailyReport, Importance
from repodaily.render import github_slug

TABLE_HEADERS = {"zh": "| 提交时间 | 作者 | 提交信息 |", "en": "| Time | Author | Message |"}
TABLE_RULE = "|----------|------|----------|"
GROUP_MARKERS = {"🔴": Importance.high, "🟡": Importance.medium, "🟢": Importance.low}
DEGRADED_MARKER = "⚠️"
_ANCHOR_OPEN = re.compile(r'^<a id="(c-[0-9a-f]{7})">$')
_OUR_INLINE_HTML = {"<sub>", "</sub>", "<br>", "</a>"}
_GROUP_COUNT = re.compile(r"\((\d+)\)$")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass
class _Section:
    """What lies between one commit anchor and the next anchor or group heading."""

    group: Importance | None
    headings: list[int] = field(default_factory=list)
    source: list[str] = field(default_factory=list)


# The JSON report's documented keys (README, "The JSON format"): users build on these.
REPORT_KEYS = {"schema_version", "repo", "date", "timezone", "commits", "stats"}
COMMIT_KEYS = {"sha", "committed_at", "author", "subject", "analysis"}
ANALYSIS_KEYS = {
    "type",
    "secondary_types",
    "importance",
    "importance_reason",
    "flags",
    "summary",
    "one_line",
    "coverage",
    "analyzer",
    "status",
}


def parse(markdown: str) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def rendered_text(inline: Token) -> str:
    """The text a viewer sees for an inline token (what GitHub slugs a heading from)."""
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def headings(tokens: list[Token]) -> list[Heading]:
    return [
        Heading(int(token.tag[1]), rendered_text(tokens[index + 1]), token.map[0] + 1 if token.map else 0)
        for index, token in enumerate(tokens)
        if token.type == "heading_open"
    ]


def heading_problems(tokens: list[Token]) -> list[str]:
    """One h1, first; each heading at most one level deeper than the one before; ATX only."""
    found = headings(tokens)
    problems = []
    h1_count = sum(1 for h in found if h.level == 1)
    if h1_count != 1:
        problems.append(f"expected exactly one h1, found {h1_count}")
    previous = 0
    for heading in found:
        if heading.level > previous + 1:
            problems.append(f"line {heading.line}: h{heading.level} {heading.text!r} follows h{previous}")
        previous = heading.level
    problems += [
        f"line {t.map[0] + 1 if t.map else 0}: setext heading"
        for t in tokens
        if t.type == "heading_open" and t.markup[0] != "#"
    ]
    return problems


def anchor_ids(tokens: list[Token]) -> list[str]:
    return [
        match.group(1)
        for token in tokens
        if token.type == "inline"
        for child in token.children or []
        if child.type == "html_inline" and (match := _ANCHOR_OPEN.match(child.content))
    ]


def html_problems(tokens: list[Token]) -> list[str]:
    """Raw HTML other than our commit anchors, ``<sub>`` and ``<br>`` means some text injected it."""
    problems = [
        f"line {t.map[0] + 1 if t.map else 0}: HTML block {t.content!r}" for t in tokens if t.type == "html_block"
    ]
    closings = 0
    for token in tokens:
        for child in token.children or []:
            if child.type != "html_inline":
                continue
            closings += child.content == "</a>"
            if child.content not in _OUR_INLINE_HTML and not _ANCHOR_OPEN.match(child.content):
                problems.append(f"line {token.map[0] + 1 if token.map else 0}: inline HTML {child.content!r}")
    if closings != len(anchor_ids(tokens)):
        problems.append(f"{closings} </a> for {len(anchor_ids(tokens))} anchors")
    return problems


def fragment_links(tokens: list[Token]) -> list[str]:
    """Every in-document link target, without the ``#``, percent-decoded."""
    return [
        unquote(str(child.attrs["href"])[1:])
        for token in tokens
        for child in token.children or []
        if child.type == "link_open" and str(child.attrs.get("href", "")).startswith("#")
    ]


def link_problems(tokens: list[Token]) -> list[str]:
    """In-document links that lead nowhere: no explicit anchor and no heading slug of that name."""
    seen: dict[str, int] = {}
    targets = {github_slug(h.text, seen) for h in headings(tokens)} | set(anchor_ids(tokens))
    return [f"link #{target} leads nowhere" for target in fragment_links(tokens) if target not in targets]


def check_report(markdown: str, report: DailyReport) -> None:
    """Assert every structural guarantee of a rendered report; messages say what broke."""
    assert markdown.encode("utf-8").decode("utf-8") == markdown, "report does not round-trip through UTF-8"
    assert markdown.endswith("\n") and not markdown.endswith("\n\n"), "report must end with exactly one newline"
    tokens = parse(markdown)
    for problems in (heading_problems(tokens), html_problems(tokens), link_problems(tokens)):
        assert not problems, "\n".join(problems)
    _check_headings(tokens, report)
    _check_sections(tokens, report)
    _check_counts(tokens, report)
    _check_table(markdown, tokens, report)
    _check_footer(tokens)


def _check_headings(tokens: list[Token], report: DailyReport) -> None:
    found = Counter(h.level for h in headings(tokens))
    h2 = [h.text for h in headings(tokens) if h.level == 2]
    assert h2 == [report.repo], f"expected one h2 naming the repo, found {h2}"
    groups = len({c.analysis.importance for c in report.commits})
    fixed_sections = (3 + bool(report.highlights)) if report.commits else 0
    assert found[3] == fixed_sections + groups, (
        f"{found[3]} h3 headings, expected {fixed_sections} sections + {groups} groups"
    )
    assert found[4] == len(report.commits), f"{found[4]} h4 headings for {len(report.commits)} commits"
    assert not found[5] and not found[6], "h5/h6 headings: some text produced a heading"


def _sections(tokens: list[Token]) -> dict[str, list[_Section]]:
    """Commit sections by anchor id, each knowing its group and what it contains."""
    sections: dict[str, list[_Section]] = {}
    group: Importance | None = None
    current: _Section | None = None
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h3":
            text = rendered_text(tokens[index + 1])
            group = GROUP_MARKERS.get(text[:1])
            current = None
        elif token.type == "heading_open" and current is not None:
            current.headings.append(int(token.tag[1]))
        elif token.type == "inline":
            ids = anchor_ids([token])
            if ids:
                current = _Section(group)
                sections.setdefault(ids[0], []).append(current)
            if current is not None:
                current.source.append(token.content)
    return sections


def _check_sections(tokens: list[Token], report: DailyReport) -> None:
    sections = _sections(tokens)
    expected = {f"c-{c.short_sha}" for c in report.commits}
    assert set(sections) == expected, f"anchors {sorted(set(sections) ^ expected)} do not match the commits"
    for commit in report.commits:
        found = sections[f"c-{commit.short_sha}"]
        assert len(found) == 1, f"commit {commit.short_sha} has {len(found)} sections"
        section = found[0]
        text = "\n".join(section.source)
        assert section.group == commit.analysis.importance, (
            f"commit {commit.short_sha} ({commit.analysis.importance}) is under the {section.group} group"
        )
        assert section.headings == [4], (
            f"commit {commit.short_sha}: section headings {section.headings}, expected one h4"
        )
        assert commit.short_sha in text, f"commit {commit.short_sha}: its section does not show the SHA"
        assert "<sub>" in text, f"commit {commit.short_sha}: no evidence line"
        if commit.analysis.status != AnalysisStatus.ok:
            assert DEGRADED_MARKER in text, f"commit {commit.short_sha}: degraded analysis without a marker"


def _blockquote_lines(tokens: list[Token]) -> list[tuple[int, str]]:
    """(index, content) of each inline token inside a blockquote."""
    depth, found = 0, []
    for index, token in enumerate(tokens):
        depth += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if depth and token.type == "inline":
            found.append((index, token.content))
    return found


def _check_counts(tokens: list[Token], report: DailyReport) -> None:
    stats = report.stats
    by_level = Counter(c.analysis.importance for c in report.commits)
    assert stats.total == len(report.commits), f"stats.total {stats.total} != {len(report.commits)} commits"
    assert (stats.high, stats.medium, stats.low) == tuple(by_level[level] for level in Importance), (
        f"report stats {stats.high}/{stats.medium}/{stats.low} disagree with the analyses {dict(by_level)}"
    )
    group_counts = {
        GROUP_MARKERS[h.text[:1]]: int(match.group(1))
        for h in headings(tokens)
        if h.level == 3 and h.text[:1] in GROUP_MARKERS and (match := _GROUP_COUNT.search(h.text))
    }
    assert group_counts == {level: n for level, n in by_level.items() if n}, f"group headings count {group_counts}"
    quotes = _blockquote_lines(tokens)
    first_h3 = next((i for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h3"), len(tokens))
    banner = [text for index, text in quotes if index < first_h3 and DEGRADED_MARKER in text]
    assert bool(banner) == (stats.degraded > 0), f"degraded banner {banner} for {stats.degraded} degraded commits"
    if banner:
        assert str(stats.degraded) in banner[0], f"banner {banner[0]!r} does not give the count {stats.degraded}"
    if not report.commits:
        return
    lines = [text for _, text in quotes if all(marker in text for marker in GROUP_MARKERS)]
    assert len(lines) == 1, f"expected one stats line, found {lines}"
    shown = {level: _number_after(lines[0], marker) for marker, level in GROUP_MARKERS.items()}
    total = _number_after(lines[0], "")
    assert total == stats.total and shown == {level: by_level[level] for level in Importance}, (
        f"stats line {lines[0]!r} disagrees with the report"
    )
    degraded = _number_after(lines[0], DEGRADED_MARKER) if DEGRADED_MARKER in lines[0] else 0
    assert degraded == stats.degraded, f"stats line shows {degraded} degraded, report has {stats.degraded}"


def _number_after(text: str, marker: str) -> int:
    """The first number after ``marker`` (after the start of the text when it is empty)."""
    match = re.search(re.escape(marker) + r"\D*?(\d[\d,]*)", text)
    assert match, f"no count after {marker!r} in {text!r}"
    return int(match.group(1).replace(",", ""))


def _table_rows(tokens: list[Token]) -> list[list[str]]:
    rows: list[list[str]] = []
    in_body = False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif in_body and token.type == "tr_open":
            rows.append([])
        elif in_body and token.type == "inline":
            rows[-1].append(rendered_text(token))
    return rows


def _check_table(markdown: str, tokens: list[Token], report: DailyReport) -> None:
    tables = [t for t in tokens if t.type == "table_open"]
    if not report.commits:
        assert not tables and not anchor_ids(tokens), "a day without commits has no table and no commit sections"
        return
    assert len(tables) == 1, f"expected one table (the commit list), found {len(tables)}"
    assert tables[0].map is not None
    source = markdown.splitlines()
    start = tables[0].map[0]
    assert source[start : start + 2] == [TABLE_HEADERS[report.language], TABLE_RULE], (
        f"table header {source[start : start + 2]} is not the contract"
    )
    rows = _table_rows(tokens)
    assert len(rows) == len(report.commits), f"{len(rows)} table rows for {len(report.commits)} commits"
    zone = ZoneInfo(report.timezone)
    for row, commit in zip(rows, report.commits):
        time = commit.committed_at.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")
        shown = [row[0], " ".join(row[1].split())]
        assert shown == [time, " ".join(commit.author.split())], f"row {row}: expected {commit.short_sha} at {time}"


def _check_footer(tokens: list[Token]) -> None:
    last = [t for t in tokens if t.type == "inline"][-1]
    assert last.content.startswith("<sub>repodaily"), f"report does not end with the run footer: {last.content!r}"
