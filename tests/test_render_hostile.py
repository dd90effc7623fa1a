"""Text from commits and models stays text: property tests of the escaping filters, and the
hostile corpus through the real pipeline, each checked by every renderer in ``RENDERERS``.

The filters are tested in the constructs the templates put them in (a table row, a
heading, a TOC link, a list item, a quote, the evidence line), on strings built from
Markdown metacharacters and fragments of markup. Hypothesis runs derandomized, so a
run is repeatable and a counterexample, once found, stays found.
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from hostile import AUTHORS, BODIES, FILE_NAMES, SUBJECTS
from hostile_report import hostile_report
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from report_checks import (
    HtmlReader,
    check_report,
    element_problems,
    heading_problems,
    headings,
    link_problems,
    parse,
    rendered,
)

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport
from repodaily.render.markdown import render_markdown
from repodaily.render.text import (
    _CELL_ALWAYS,
    _CELL_CONTEXT,
    _PLAIN_ALWAYS,
    _PROSE_CONTEXT,
    _clean,
    _prose_units,
    _respell,
    _respell_characters,
    _units,
    cell,
    code,
    inline,
    plain,
    plain_text,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY = "2026-02-09"
OUR_LINK = "#c-abcdef0"

# Characters and fragments that mean something to a CommonMark/GFM parser or to linkify.
ATOMS = [
    *"`\\[]()<>!&#;|*_~:/@.-=+ \"'\t{}^$%?,",
    *"aw1xé中😀",
    *"\n\r\u2028\u0085\x0b\x00",
    "http",
    "https://",
    "www.",
    "mailto:",
    "xmpp:",
    "javascript:",
    "evil.example",
    "a@b.co",
    "<img src=x onerror=alert(1)>",
    "<script>",
    "</sub>",
    "<br>",
    "<a href='x'>",
    "<!--",
    "<?",
    "&#96;",
    "&lt;",
    "&amp;",
    "&#x3C;",
    "](",
    "![",
    "[^1]",
    "]: ",
    "``",
    "```",
    "\\`",
]
# Constructs to nest them in, so links, images, spans and tags are built often, not by luck.
CONSTRUCTS = [
    "[{}]({})",
    "![{}]({})",
    '[{}]({} "{}")',
    "[{}]: {}",
    "[{}][{}]",
    "`{}`",
    "``{}``",
    "<{}>",
    '<a href="{}">{}</a>',
    "*{}*",
    "{}@{}.example",
    "https://{}",
    "www.{}.example",
    "&#{};",
]


def _nested(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    joined = st.lists(children, min_size=2, max_size=4).map("".join)
    filled = st.tuples(st.sampled_from(CONSTRUCTS), st.lists(children, min_size=3, max_size=3))
    return joined | filled.map(lambda pair: pair[0].format(*pair[1]))


texts = st.recursive(st.sampled_from(ATOMS), _nested, max_leaves=24)
PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)

CELL_TAGS = {"code", "br", "em", "strong", "del", "s"}
EMPHASIS = str.maketrans("", "", "*_~")


def _only_our_link(href: str) -> bool:
    return href == OUR_LINK


def _problems(reader: HtmlReader, tags: set[str]) -> list[str]:
    """Elements outside ``tags``, links other than ours, handlers, stray end tags."""
    found = [f"<{e.tag}> is not one of {sorted(tags)}" for e in reader.elements if e.tag not in tags]
    found += [problem for e in reader.elements for problem in element_problems(e, _only_our_link)]
    return found + [f"stray </{tag}>" for tag in reader.stray_end_tags]


def _links(reader: HtmlReader) -> list[str]:
    return [e.attrs.get("href", "") for e in reader.elements if e.tag == "a"]


# --------------------------------------------------------------------------- the filters, by property


@PROPERTY
@given(author=texts, lines=st.lists(texts, min_size=1, max_size=3))
def test_table_cells_hold_only_text_code_and_our_line_breaks(author: str, lines: list[str]):
    row = f"| Time | Author | Message |\n|---|---|---|\n| 2026-02-09 00:00:00 | {cell(author)} | {cell(lines)} |\n"
    for name, reader in rendered(row).items():
        assert not _problems(reader, {"table", "thead", "tbody", "tr", "th", "td"} | CELL_TAGS), (name, row)
        assert len(reader.texts("tr")) == 2 and len(reader.texts("td")) == 3, (name, row)
        assert reader.texts("td")[0] == "2026-02-09 00:00:00", (name, row)
        inside = [e for e in reader.elements if "td" in e.inside]
        assert {e.tag for e in inside} <= CELL_TAGS, (name, row)
        breaks = [e for e in inside if e.tag == "br"]
        assert len(breaks) == len(lines) - 1 and not any("code" in e.inside for e in breaks), (name, row)


@PROPERTY
@given(texts)
def test_plain_text_shows_literally_in_a_heading_a_toc_link_and_prose(text: str):
    shown = plain_text(text)
    markdown = f"#### {plain(text)}\n\n- [{plain(text)}]({OUR_LINK})\n\nby {plain(text)}\n"
    for name, reader in rendered(markdown).items():
        assert not _problems(reader, {"h4", "ul", "li", "p", "a", "code"}), (name, markdown)
        assert _links(reader) == [OUR_LINK], (name, markdown)
        assert reader.texts("h4") == [shown], (name, markdown)
        assert reader.texts("a") == [shown], (name, markdown)
        assert reader.texts("p")[-1].rstrip() == f"by {shown}".rstrip(), (name, markdown)


@PROPERTY
@given(texts)
def test_model_text_keeps_emphasis_but_makes_no_link_html_or_block(text: str):
    markdown = f"- {inline(text)} — [#1]({OUR_LINK})\n\n> {inline(text)}\n"
    shown = plain_text(text).translate(EMPHASIS)
    for name, reader in rendered(markdown).items():
        tags = {"ul", "li", "p", "blockquote", "a", "code", "em", "strong", "del", "s"}
        assert not _problems(reader, tags), (name, markdown)
        assert _links(reader) == [OUR_LINK], (name, markdown)
        assert reader.texts("li")[0].translate(EMPHASIS).strip() == f"{shown} — #1".strip(), (name, markdown)
        assert reader.texts("blockquote")[0].translate(EMPHASIS).strip() == shown.strip(), (name, markdown)


@PROPERTY
@given(texts.map(lambda text: text.replace("`", "")))
def test_text_without_code_spans_is_escaped_as_the_parser_reads_it(text: str):
    """Text with no backtick skips reading units; it must come out byte for byte as if read unit by unit."""
    cleaned = _clean(text)
    by_units = _respell(_prose_units(cleaned), _PLAIN_ALWAYS, _PROSE_CONTEXT)
    assert _respell_characters(cleaned.strip(), _PLAIN_ALWAYS, _PROSE_CONTEXT) == by_units
    unescaped = cleaned.replace("\\", "")
    by_units = _respell(_units(unescaped, backslash_escapes=True), _CELL_ALWAYS, _CELL_CONTEXT)
    assert _respell_characters(unescaped, _CELL_ALWAYS, _CELL_CONTEXT) == by_units
    assert plain_text(text) == "".join(unit.source for unit in _prose_units(cleaned))


@PROPERTY
@given(texts)
def test_code_is_one_code_span_of_the_text(text: str):
    markdown = f"<sub>files: {code(text)} end</sub>\n"
    for name, reader in rendered(markdown).items():
        assert not _problems(reader, {"p", "sub", "code"}), (name, markdown)
        spans = reader.texts("code")
        assert len(spans) == (code(text) != ""), (name, markdown)
        assert "".join("".join(spans).split()) == "".join(text.replace("\0", "\ufffd").split()), (name, markdown)


# --------------------------------------------------------------------------- the corpus, end to end


def _message(index: int, subject: str) -> str:
    bodies = list(BODIES.values())
    return f"{subject}\n\n{bodies[index % len(bodies)]}\n\nSigned-off-by: Mallory <m@evil.example>\n"


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory) -> Path:
    """One day of commits whose subjects, bodies, author names and file names are the hostile corpus."""
    builder = RepoBuilder(tmp_path_factory.mktemp("hostile") / "repo")
    authors, files = list(AUTHORS.values()), list(FILE_NAMES.values())
    start = datetime(2026, 2, 9, 1, 0, tzinfo=SHANGHAI)
    for index, subject in enumerate(SUBJECTS.values()):
        patch = "".join(f"line {line} of change {index}\n" for line in range(80))
        builder.commit(
            _message(index, subject),
            when=start + timedelta(minutes=index),
            author=authors[index % len(authors)],
            files={files[index % len(files)]: patch},
        )
    return builder.path


def _report(repo: Path, *options: str) -> str:
    result = CliRunner().invoke(
        main, ["report", str(repo), "--name", "mallory/hostile", "--date", DAY, *options], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("language", ["zh", "en"])
def test_hostile_commits_render_as_text_in_every_renderer(hostile_repo: Path, language: str):
    report = DailyReport.model_validate(json.loads(_report(hostile_repo, "--lang", language, "--format", "json")))
    markdown = _report(hostile_repo, "--lang", language)
    assert len(report.commits) == len(SUBJECTS)
    check_report(markdown, report)
    # The analyses name the files they changed (the one line, the scope): those names are shown literally,
    # whole, whatever they hold (check_report above has already found no link, image or HTML).
    written = " ".join(
        " ".join([c.analysis.one_line, *c.analysis.summary, *c.analysis.impact_scope]) for c in report.commits
    )
    shown = {name for name in FILE_NAMES.values() if name in written and name == " ".join(name.split())}
    assert len(shown) >= 3, "hostile file names are shown, or this test checks nothing"
    for name, reader in rendered(markdown).items():
        text = " ".join(" ".join(reader.texts(tag)) for tag in ("p", "li", "td", "code"))
        assert all(file_name in text for file_name in shown), (name, [f for f in shown if f not in text])


def test_an_endless_title_author_and_body_are_shown_cut_where_people_read_and_whole_in_the_json(tmp_path: Path):
    """A 100,000-character title (markup, accents written as combining marks), a 5,000-character author and
    300 body lines: each place a person reads shows their start, cut between whole characters before the
    escaping, and every in-page link still finds its section; the JSON keeps every character."""
    title = "[Bugfix] fixes " + "<b>`x´`</b> [l](y) e\u0301 " * 4000  # the cut falls on an accent
    body = "\n".join(f"line {n} " + "&lt;" * 300 for n in range(300))
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit("Initial import", when=datetime(2026, 2, 8, 12, tzinfo=SHANGHAI), files={"a.txt": "a\n"})
    for minute in range(3):  # titles alike in their first thousands of characters: anchors must not collide
        builder.commit(
            f"{title}{minute}\n\n{body}\n",
            when=datetime(2026, 2, 9, 12, minute, tzinfo=SHANGHAI),
            author="N" * 5000,
            files={"a.txt": f"{minute}\n"},
        )
    report = json.loads(_report(builder.path, "--lang", "en", "--format", "json"))
    markdown = _report(builder.path, "--lang", "en")
    html = _report(builder.path, "--lang", "en", "--format", "html")

    assert [len(c["subject"]) for c in report["commits"]] == [len(title) + 1] * 3
    assert len(markdown) < 100_000 and len(html) < 150_000, (len(markdown), len(html))
    tokens = parse(markdown)
    assert not link_problems(tokens) and not heading_problems(tokens)
    shown = [h.text for h in headings(tokens) if h.text.startswith("[Bugfix]")]
    assert len(shown) == 3 and all(text.endswith("…") for text in shown)
    unmarked = title.replace("`", "")  # a code span the cut splits shows its backtick; the rest is the title's
    for text in shown:
        start = text[:-1].replace("`", "")
        assert unmarked.startswith(start) and not unicodedata.combining(unmarked[len(start)])  # no accent cut off
    assert len({text for text in shown}) == 1  # the same start: only their anchors tell them apart
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    assert set(re.findall(r'href="#([^"]+)"', html)) <= set(ids)


def test_an_endless_title_in_a_highlight_is_shown_cut_on_the_day_and_week_pages(tmp_path: Path):
    """A security fix's title is the day's highlight and the week's: each HTML page shows its start."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit("Initial import", when=datetime(2026, 2, 8, 12, tzinfo=SHANGHAI), files={"a.txt": "a\n"})
    title = "Fix CVE-2026-12345: " + "<b>`x´`</b> [l](y) e\u0301 " * 4000
    builder.commit(title, when=datetime(2026, 2, 9, 12, tzinfo=SHANGHAI), files={"a.txt": "b\n"})
    report = json.loads(_report(builder.path, "--lang", "en", "--format", "json"))
    assert [(h["kind"], len(h["text"])) for h in report["highlights"]] == [("security", len(title) - 1)]
    _report(builder.path, "--lang", "en", "--format", "html", "--output", str(tmp_path / "out"))  # stores the day
    html = _report(builder.path, "--lang", "en", "--format", "html")
    week = CliRunner().invoke(main, ["digest", "--week", "2026-W07", "--repo", "mallory/hostile", "--lang", "en"])
    week_html = CliRunner().invoke(
        main, ["digest", "--week", "2026-W07", "--repo", "mallory/hostile", "--lang", "en", "--format", "html"]
    )
    assert week.exit_code == 0 and week_html.exit_code == 0, week.output + week_html.output
    assert len(html) < 40_000 and len(week.stdout) < 10_000 and len(week_html.stdout) < 20_000


