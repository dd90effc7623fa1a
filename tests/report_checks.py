"""Structural checks that every rendered Markdown report must pass.

``check_report(markdown, report)`` parses the report the way a CommonMark + GFM
table renderer does (markdown-it) and asserts the guarantees of the format: one
heading hierarchy, every TOC link resolving, each commit in exactly one
section of the right group, counts that agree, the commit table in order, and
no heading that our templates did not write. It also renders the report with
every renderer in :data:`RENDERERS` (cmark-gfm as GitHub calls it and without
its tag filter, markdown-it with raw HTML on, with linkify too when installed)
and asserts that each shows one table row per commit and no element, link,
image or ``javascript:`` URL that our templates did not write. The lower-level
functions return lists of problems instead of asserting, so a test can show
that a broken report (the replaced tool's) fails them.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import cmarkgfm
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt
from markdown_it.token import Token

from repodaily.models import AnalysisStatus, DailyReport, Importance
from repodaily.render import github_slug

TABLE_HEADERS = {"zh": "| 提交时间 | 作者 | 提交信息 |", "en": "| Time | Author | Message |"}
TABLE_RULE = "|----------|------|----------|"
GROUP_MARKERS = {"🔴": Importance.high, "🟡": Importance.medium, "🟢": Importance.low}
DEGRADED_MARKER = "⚠️"
_ANCHOR_OPEN = re.compile(r'^<a id="(c-[0-9a-f]{7})">$')
_ANCHOR_ID = re.compile(r"c-[0-9a-f]{7}")
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


# What a Markdown report may hold of C0/C1 controls: only the tab and the line feed.
# Bidi embeddings, overrides and isolates too: one left open reorders the report's own text after it.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def check_report(markdown: str, report: DailyReport) -> None:
    """Assert every structural guarantee of a rendered report; messages say what broke."""
    assert markdown.encode("utf-8").decode("utf-8") == markdown, "report does not round-trip through UTF-8"
    assert markdown.endswith("\n") and not markdown.endswith("\n\n"), "report must end with exactly one newline"
    controls = sorted({char for char in markdown if _CONTROL.match(char)})
    assert not controls, f"control characters a terminal would run: {controls!r}"
    tokens = parse(markdown)
    html = rendered(markdown)
    for problems in (
        heading_problems(tokens),
        link_problems(tokens),
        markup_problems(html, report),
        table_problems(html, report),
    ):
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
    fixed_sections = 4 if report.commits else 0  # highlights, commit list, stats, contents
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


def _check_footer(tokens: list[Token]) -> None:
    last = [t for t in tokens if t.type == "inline"][-1]
    assert last.content.startswith("<sub>repodaily"), f"report does not end with the run footer: {last.content!r}"


# --------------------------------------------------------------------------- what renderers make of it


def _markdown_it(*, linkify: bool) -> Callable[[str], str]:
    if not linkify:
        return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render
    parser = MarkdownIt("gfm-like", {"html": True})
    # GitHub links bare text only after a scheme, "www." or as an e-mail address;
    # linkify-it's fuzzy domains would make every "setup.py" a link, so they are off.
    parser.linkify.set({"fuzzy_link": False})
    return parser.render


_CMARK_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES  # raw HTML kept; footnotes as on GitHub


def _github(markdown: str) -> str:
    """GitHub's own extensions, tag filter included (GitHub's HTML sanitizer runs after it)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=_CMARK_OPTIONS)


def _cmark_gfm(markdown: str) -> str:
    """GitHub's renderer without the tag filter: what a viewer that trusts raw HTML shows."""
    extensions = ["table", "autolink", "strikethrough", "tasklist"]
    return cmarkgfm.markdown_to_html_with_extensions(markdown, options=_CMARK_OPTIONS, extensions=extensions)


# Renderers people open reports in, all letting raw HTML through.
RENDERERS: dict[str, Callable[[str], str]] = {
    "cmark-gfm as GitHub": _github,
    "cmark-gfm without tag filter": _cmark_gfm,
    "markdown-it": _markdown_it(linkify=False),
}
if importlib.util.find_spec("linkify_it"):
    RENDERERS["markdown-it with linkify"] = _markdown_it(linkify=True)

_VOID_TAGS = {"br", "hr", "img", "input", "wbr", "area", "base", "col", "embed", "link", "meta", "source", "track"}
# What our templates make a renderer write, and nothing else.
_REPORT_TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "blockquote", "hr", "table", "thead", "tbody", "tr"}
_REPORT_TAGS |= {"th", "td", "a", "sub", "br", "code", "strong", "em", "del", "s"}
_NO_LINK_INSIDE = {"td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "a"}


@dataclass(frozen=True)
class Element:
    tag: str
    attrs: dict[str, str]
    inside: tuple[str, ...]  # the tags of the enclosing elements, outermost first


class HtmlReader(HTMLParser):
    """The elements and text of rendered HTML, each knowing the elements around it."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.stray_end_tags: list[str] = []
        self._texts: list[list[str]] = []  # per element, the text inside it
        self._open: list[int] = []  # indices of the open elements
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        inside = tuple(self.elements[index].tag for index in self._open)
        self.elements.append(Element(tag, {name: value or "" for name, value in attrs}, inside))
        self._texts.append([])
        if tag not in _VOID_TAGS:
            self._open.append(len(self.elements) - 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self._open.pop()

    def handle_endtag(self, tag: str) -> None:
        open_tags = [self.elements[index].tag for index in self._open]
        if tag in _VOID_TAGS:
            return
        if tag not in open_tags:
            self.stray_end_tags.append(tag)
            return
        del self._open[len(open_tags) - 1 - open_tags[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        for index in self._open:
            self._texts[index].append(data)

    def texts(self, tag: str) -> list[str]:
        """The text of each element named ``tag``, in document order."""
        return ["".join(self._texts[index]) for index, element in enumerate(self.elements) if element.tag == tag]


def rendered(markdown: str) -> dict[str, HtmlReader]:
    """The HTML of every renderer in :data:`RENDERERS`, read."""
    return {name: HtmlReader(render(markdown)) for name, render in RENDERERS.items()}


def element_problems(element: Element, allowed_href: Callable[[str], bool]) -> list[str]:
    """Why this element cannot come from our templates: a foreign tag, link, handler or URL."""
    problems = []
    shown = f"<{element.tag} {element.attrs}>"
    if element.tag not in _REPORT_TAGS:
        problems.append(f"{shown}: an element our templates do not write")
    for name, value in element.attrs.items():
        if name.startswith("on") or "javascript:" in re.sub(r"[\s\x00-\x1f]", "", value).lower():
            problems.append(f"{shown}: script in an attribute")
    if element.tag == "a" and not (element.attrs.keys() == {"id"} and _ANCHOR_ID.fullmatch(element.attrs["id"])):
        if element.attrs.keys() != {"href"} or not allowed_href(unquote(element.attrs["href"])):
            problems.append(f"{shown}: a link our templates do not make")
        if _NO_LINK_INSIDE & set(element.inside):
            problems.append(f"{shown}: a link inside {element.inside}")
    return problems


def markup_problems(html: dict[str, HtmlReader], report: DailyReport) -> list[str]:
    """HTML, links and images that no template wrote, in what each renderer made of the report.

    Our templates link only to the report's commit and PR pages, the issues a
    pull request closes, the day's releases and to ``#`` fragments (TOC, commit
    references), and write raw HTML only as ``<sub>``, ``<br>`` and
    ``<a id="c-…"></a>``. Every renderer must find the same number of links: one
    that finds more has made a link out of text.
    """
    urls = {unquote(address) for commit in report.commits for address in (commit.url, commit.pr_url) if address}
    urls |= {unquote(release.url) for release in report.releases if release.url}
    urls |= {
        f"{report.repo_url}/issues/{number}"
        for commit in report.commits
        if commit.pull_request and report.repo_url
        for number in commit.pull_request.linked_issues
    }

    def allowed(href: str) -> bool:
        return href.startswith("#") or href in urls

    problems: list[str] = []
    links: dict[str, int] = {}
    for name, reader in html.items():
        problems += [f"{name}: {problem}" for e in reader.elements for problem in element_problems(e, allowed)]
        problems += [f"{name}: </{tag}> closes nothing we opened" for tag in reader.stray_end_tags]
        links[name] = sum(1 for e in reader.elements if e.tag == "a" and "href" in e.attrs)
    if len(set(links.values())) > 1:
        problems.append(f"renderers disagree on the number of links: {links}")
    return problems


def table_problems(html: dict[str, HtmlReader], report: DailyReport) -> list[str]:
    """Each renderer's commit table: one row per commit, in order, its time and author in the first two cells.

    Cells keep the commit's bytes, emphasis and backslash escapes included, so
    an author is compared by the letters and digits any rendering keeps.
    """
    zone = ZoneInfo(report.timezone)
    expected = [
        [commit.committed_at.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S"), _letters(commit.author)]
        for commit in report.commits
    ]
    problems = []
    for name, reader in html.items():
        cells = reader.texts("td")
        rows = [[row[0], _letters(row[1])] for row in zip(cells[0::3], cells[1::3])]
        if len(reader.texts("tr")) != len(expected) + bool(expected) or len(cells) != 3 * len(expected):
            problems.append(f"{name}: {len(cells)} cells in {len(reader.texts('tr'))} rows for {len(expected)} commits")
        elif rows != expected:
            problems.append(f"{name}: rows {rows} are not the commits {expected}")
    return problems


def _letters(text: str) -> str:
    return "".join(char for char in text if char.isalnum())