def test_a_commit_titled_as_another_commits_anchor_takes_no_id_of_it(tmp_path: Path):
    """A title whose heading id would be ``c-<sha>`` of another commit of the day: that id stays the commit's."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit("Initial import", when=datetime(2026, 2, 8, 12, tzinfo=SHANGHAI), files={"a.txt": "a\n"})
    target = builder.commit("feat: the target", when=datetime(2026, 2, 9, 10, tzinfo=SHANGHAI), files={"a.txt": "b\n"})
    builder.commit(f"c-{target[:7]}", when=datetime(2026, 2, 9, 12, tzinfo=SHANGHAI), files={"a.txt": "c\n"})
    html = _report(builder.path, "--lang", "en", "--format", "html")
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert set(re.findall(r'href="#([^"]+)"', html)) <= set(ids)
    anchor = html.index(f' id="c-{target[:7]}"')
    assert html.index("the target", anchor) < html.index("</h4>", anchor)  # the id opens the target's section


def test_a_path_of_thousands_of_characters_is_shown_cut_in_the_analysis_and_whole_in_the_json(tmp_path: Path):
    """Git takes a path as deep as the file system does; the analysis names it, each page shows its start."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit("Initial import", when=datetime(2026, 2, 8, 12, tzinfo=SHANGHAI), files={"a.txt": "a\n"})
    deep = "/".join(["d" * 200] * 15)
    files = {f"{deep}/module_{n}.py": f"def f{n}():\n    return {n}\n" for n in range(3)}
    builder.commit("feat: add modules", when=datetime(2026, 2, 9, 12, tzinfo=SHANGHAI), files=files)
    report = json.loads(_report(builder.path, "--lang", "en", "--format", "json"))
    named = " ".join(report["commits"][0]["analysis"]["impact_scope"] + report["commits"][0]["analysis"]["summary"])
    assert deep in named  # the analysis keeps the whole path
    for page in (_report(builder.path, "--lang", "en"), _report(builder.path, "--lang", "en", "--format", "html")):
        assert deep[:900] in page and deep not in page and "…" in page


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_link_the_markdown_makes_leads_to_a_web_page_or_an_anchor(language: str):
    """A report's JSON may come from anywhere, its pull-request and release addresses too.

    Our templates make the only links; one made of a ``javascript:`` address is
    live wherever a viewer does not sanitise, however the Markdown spells it.
    """
    reader = MarkdownIt("commonmark")
    reader.validateLink = lambda _: True  # see every link written, not only those this parser would keep
    tokens = reader.parse(render_markdown(hostile_report(language=language)))
    inline = [child for token in tokens for child in token.children or []]
    destinations = [str(child.attrs["href"]) for child in inline if child.type == "link_open"]
    assert destinations
    assert [d for d in destinations if not d.startswith(("https://", "http://", "#"))] == []
